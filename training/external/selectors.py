"""Reads of an external run: its steps as the client numbered them, each
with its batches' items counted, the mean total, the items with no total,
the gate's pass share, each signal's mean and the yardstick's (what the run
page charts)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from statistics import fmean

from django.db.models import Count, F, Max, Q, Sum

from sketches.models import Render

from ..models import ExternalBatch, ExternalItem, ExternalRun


@dataclass
class ExternalStep:
    step: int | None
    items: int = 0
    no_total: int = 0
    judged: int = 0  # renders the browser could judge (not unavailable)
    passed: int = 0
    totals: list[float] = field(default_factory=list)
    gold: list[float] = field(default_factory=list)  # the yardstick's scores
    signals: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    @property
    def reward_mean(self) -> float | None:
        return fmean(self.totals) if self.totals else None

    @property
    def yardstick_mean(self) -> float | None:
        return fmean(self.gold) if self.gold else None

    @property
    def gate_pass(self) -> float | None:
        return self.passed / self.judged if self.judged else None

    def signal_means(self) -> dict[str, float | None]:
        return {name: fmean(values) if values else None for name, values in self.signals.items()}


def external_steps(run: ExternalRun) -> list[ExternalStep]:
    """Per client step, in step order (batches sent without a step last)."""
    steps: dict[int | None, ExternalStep] = {}
    rows = (ExternalItem.objects.filter(batch__run=run)
            .values_list("batch__step", "total", "signals", "render__status", "yardstick"))
    for step, total, signals, status, gold in rows.iterator(chunk_size=1000):
        row = steps.setdefault(step, ExternalStep(step))
        row.items += 1
        if total is None:
            row.no_total += 1
        else:
            row.totals.append(total)
        if gold is not None:
            row.gold.append(gold)
        if status in (Render.Status.OK, Render.Status.REJECTED):
            row.judged += 1
            row.passed += status == Render.Status.OK
        for name, value in (signals or {}).items():
            if value is not None:
                row.signals[name].append(value)
    return sorted(steps.values(), key=lambda s: (s.step is None, s.step or 0))


@dataclass(frozen=True)
class OpenRun:
    """An open external run as the jobs page lists it."""

    run: ExternalRun
    scoring: int  # batches being scored now
    batches: int
    items: int
    last: object  # when its last batch came (a datetime), or None


def external_runs_open() -> list[OpenRun]:
    """The open external runs, the one a batch came to last first."""
    runs = (ExternalRun.objects.filter(status=ExternalRun.Status.OPEN)
            .annotate(batch_count=Count("batches", distinct=True),
                      scoring=Count("batches", distinct=True,
                                    filter=Q(batches__status=ExternalBatch.Status.SCORING)),
                      items=Sum("batches__size"), last=Max("batches__created"))
            .order_by(F("last").desc(nulls_last=True), "-opened"))
    return [OpenRun(run, run.scoring, run.batch_count, run.items or 0, run.last) for run in runs]
