"""The deployment's settings every sampling job reads (defaults live in
paintrl_site/settings.py, which reads the environment; the measurements
behind them are recorded here)."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import models


def torch_threads() -> int | None:
    """PAINTRL_RUN_THREADS: torch threads for a job sampling on the CPU, or
    None for torch's default (setting 0: one per core). On a shared machine a
    second thread spins against other processes and sampling slows many
    times over (docs/benchmarks.md, "Measured constants"; pool/reward/train.py
    saw the same). Hence the default 1; a dedicated CPU box should raise it."""
    value = settings.PAINTRL_RUN_THREADS
    if value < 0:
        raise ImproperlyConfigured(f"PAINTRL_RUN_THREADS must be 0 or more, got {value}")
    return int(value) or None


class Renders(models.TextChoices):
    """Where a job's samples render: the `renders` setting's choices."""

    PROCESS = "process", "in the train worker's own browsers"
    FLEET = "fleet", "by the render workers (the render queue)"


RENDERS = tuple(Renders.values)


def renders_default() -> str:
    """PAINTRL_RUN_RENDERS: where a new job's samples render (a run's, a
    prompt optimisation's, a calibration's). "process" (the train worker's
    own browsers) suits one machine; "fleet" sends them to the render queue,
    for clusters with render workers on other hosts."""
    value = settings.PAINTRL_RUN_RENDERS
    if value not in RENDERS:
        raise ImproperlyConfigured(f"PAINTRL_RUN_RENDERS must be one of {', '.join(RENDERS)}, "
                                   f"got {value!r}")
    return value
