"""The default judge: the active reward model (pool.reward), nothing to
configure. Its score is a Bradley-Terry strength, so
- compare(a, b) = sigmoid(score(a) - score(b)), the model's own win probability;
- preference = sigmoid((score - centre) / spread), where centre and spread
  come from the grade boundaries the model recorded on held-out renders
  (nope|okay and okay|love): a render on the okay|love boundary scores above
  0.5, one on the nope|okay boundary below it;
- rate: the model has one opinion of a picture whatever the criterion, so
  every criterion gets the preference score (and a notice says so). Four
  absolute criteria answered by it correlate perfectly: the replay lab
  flags them as one signal counted several times, which is the point of
  comparing rubric v1 with v2. Adherence to the prompt it never sees, so
  it can never judge it (`cannot_answer`): a launch or a replay that asks it
  is refused, or drops adherence openly.
"""
from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Sequence

from pool.reward.conf import torch_threads
from pool.reward.scoring import scorer_for
from pool.reward.selectors import reward_model_active

from .base import COMPARE_Q, PREFERENCE_Q, RATE_Q, JudgeBackend, JudgeUnavailable, Picture

# Scores remembered per process by picture hash: pool references recur in
# every batch. 20,000 floats is nothing.
MEMO_SIZE = 20_000
NO_ADHERENCE = ("the local reward model never sees the prompt, so it cannot judge adherence "
                "to it: choose a vision judge (OpenAI-compatible) as the judge")


class LocalRewardModelJudge(JudgeBackend):
    label = "Local reward model"
    cacheable = False
    questions = frozenset({PREFERENCE_Q, COMPARE_Q, RATE_Q})

    def __init__(self, reward_model=None):
        super().__init__()

        self.reward_model = reward_model or reward_model_active()
        if self.reward_model is None:
            raise JudgeUnavailable(
                "no active reward model: train one (admin, Reward models, or "
                "`manage.py train_reward_model --activate`) for the local judge")
        self.key = f"local:reward-model-v{self.reward_model.version}"
        self.centre, self.spread = _scale(self.reward_model.metrics or {})
        self._memo: OrderedDict[str, float] = OrderedDict()
        self._lock = threading.Lock()

    def scores(self, pictures: Sequence[Picture]) -> list[float]:
        """Raw reward-model scores, decoded and scored in one batch."""
        import numpy as np
        import torch

        from pool.reward.features import decode  # torch: the pages list this backend

        missing = list({p.sha256: p for p in pictures if p.sha256 not in self._memo}.values())
        if missing:
            scorer = scorer_for(self.reward_model)
            # The reward model's own thread count while it scores, and the
            # caller's back after: a train worker's run has its own
            # (PAINTRL_RUN_THREADS), which scoring must not leave changed.
            threads = torch.get_num_threads()
            torch.set_num_threads(torch_threads())
            try:
                images = np.stack([decode(p.data, scorer.image_size) for p in missing])
                values = scorer.score(torch.from_numpy(images)).tolist()
            finally:
                torch.set_num_threads(threads)
            with self._lock:
                for picture, value in zip(missing, values, strict=True):
                    self._memo[picture.sha256] = float(value)
                while len(self._memo) > MEMO_SIZE:
                    self._memo.popitem(last=False)
        with self._lock:
            return [self._memo[p.sha256] for p in pictures]

    def preference(self, pictures, prompts):
        return [_sigmoid((s - self.centre) / self.spread) for s in self.scores(pictures)]

    def compare(self, pairs, prompts):
        if not pairs:
            return []
        flat = self.scores([p for pair in pairs for p in pair])
        return [_sigmoid(flat[2 * i] - flat[2 * i + 1]) for i in range(len(pairs))]

    def cannot_answer(self, question, params):
        if question == RATE_Q and params.get("criterion") == "adherence":
            return NO_ADHERENCE
        return super().cannot_answer(question, params)

    def rate(self, pictures, prompts, criterion):
        if criterion == "adherence":
            self.notice(f"{NO_ADHERENCE}; adherence is None")
            return [None] * len(pictures)
        self.notice("the local reward model has one opinion of a picture: every absolute "
                    "criterion gets its preference score")
        return self.preference(pictures, prompts)


def _scale(metrics: dict) -> tuple[float, float]:
    boundaries = sorted((metrics.get("boundaries") or {}).values())
    if len(boundaries) >= 2:
        low, high = boundaries[0], boundaries[-1]
        return (low + high) / 2, max((high - low) / 2, 1e-3)
    if boundaries:
        return boundaries[0], 1.0
    return 0.0, 1.0


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)
