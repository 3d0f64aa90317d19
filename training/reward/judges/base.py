"""What every judge backend answers, and the pictures it answers about.

Three questions, each asked in batches so a backend can score many pictures
at once or send many requests in parallel:
- `preference(pictures, prompts)`: how much people would like each picture;
- `compare(pairs, prompts)`: the probability that the first picture of each
  pair is the better painting (0.5 is a tie);
- `rate(pictures, prompts, criterion)`: a 0-10 rating on one criterion
  (CRITERIA), returned divided by 10.

Every answer is from 0 to 1, or None where the backend could not answer
(an outage, a timeout, a reply that would not parse). A backend records why
in `notices`, which the replay shows.

A question a backend can NEVER answer is another matter: every rollout's
total would be None, so it is a configuration problem, found before any
scoring. Subclasses list the questions they answer in `questions`, and
override `cannot_answer` where they answer a question only in part (the
local reward model rates every criterion but adherence).
"""
from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from functools import cached_property
from pathlib import Path

from files.stored import local_path, read_bytes

PREFERENCE_Q, COMPARE_Q, RATE_Q = "preference", "compare", "rate"
# The criteria `rate` answers, 0-10 (stored divided by 10).
CRITERIA = {
    "adherence": "How well does the painting show what the prompt asks for?",
    "recognisability": "How easily can you tell what the painting depicts?",
    "beauty": "How beautiful is the painting?",
    "technique": "How skilful is the brushwork and use of the medium?",
    "depth": "How much depth, layering and richness does the painting have?",
    "overall": "How good is this painting overall, as a piece of watercolour art?",
}


class JudgeUnavailable(RuntimeError):
    """The judge cannot answer anything (not configured, no model)."""


class Picture:
    """A PNG, from a file or from memory, known by the SHA-256 of its bytes."""

    def __init__(self, *, path: str | Path | None = None, data: bytes | None = None):
        if (path is None) == (data is None):
            raise ValueError("a Picture needs a path or data, not both")
        self.path = Path(path) if path is not None else None
        self._data = data

    @classmethod
    def stored(cls, name: str) -> Picture:
        """The PNG `name` in the default storage: read from its path when the
        storage is local (when the judge asks), else fetched now."""
        path = local_path(name)
        return cls(path=path) if path is not None else cls(data=read_bytes(name))

    @property
    def data(self) -> bytes:
        if self._data is None:
            return self.path.read_bytes()
        return self._data

    @cached_property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    def __repr__(self) -> str:
        return f"Picture({self.path or f'{len(self._data)} bytes'})"


class JudgeBackend:
    """Base class of judge and scorer backends: answers nothing (None) and
    says so once per question.

    A backend is listed by dotted path in PAINTRL_JUDGE_BACKENDS (settings)
    and chosen by a Judge row's key there (training.reward.judges.registry). A
    subclass sets `label` (the admin's name for it) and `questions`, answers
    those questions, and overrides `from_judge` when a Judge row configures
    it (an endpoint, a model, a timeout). Answers of a `cacheable` backend go
    through the database cache (training.reward.judges.cache).
    """

    key = "none"
    # What the admin's select calls it.
    label = ""
    # Whether answers are worth caching in the database (slow or paid backends).
    cacheable = False
    # The questions (PREFERENCE_Q, COMPARE_Q, RATE_Q) this backend answers.
    questions: frozenset[str] = frozenset()

    def __init__(self):
        self.notices: list[str] = []

    @classmethod
    def from_judge(cls, judge) -> JudgeBackend:
        """The backend a `training.models.Judge` row configures; raises
        JudgeUnavailable when it cannot answer anything. The base reads no
        field of the row."""
        return cls()

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    def cannot_answer(self, question: str | None, params: Mapping) -> str | None:
        """Why this backend can never answer `question` (PREFERENCE_Q,
        COMPARE_Q, RATE_Q: what a signal kind asks, training.reward.kinds)
        asked with a signal's `params`, with the way out where the backend
        knows it; None when it can (a single answer may still fail on the
        day) or when no question is asked."""
        if question is None or question in self.questions:
            return None
        return self._no_answer(question, params.get("criterion", ""))

    def _no_answer(self, question: str, criterion: str = "") -> str:
        return {PREFERENCE_Q: f"{self.key} gives no preference score",
                COMPARE_Q: f"{self.key} does not compare pictures",
                RATE_Q: f"{self.key} does not rate pictures on {criterion}"}[question]

    def preference(self, pictures: Sequence[Picture],
                   prompts: Sequence[str]) -> list[float | None]:
        self.notice(self._no_answer(PREFERENCE_Q))
        return [None] * len(pictures)

    def compare(self, pairs: Sequence[tuple[Picture, Picture]],
                prompts: Sequence[str]) -> list[float | None]:
        self.notice(self._no_answer(COMPARE_Q))
        return [None] * len(pairs)

    def rate(self, pictures: Sequence[Picture], prompts: Sequence[str],
             criterion: str) -> list[float | None]:
        self.notice(self._no_answer(RATE_Q, criterion))
        return [None] * len(pictures)
