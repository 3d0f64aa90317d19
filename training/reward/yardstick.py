"""The yardstick's score of rendered pictures: each picture's mean win
probability against fixed pool references, by a reward model the reward
never optimises (a yardstick trained disjoint from the judge's, or the gold
judge). The probe scores its samples with it, a run each step's rollouts,
and an external run each batch's items: the gold side of the
overoptimisation curve (training.runs.overoptimisation).

Scores follow the reward rules: a sketch the gate rejected is no painting
and scores 0; an unavailable render has no score (None), never 0."""
from __future__ import annotations

import statistics
import threading

from pool.models import PoolMember, RewardModel
from sketches.rendering import OK, REJECTED, RenderOutcome

from .judges import Picture
from .judges.local import LocalRewardModelJudge


class Yardstick:
    """A reward model and its reference pictures, loaded once."""

    def __init__(self, *, yardstick_id: int, member_ids: list[int]):
        self.judge = LocalRewardModelJudge(
            reward_model=RewardModel.objects.get(pk=yardstick_id))
        members = PoolMember.objects.in_bulk(member_ids)
        self.references = [Picture.stored(members[pk].png) for pk in member_ids]

    def scores(self, outcomes: list[RenderOutcome]) -> list[float | None]:
        """Each picture's mean win probability against the references (module docstring)."""
        values: list[float | None] = [0.0 if o.status == REJECTED else None for o in outcomes]
        chosen = [i for i, o in enumerate(outcomes) if o.status == OK and o.png]
        if not chosen or not self.references:
            return values
        pairs = [(Picture(data=outcomes[i].png), reference)
                 for i in chosen for reference in self.references]
        answers = self.judge.compare(pairs, [""] * len(pairs))
        per = len(self.references)
        for n, i in enumerate(chosen):
            answered = [a for a in answers[n * per:(n + 1) * per] if a is not None]
            values[i] = statistics.fmean(answered) if answered else None
        return values


_loaded: dict[tuple[int, tuple[int, ...]], Yardstick] = {}
_loading = threading.Lock()


def yardstick_loaded(*, yardstick_id: int, member_ids: list[int]) -> Yardstick:
    """One Yardstick per reward model and references in this process: a web
    process serving an external run's batches loads its weights and pictures
    once, not per batch. A reward model's weights never change once trained."""
    key = (yardstick_id, tuple(member_ids))
    with _loading:
        if key not in _loaded:
            _loaded[key] = Yardstick(yardstick_id=yardstick_id, member_ids=member_ids)
        return _loaded[key]
