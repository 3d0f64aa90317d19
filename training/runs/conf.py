"""Training runs' settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment; the measurements
behind them are recorded here)."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def stale_s() -> float:
    """PAINTRL_RUN_STALE_S: a running run whose worker has said nothing for
    this long is stalled (its worker died: a kill, a lost machine) and may be
    resumed. The worker beats at every step and between a step's phases, at
    most every jobs.lease.HEARTBEAT_EVERY_S; the longest phase is a batch of
    64 renders on two browsers (benchmarks/reward_bench.py; docs/benchmarks.md,
    "Measured constants"), so the default half hour leaves room for slow steps."""
    value = settings.PAINTRL_RUN_STALE_S
    if value <= 0:
        raise ImproperlyConfigured(f"PAINTRL_RUN_STALE_S must be positive, got {value}")
    return float(value)


def keep_checkpoints() -> int:
    """PAINTRL_RUN_KEEP_CHECKPOINTS: checkpoints kept per run (older ones are
    deleted as new ones are saved). Resuming needs only the last; the
    default's second guards against a save cut off by a kill."""
    value = settings.PAINTRL_RUN_KEEP_CHECKPOINTS
    if value < 1:
        raise ImproperlyConfigured(f"PAINTRL_RUN_KEEP_CHECKPOINTS must be at least 1, got {value}")
    return int(value)
