"""A real Celery worker for tests: Redis as the broker, a worker process on
the `render` queue, sharing the database the test writes to."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import redis
from django.db import connection

from paintrl_site.celery import app as celery_app
from tests.conftest import chromium_path

ROOT = Path(__file__).resolve().parents[1]
# A Redis database of its own, so a running demo's workers never take test tasks.
TEST_REDIS_URL = os.environ.get("PAINTRL_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")


def database_url() -> str:
    db = connection.settings_dict
    if db["ENGINE"].endswith("sqlite3"):
        return f"sqlite:///{db['NAME']}"
    user = db["USER"] or ""
    auth = f"{user}:{db['PASSWORD']}@" if db["PASSWORD"] else (f"{user}@" if user else "")
    return f"postgres://{auth}{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"


def run_worker(queue: str, media_root, settings, *, pool: str = "solo", concurrency: int = 1,
               env: dict | None = None, include: str = ""):
    """A real Celery worker process on `queue`, sharing this test's database
    and `media_root`; a generator for fixtures to yield from. Redis database
    15 is the broker, so a running demo's workers never take test tasks.
    `include` names more task modules for it to load (tests.blocking_tasks)."""
    redis.Redis.from_url(TEST_REDIS_URL).flushdb()
    celery_app.conf.update(broker_url=TEST_REDIS_URL, result_backend=TEST_REDIS_URL)
    # A task sent earlier in this process (a grade queues its fingerprints on
    # commit) built the producer pools for the default broker, and they outlive
    # conf.update: drop them (what Celery itself does after a fork), or this
    # worker never sees what the test queues.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    settings.MEDIA_ROOT = media_root
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": TEST_REDIS_URL,
           "PAINTRL_MEDIA_ROOT": str(media_root), **(env or {})}
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "paintrl_site", "worker", "-Q", queue,
         "-P", pool, "-c", str(concurrency), "--without-heartbeat", "--without-gossip",
         "--without-mingle", "-n", f"test-{queue}-{os.getpid()}@%h", "--loglevel", "WARNING",
         *(["--include", include] if include else [])],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    yield proc
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def run_render_worker(tmp_path, settings):
    """The render worker as the Procfile runs it: threads sharing one pool of
    two browsers (the `render_worker` fixture in conftest.py yields from this)."""
    chromium_path()
    yield from run_worker("render", tmp_path, settings, pool="threads", concurrency=2,
                          env={"PAINTRL_RENDER_BROWSERS": "2"})


def wait_for(predicate, timeout: float = 90.0, worker=None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        if worker is not None and worker.poll() is not None:
            raise AssertionError(f"worker exited: {worker.stdout.read().decode()[-2000:]}")
        time.sleep(0.25)
    raise AssertionError("timed out waiting")




def worker_kill(proc) -> None:
    """SIGKILL, as a lost machine would: the worker and its browsers."""
    children = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    for child in children:
        try:
            os.kill(child.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
