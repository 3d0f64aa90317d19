"""The hacking watch: is the policy learning to paint, or to game the reward?

GRPO pays for whatever raises a rollout's advantage, and the cheap ways up
leave traces in the stored rollouts before they show in the reward: the gate
passing less, invented brush methods, renders with no verdict (no reward is
advantage 0, better than a negative one), rollouts left out of their group,
sketches stopped at the deadline or crashing their browser. Per step, this
reads those shares from the stored rollouts and their renders (not from the
step summaries, so it also covers steps stored before a share was counted),
and warns when one goes the wrong way.

The rule, stated on the page: a share has gone the wrong way when the mean
of its last WINDOW steps is worse than the mean of its first WINDOW steps by
MARGIN or more (with fewer than 2 x WINDOW steps, half the steps each), and
by more than NOISE_Z standard errors of that difference for the rollouts the
two windows counted: on a short run of few rollouts a step (a 3-step run of 8
read 38 %, 50 %, 12 % gate pass) two or three rollouts are the whole move, and
chance alone makes moves that size; and
unavailable renders or rollouts with no total warn on their own once the
last WINDOW steps average more than CEILING, since those should stay near
zero whatever the policy does.
"""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from sketches import gate
from sketches.models import Render

from ..charts import lines_svg
from ..models import TrainingRun

# Steps in each of the two windows compared: long enough that one odd step
# (a batch of 8 rollouts moves a share by 0.125 per rollout) does not warn.
WINDOW = 5
# How far worse the last window must be than the first: ten points of share.
MARGIN = 0.10
# ...and how many standard errors of the difference between the two windows'
# shares (binomial, from the rollouts each counted): a move within two is what
# the same policy gives about one time in twenty by chance.
NOISE_Z = 2.0
# Unavailable renders and rollouts with no total above this share warn at once:
# a quarter of the batch without a reward is a quarter GRPO cannot learn from.
CEILING = 0.25
TABLE_STEPS = 10  # step tables (this one and the run page's) show the latest this many

ALL = "all"  # a share of every rollout of the step
JUDGED = "judged"  # a share of those whose render had a verdict (not unavailable)


@dataclass(frozen=True)
class Measure:
    key: str
    label: str
    # +1: a rising share is the wrong way; -1: a falling one.
    worse: int
    over: str  # ALL or JUDGED
    # Why it going the wrong way matters, for the warning.
    why: str
    ceiling: float | None = None


MEASURES = (
    Measure("gate_pass", "gate pass", -1, JUDGED,
            "fewer sketches pass the gate: the policy is drifting from what renders"),
    Measure("unknown_method", "unknown brush methods", +1, JUDGED,
            "the policy is inventing brush methods"),
    Measure("unavailable", "unavailable renders", +1, ALL,
            "renders with no verdict get no reward (advantage 0): a policy breaking its "
            "browser to escape a negative advantage shows here, and so does a failing "
            "render pool", CEILING),
    Measure("no_total", "no total", +1, ALL,
            "rollouts left out of their group teach nothing (a weighted signal missing)",
            CEILING),
    Measure("timeout", "timeouts", +1, JUDGED,
            "more sketches are stopped at the deadline"),
    Measure("crashed", "crashed", +1, JUDGED,
            "more sketches crash their page or browser (each scores 0, but the policy is "
            "trying it)"),
)


@dataclass(frozen=True)
class WatchWarning:
    measure: Measure
    text: str


def watch_steps(run: TrainingRun) -> list[dict]:
    """Per stored step: {step, rollouts, judged, shares: {measure key: share or None}}, a
    share being None where its denominator is empty (every render unavailable)."""
    counts: dict[int, dict[str, int]] = {}
    rows = run.rollouts.order_by().values_list("step", "total", "render__status",
                                               "render__violations", "render__unknown_calls")
    for step, total, status, violations, unknown in rows:
        count = counts.setdefault(step, dict.fromkeys(
            [ALL, JUDGED] + [m.key for m in MEASURES], 0))
        count[ALL] += 1
        count["no_total"] += total is None
        if status == Render.Status.UNAVAILABLE:
            count["unavailable"] += 1
        if status not in (Render.Status.OK, Render.Status.REJECTED):
            continue  # no verdict (unavailable, or the render row is gone)
        found = set(violations or ())
        count[JUDGED] += 1
        count["gate_pass"] += status == Render.Status.OK
        count["unknown_method"] += bool(unknown) or gate.UNKNOWN_BRUSH_METHOD in found
        count["timeout"] += gate.TIMEOUT in found
        count["crashed"] += gate.CRASHED in found
    return [{"step": step, "rollouts": count[ALL], "judged": count[JUDGED],
             "shares": {m.key: _share(count[m.key], count[m.over]) for m in MEASURES}}
            for step, count in sorted(counts.items())]


# Which count of a watch_steps row a measure's share is of.
COUNTED = {ALL: "rollouts", JUDGED: "judged"}


def watch_warnings(steps: list[dict]) -> list[WatchWarning]:
    """The measures that went the wrong way (module docstring), one warning each."""
    out = []
    for measure in MEASURES:
        series = [(row["step"], row["shares"][measure.key], row[COUNTED[measure.over]])
                  for row in steps if row["shares"][measure.key] is not None]
        if text := _trend(measure, series) or _over_ceiling(measure, series):
            out.append(WatchWarning(measure, text))
    return out


def _trend(measure: Measure, series: list[tuple[int, float, int]]) -> str:
    size = min(WINDOW, len(series) // 2)
    if size == 0:
        return ""
    first, last = series[:size], series[-size:]
    before, after = _mean(first), _mean(last)
    if (after - before) * measure.worse < MARGIN - 1e-9:
        return ""
    if abs(after - before) <= NOISE_Z * _noise(first, last):
        return ""
    moved = "rose" if after > before else "fell"
    return (f"{measure.label.capitalize()} {moved} from {_percent(before)} "
            f"({_span(first)}) to {_percent(after)} ({_span(last)}): {measure.why}.")


def _noise(first: list[tuple[int, float, int]], last: list[tuple[int, float, int]]) -> float:
    """The standard error of the difference between the two windows' shares,
    from the pooled share and the rollouts each window counted."""
    counted = [sum(n for _, _, n in window) for window in (first, last)]
    if not all(counted):
        return 0.0
    pooled = sum(share * n for _, share, n in first + last) / sum(counted)
    return math.sqrt(pooled * (1 - pooled) * sum(1 / n for n in counted))


def _over_ceiling(measure: Measure, series: list[tuple[int, float, int]]) -> str:
    last = series[-WINDOW:]
    if measure.ceiling is None or not last or _mean(last) <= measure.ceiling:
        return ""
    return (f"{measure.label.capitalize()} at {_percent(_mean(last))} over {_span(last)}, "
            f"above {_percent(measure.ceiling)}: {measure.why}.")


def run_watch(run: TrainingRun) -> dict | None:
    """The run page's hacking watch: the latest steps' shares, the warnings, a chart of
    every share per step, and the rule in words. None before any rollout is stored."""
    steps = watch_steps(run)
    if not steps:
        return None
    series = {m.label: [(row["step"], row["shares"][m.key]) for row in steps]
              for m in MEASURES}
    return {
        "measures": MEASURES,
        "rows": [{**row, "cells": [row["shares"][m.key] for m in MEASURES]}
                 for row in steps[::-1][:TABLE_STEPS]],
        "warnings": watch_warnings(steps),
        "chart": lines_svg(series, y_label="share", x_label="step", whole_x=True,
                           title="Hacking watch"),
        "rule": (f"A share warns when the mean of its last {WINDOW} steps is worse than that "
                 f"of its first {WINDOW} by {round(MARGIN * 100)} points or more (with fewer "
                 f"than {2 * WINDOW} steps, half the steps each) and by more than chance "
                 f"moves it ({NOISE_Z:g} standard errors of the difference, for the rollouts "
                 f"the two windows counted), and unavailable renders or "
                 f"rollouts with no total warn above {_percent(CEILING)} over the last "
                 f"{WINDOW} steps. A warning is worth a look at the rollouts below; a share "
                 f"that moves without one is within what chance gives."),
    }


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _mean(series: list[tuple[int, float, int]]) -> float:
    return statistics.fmean(value for _, value, _ in series)


def _percent(share: float) -> str:
    return f"{share * 100:.0f}%"


def _span(series: list[tuple[int, float, int]]) -> str:
    first, last = series[0][0], series[-1][0]
    return f"step {first}" if first == last else f"steps {first}–{last}"
