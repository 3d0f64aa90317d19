"""Training runs' settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment; the measurements
behind them are recorded here)."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def stale_s() -> float:
    """PAINTRL_RUN_STALE_S: a running run whose worker has said nothing for
    this long is stalled (its worker died: a kill, a lost machine) and may be
    resumed. The worker beats at every step and between a step's phases, at
    most every jobs.lease.HEARTBEAT_EVERY_S; the longest phase measured here is
    a batch of 64 renders on two browsers (reward_bench: about 7 minutes), so
    the default half hour leaves room for slow steps."""
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


def torch_threads() -> int | None:
    """PAINTRL_RUN_THREADS: torch threads for a run on the CPU, or None for
    torch's default (setting 0: one per core). Measured here (2026-11-30, the
    shared 2-core machine at load ~10): sampling 48 tokens x 2 from the "test"
    policy took 9.5 s with two threads and 0.14 s with one (threads spinning
    against other processes); pool/reward/train.py saw the same. Hence the
    default 1; a dedicated CPU box should raise it."""
    value = settings.PAINTRL_RUN_THREADS
    if value < 0:
        raise ImproperlyConfigured(f"PAINTRL_RUN_THREADS must be 0 or more, got {value}")
    return int(value) or None


def run_dir(run_id: int) -> Path:
    """Where a run's checkpoints and final policy live: MEDIA_ROOT/runs/<id>/."""
    return Path(settings.MEDIA_ROOT) / "runs" / str(run_id)


RENDERS = ("process", "fleet")  # TrainingRun.Renders' values


def renders_default() -> str:
    """PAINTRL_RUN_RENDERS: where a new run's rollouts render. "process" (the
    train worker's own browsers) suits one machine; "fleet" sends them to the
    render queue, for clusters with render workers on other hosts."""
    value = settings.PAINTRL_RUN_RENDERS
    if value not in RENDERS:
        raise ImproperlyConfigured(f"PAINTRL_RUN_RENDERS must be one of {', '.join(RENDERS)}, "
                                   f"got {value!r}")
    return value
