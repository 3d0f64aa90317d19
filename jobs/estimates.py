"""How long a job has left, from the pace of its recent work.

One estimator for every job (a run's steps, a build's share of training,
renders): the rate is measured over the last WINDOW_S seconds of progress,
not since the start, because jobs change pace (a run's first step loads and
compiles the model; renders slow down when a build shares the CPU). Until
there is enough recent work to measure, the estimate says "estimating…"
rather than a number.

A job's progress is a series of samples (seconds, units done), oldest
first, cumulative: a run's finished steps, a render queue's finished renders.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate

# The pace is measured over this much recent work: five minutes covers dozens
# of demo renders and at least one step of a GRPO run, while forgetting a
# first step that loaded the model (the demo's pace: benchmarks/demo_renders.py
# --first-run 3; docs/benchmarks.md, "Measured constants").
WINDOW_S = 300.0
# No estimate before this many units in the window: one unit's time says
# little (a run's first step, which loads the model, is several times its
# next ones), and a time left from it misled more than "estimating…".
MIN_UNITS = 2.0
# Nor before this many seconds of measured work: under ten seconds a burst of
# cached results (renders already done) looks like a pace that does not last.
MIN_SECONDS = 10.0

ESTIMATING = "estimating…"


@dataclass(frozen=True)
class Estimate:
    """Seconds left, or None while there is too little data to tell."""

    seconds: float | None

    @property
    def known(self) -> bool:
        return self.seconds is not None

    def text(self) -> str:
        """"about 4 min left", "less than a minute left", or "estimating…"."""
        if self.seconds is None:
            return ESTIMATING
        if self.seconds < 60:
            return "less than a minute left"
        minutes = round(self.seconds / 60)
        if minutes < 90:
            return f"about {minutes} min left"
        hours = self.seconds / 3600
        return f"about {hours:.1f} h left".replace(".0 h", " h")

    def __str__(self) -> str:
        return self.text()


def samples_from_durations(durations: Iterable[float]) -> list[tuple[float, float]]:
    """(elapsed, units done) samples from each unit's duration (a run's step times)."""
    return [(0.0, 0.0)] + [(t, float(i)) for i, t in enumerate(accumulate(durations), 1)]


def estimate_left(samples: Sequence[tuple[float, float]], total: float, *,
                  window_s: float = WINDOW_S, min_units: float = MIN_UNITS,
                  min_seconds: float = MIN_SECONDS) -> Estimate:
    """Seconds until `total` units are done at the pace of the last `window_s`
    seconds of `samples` ((seconds, units done), oldest first)."""
    if not samples:
        return Estimate(None)
    t_last, done_last = samples[-1]
    if done_last >= total:
        return Estimate(0.0)
    # The window starts at the last sample before it, so it always spans some work.
    start = 0
    for i, (t, _) in enumerate(samples):
        if t <= t_last - window_s:
            start = i
    t_first, done_first = samples[start]
    units, seconds = done_last - done_first, t_last - t_first
    if units < min_units or seconds < min_seconds:
        return Estimate(None)
    return Estimate((total - done_last) * seconds / units)
