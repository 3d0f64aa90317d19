"""Reads of an external run: its steps as the client numbered them, each
with its batches' items counted, the mean total, the items with no total,
the gate's pass share and each signal's mean (what the run page charts)."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from statistics import fmean

from sketches.models import Render

from ..models import ExternalItem, ExternalRun


@dataclass
class ExternalStep:
    step: int | None
    items: int = 0
    no_total: int = 0
    judged: int = 0  # renders the browser could judge (not unavailable)
    passed: int = 0
    totals: list[float] = field(default_factory=list)
    signals: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    @property
    def reward_mean(self) -> float | None:
        return fmean(self.totals) if self.totals else None

    @property
    def gate_pass(self) -> float | None:
        return self.passed / self.judged if self.judged else None

    def signal_means(self) -> dict[str, float | None]:
        return {name: fmean(values) if values else None for name, values in self.signals.items()}


def external_steps(run: ExternalRun) -> list[ExternalStep]:
    """Per client step, in step order (batches sent without a step last)."""
    steps: dict[int | None, ExternalStep] = {}
    rows = (ExternalItem.objects.filter(batch__run=run)
            .values_list("batch__step", "total", "signals", "render__status"))
    for step, total, signals, status in rows.iterator(chunk_size=1000):
        row = steps.setdefault(step, ExternalStep(step))
        row.items += 1
        if total is None:
            row.no_total += 1
        else:
            row.totals.append(total)
        if status in (Render.Status.OK, Render.Status.REJECTED):
            row.judged += 1
            row.passed += status == Render.Status.OK
        for name, value in (signals or {}).items():
            if value is not None:
                row.signals[name].append(value)
    return sorted(steps.values(), key=lambda s: (s.step is None, s.step or 0))
