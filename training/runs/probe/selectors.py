"""Reads behind the probe's chart and film strips (presenters.py)."""
from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from django.db.models import Avg

from sketches.models import Render

from ...models import Probe, ProbeSample, TrainingRun


@dataclass(frozen=True)
class ProbeMean:
    """One probe's mean score over its samples that have one, with its
    standard error (None below two such samples) and how many there were:
    one sample moves the mean by its score / scored at most, so by 1 / scored."""

    step: int
    mean: float | None
    se: float | None
    scored: int


def probe_means(run: TrainingRun, *, passed_only: bool = False) -> list[ProbeMean]:
    """Each probe's ProbeMean, in step order; with `passed_only`, of the
    samples the gate passed alone (what the pictures scored, apart from how
    many the gate rejected). The spread is taken here, not by the database:
    SQLite's sample standard deviation fails the whole query for a probe
    with one scored sample."""
    scores: dict[int, list[float]] = {
        step: [] for step in Probe.objects.filter(run=run).values_list("step", flat=True)}
    samples = ProbeSample.objects.filter(probe__run=run, score__isnull=False)
    if passed_only:
        samples = samples.filter(render__status=Render.Status.OK)
    for step, score in samples.values_list("probe__step", "score"):
        scores[step].append(score)
    return [ProbeMean(step, statistics.fmean(values) if values else None,
                      statistics.stdev(values) / math.sqrt(len(values))
                      if len(values) > 1 else None, len(values))
            for step, values in sorted(scores.items())]


def probe_prompt_means(run: TrainingRun) -> dict[int, list[tuple[int, float | None]]]:
    """Per probe prompt (by index), (step, mean score of its samples) of each probe."""
    rows = (ProbeSample.objects.filter(probe__run=run).values("prompt_index", "probe__step")
            .annotate(mean=Avg("score")).order_by("prompt_index", "probe__step"))
    means: dict[int, list[tuple[int, float | None]]] = {}
    for row in rows:
        means.setdefault(row["prompt_index"], []).append((row["probe__step"], row["mean"]))
    return means


def probe_samples(run: TrainingRun, steps: list[int]) -> list[ProbeSample]:
    """The samples of the run's probes at `steps`, with their render and probe."""
    return list(ProbeSample.objects.filter(probe__run=run, probe__step__in=steps)
                .select_related("probe", "render").order_by("probe__step", "prompt_index",
                                                            "index"))
