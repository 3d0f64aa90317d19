"""HPSv3, a human-preference score for generated images, as a judge. It
runs as its own local service (scripts/hpsv3_service.py: it needs an old
transformers and a GPU); this backend only speaks HTTP to it.

HPSv3 gives each picture a score (the mu of its (mu, sigma) output), not a
probability, so
- preference = sigmoid((score - CENTRE) / SCALE);
- compare(a, b) = sigmoid(score_a - score_b), both scored in one batch;
- rate: HPSv3 has no criteria: it never rates (`cannot_answer` says so
  before a launch or a replay asks it).
Where HPSv3 is not configured the local reward model stands in (with a
notice), so the default rubric keeps a preference signal.
"""
from __future__ import annotations

import base64
import http.client
import json
import urllib.error
import urllib.request
from collections.abc import Sequence

from .base import COMPARE_Q, PREFERENCE_Q, RATE_Q, JudgeBackend, JudgeUnavailable, Picture
from .local import _sigmoid  # the same logistic as the local judge's
from .registry import DEFAULT_BACKEND, backend_class

# HPSv3's score scale, from its own README and demo (MizzenAI/HPSv3): the mean
# score of image generators in its benchmark runs from -0.24 (Stable Diffusion
# 2) to 10.55 (Kolors), and its Gradio demo calls below 0 "poor", 0-5 "needs
# improvement", 5-10 "good" and above 10 "excellent". So 5 is the middle
# (0.5), a score of 0 maps to 0.12 and 10 to 0.88.
CENTRE = 5.0
SCALE = 2.5
NOT_CONFIGURED = ("HPSv3 is not configured (set PAINTRL_HPSV3_URL, see "
                  "scripts/hpsv3_service.py): using the local reward model")
# Replies are a list of floats; this only stops a runaway server.
MAX_RESPONSE_BYTES = 1_000_000


class HPSv3Judge(JudgeBackend):
    label = "HPSv3 service"
    cacheable = True
    questions = frozenset({PREFERENCE_Q, COMPARE_Q})

    def __init__(self, url: str, timeout_s: float = 60.0, batch_size: int = 16):
        super().__init__()
        if not url.startswith(("http://", "https://")):
            raise JudgeUnavailable(f"HPSv3 URL {url!r} must start with http:// or https://")
        self.url = url.rstrip("/")
        self.timeout_s = float(timeout_s)
        # Even, so that a compared pair is never split across two batches.
        self.batch_size = max(2, int(batch_size) // 2 * 2)
        self.key = f"hpsv3@{self.url}"

    @classmethod
    def from_judge(cls, judge) -> JudgeBackend:
        """The HPSv3 judge a `training.models.Judge` row configures (its base
        URL, or PAINTRL_HPSV3_URL); where neither is set, the default backend
        (the local reward model) with a notice that says so. JudgeUnavailable
        when neither can answer."""
        from django.conf import settings

        url = judge.base_url or settings.PAINTRL_HPSV3_URL
        if url:
            return cls(url, timeout_s=judge.timeout_s)

        try:
            backend = backend_class(DEFAULT_BACKEND).from_judge(judge)
        except JudgeUnavailable as error:
            raise JudgeUnavailable(f"HPSv3 is not configured (set PAINTRL_HPSV3_URL, see "
                                   f"scripts/hpsv3_service.py) and the local fallback has "
                                   f"{error}") from error
        backend.notice(NOT_CONFIGURED)
        return backend

    def scores(self, pictures: Sequence[Picture], prompts: Sequence[str]) -> list[float | None]:
        """HPSv3 scores, batch_size pictures a request; None for a batch the
        service did not answer."""
        scores: list[float | None] = []
        for start in range(0, len(pictures), self.batch_size):
            batch = list(zip(pictures[start:start + self.batch_size],
                             prompts[start:start + self.batch_size], strict=True))
            scores.extend(self._score_batch(batch))
        return scores

    def preference(self, pictures, prompts):
        return [None if s is None else _sigmoid((s - CENTRE) / SCALE)
                for s in self.scores(pictures, prompts)]

    def compare(self, pairs, prompts):
        flat = self.scores([p for pair in pairs for p in pair],
                           [prompt for prompt in prompts for _ in (0, 1)])
        answers = []
        for index in range(len(pairs)):
            first, second = flat[2 * index], flat[2 * index + 1]
            answers.append(None if first is None or second is None
                           else _sigmoid(first - second))
        return answers

    def _score_batch(self, batch: list[tuple[Picture, str]]) -> list[float | None]:
        body = json.dumps({
            "images": [base64.b64encode(picture.data).decode("ascii") for picture, _ in batch],
            "prompts": [prompt for _, prompt in batch],
        }).encode()
        request = urllib.request.Request(f"{self.url}/score", data=body, method="POST",
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                scores = json.loads(response.read(MAX_RESPONSE_BYTES))["scores"]
            if len(scores) != len(batch):
                raise ValueError(f"{len(scores)} scores for {len(batch)} pictures")
            return [float(s) if isinstance(s, int | float) else None for s in scores]
        except urllib.error.HTTPError as error:
            reason = f"HTTP {error.code}: {_error_text(error)}"
        except (OSError, http.client.HTTPException) as error:
            timed_out = isinstance(error, TimeoutError) or isinstance(
                getattr(error, "reason", None), TimeoutError)
            reason = "timeout" if timed_out else f"cannot reach it ({error})"
        except (ValueError, KeyError, TypeError) as error:
            reason = f"malformed reply ({error})"
        self.notice(f"{self.key}: the HPSv3 service did not answer: {reason}")
        return [None] * len(batch)

    def _no_answer(self, question, criterion=""):
        if question == RATE_Q:
            return (f"{self.key} gives one score per picture and has no criteria, so it "
                    f"cannot rate {criterion}: choose a vision judge (OpenAI-compatible) "
                    "as the judge")
        return super()._no_answer(question, criterion)


def _error_text(error: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(error.read(10_000))["error"])
    except (ValueError, KeyError, TypeError, OSError):
        return error.reason or "no detail"

