"""Training runs' settings, read in one place (defaults live here until
paintrl_site/settings.py names them; the environment sets them there)."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

# A running run whose worker has said nothing for this long is stalled: its
# worker died (a kill, a lost machine) and it may be resumed. The worker beats
# at every step and between a step's phases, at most every HEARTBEAT_EVERY_S;
# the longest phase measured here is a batch of 64 renders on two browsers
# (reward_bench: about 7 minutes), so half an hour leaves room for slow steps.
DEFAULT_STALE_S = 1800

# Checkpoints kept per run (older ones are deleted as new ones are saved).
# Resuming needs only the last; one more guards against a save cut off by a kill.
DEFAULT_KEEP_CHECKPOINTS = 2


def stale_s() -> float:
    value = getattr(settings, "PAINTRL_RUN_STALE_S", DEFAULT_STALE_S)
    if value <= 0:
        raise ImproperlyConfigured(f"PAINTRL_RUN_STALE_S must be positive, got {value}")
    return float(value)


def keep_checkpoints() -> int:
    value = getattr(settings, "PAINTRL_RUN_KEEP_CHECKPOINTS", DEFAULT_KEEP_CHECKPOINTS)
    if value < 1:
        raise ImproperlyConfigured(f"PAINTRL_RUN_KEEP_CHECKPOINTS must be at least 1, got {value}")
    return int(value)


# Torch threads for a run on the CPU. Measured here (2026-11-30, the shared
# 2-core machine at load ~10): sampling 48 tokens x 2 from the "test" policy
# took 9.5 s with two threads and 0.14 s with one (threads spinning against
# other processes); pool/reward/train.py saw the same. A dedicated CPU box
# should raise it; 0 leaves torch's default (one per core).
DEFAULT_THREADS = 1


def torch_threads() -> int | None:
    """Threads for a CPU run, or None for torch's default."""
    value = getattr(settings, "PAINTRL_RUN_THREADS", DEFAULT_THREADS)
    if value < 0:
        raise ImproperlyConfigured(f"PAINTRL_RUN_THREADS must be 0 or more, got {value}")
    return int(value) or None


def run_dir(run_id: int) -> Path:
    """Where a run's checkpoints and final policy live: MEDIA_ROOT/runs/<id>/."""
    return Path(settings.MEDIA_ROOT) / "runs" / str(run_id)
