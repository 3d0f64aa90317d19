"""Reads behind the probe's chart and film strips (presenters.py)."""
from __future__ import annotations

from django.db.models import Avg

from ...models import Probe, ProbeSample, TrainingRun


def probe_means(run: TrainingRun) -> list[tuple[int, float | None]]:
    """(step, mean score of its samples that have one) of each probe, in step order."""
    return list(Probe.objects.filter(run=run).order_by("step")
                .annotate(mean=Avg("samples__score")).values_list("step", "mean"))


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
