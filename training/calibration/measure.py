"""Measuring a calibration: each member of a snapshot against the policy's
rendered rollouts, asked of the judge in batches (pool.band says who
meets whom and how answers are summed). The job (job.py) and a run that
re-calibrates as it trains (recalibrate.py) both measure here.

Only rollouts that rendered count. A sketch the gate rejected scores 0 on
the pairwise signal whatever the reference, so which references a run keeps
changes nothing for it; counting it as a loss would push every member's win
rate down by the policy's gate failures and empty the band."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from jobs.runner import JobStopped
from pool.band import WinRate, pairings, win_rates_sum
from pool.models import PoolMember
from pool.subjects import subject_of_prompt

from ..reward.judges import JudgeBackend, Picture

# Comparisons asked of the judge at once: a hosted judge answers a batch in
# parallel (its max_concurrency), and between batches the job writes its
# progress and reads its cancel flag.
BATCH = 64


class CalibrationStopped(JobStopped):
    """Asked to stop (cancelled): raised between batches."""


@dataclass(frozen=True)
class RolloutPicture:
    """A rendered rollout, as a member meets it."""

    picture: Picture
    prompt: str


def win_rates_measure(*, members: Sequence[PoolMember], rollouts: Sequence[RolloutPicture],
                      judge: JudgeBackend, per_member: int, seed: int | str,
                      should_stop: Callable[[], bool] = lambda: False,
                      progress: Callable[[int, int], None] = lambda done, total: None
                      ) -> list[WinRate]:
    """Each member's WinRate against `rollouts`; `progress(done, total)`
    after each batch of comparisons; CalibrationStopped when `should_stop()`."""
    if not rollouts:
        raise ValueError("no rendered rollout to compare the members with")
    subjects = [subject_of_prompt(r.prompt) for r in rollouts]
    pairs = pairings([(m.pk, m.subject) for m in members], subjects,
                     per_member=per_member, seed=seed)
    pictures = {m.pk: Picture.stored(m.png) for m in members}
    answers: list[float | None] = []
    for start in range(0, len(pairs), BATCH):
        if should_stop():
            raise CalibrationStopped()
        batch = pairs[start:start + BATCH]
        answers.extend(judge.compare(
            [(rollouts[i].picture, pictures[member_id]) for member_id, i in batch],
            [rollouts[i].prompt for _, i in batch]))
        progress(len(answers), len(pairs))
    return win_rates_sum([m.pk for m in members], pairs, answers)
