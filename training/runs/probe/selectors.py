"""Reads behind the probe's chart and film strips (presenters.py)."""
from __future__ import annotations

import math
from dataclasses import dataclass

from django.db.models import Avg, Count, StdDev

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


def probe_means(run: TrainingRun) -> list[ProbeMean]:
    """Each probe's ProbeMean, in step order."""
    rows = (Probe.objects.filter(run=run).order_by("step")
            .annotate(mean=Avg("samples__score"), sd=StdDev("samples__score", sample=True),
                      scored=Count("samples__score"))
            .values_list("step", "mean", "sd", "scored"))
    return [ProbeMean(step, mean, sd / math.sqrt(scored) if sd is not None and scored > 1
                      else None, scored)
            for step, mean, sd, scored in rows]


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
