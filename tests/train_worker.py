"""The `train_worker` fixture: a real Celery worker on the `train` queue as
the Procfile runs it (one task at a time), built on tests.workers.run_worker."""
from __future__ import annotations

from tests.workers import run_worker


def run_train_worker(tmp_path, settings):
    cache = str(tmp_path / "reward_cache")
    settings.PAINTRL_REWARD_CACHE_DIR = cache
    yield from run_worker("train", tmp_path, settings, env={"PAINTRL_REWARD_CACHE_DIR": cache})
