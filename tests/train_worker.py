"""The `train_worker` and `short_worker` fixtures: real Celery workers on the
`train` queue (long jobs) and the `short` queue (short CPU jobs) as the
Procfile runs them (one task at a time), built on tests.workers.run_worker."""
from __future__ import annotations

from tests.workers import run_worker


def run_train_worker(tmp_path, settings, queue: str = "train", *, env: dict | None = None,
                     **kwargs):
    cache = str(tmp_path / "reward_cache")
    settings.PAINTRL_REWARD_CACHE_DIR = cache
    yield from run_worker(queue, tmp_path, settings,
                          env={"PAINTRL_REWARD_CACHE_DIR": cache, **(env or {})}, **kwargs)


def run_short_worker(tmp_path, settings, **kwargs):
    yield from run_train_worker(tmp_path, settings, queue="short", **kwargs)
