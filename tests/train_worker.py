"""The `train_worker` and `short_worker` fixtures: real Celery workers on the
`train` queue (long jobs) and the `short` queue (short CPU jobs) as the
Procfile runs them (one task at a time), built on tests.workers.run_worker."""
from __future__ import annotations

from pathlib import Path

from tests.workers import run_worker


def run_train_worker(media_root, settings, queue: str = "train", *, env: dict | None = None,
                     **kwargs):
    """A worker on `queue` sharing `media_root` (the `media` fixture's) and the
    reward-model decode cache beside it."""
    cache = str(Path(media_root).parent / "reward_cache")
    settings.PAINTRL_REWARD_CACHE_DIR = cache
    yield from run_worker(queue, media_root, settings,
                          env={"PAINTRL_REWARD_CACHE_DIR": cache, **(env or {})}, **kwargs)


def run_short_worker(media_root, settings, **kwargs):
    yield from run_train_worker(media_root, settings, queue="short", **kwargs)
