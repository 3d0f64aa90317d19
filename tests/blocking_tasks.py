"""A task that holds its worker until the test lets it go: the stand-in for a
long job (a GRPO run, a policy build) occupying the train worker. Loaded only
by test workers started with `include="tests.blocking_tasks"`."""
from __future__ import annotations

import time
from pathlib import Path

from celery import shared_task


@shared_task
def block_task(started: str, release: str, timeout_s: float = 120.0) -> str:
    """Write `started`, then wait until `release` exists (or `timeout_s`)."""
    Path(started).touch()
    deadline = time.monotonic() + timeout_s
    while not Path(release).exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    return "released"
