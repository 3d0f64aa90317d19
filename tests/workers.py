"""A real Celery worker for tests: Redis as the broker, a worker process on
the `render` queue, sharing the database the test writes to."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import redis
from django.db import connection

from paintrl_site.celery import app as celery_app
from tests.chromium import chromium_path
from tests.tiers import tier_require

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


def broker_use(url: str = TEST_REDIS_URL) -> None:
    """Point this process's Celery app at `url` (emptied) for broker and results."""
    redis.Redis.from_url(url).flushdb()
    celery_app.conf.update(broker_url=url, result_backend=url)
    # A task sent earlier in this process (a grade queues its fingerprints on
    # commit) built the producer pools for the default broker, and they outlive
    # conf.update: drop them (what Celery itself does after a fork), or this
    # worker never sees what the test queues. The result backend is cached
    # the same way.
    celery_app._pool = None
    celery_app.amqp._producer_pool = None
    celery_app._backend_cache = None
    vars(celery_app._local).pop("backend", None)


def run_worker(queue: str, media_root, settings, *, pool: str = "solo", concurrency: int = 1,
               env: dict | None = None, include: str = "", ready=None):
    """A real Celery worker process on `queue`, sharing this test's database
    and `media_root`; a generator for fixtures to yield from. Redis database
    15 is the broker, so a running demo's workers never take test tasks.
    `include` names more task modules for it to load (tests.blocking_tasks);
    `ready(name)`, where given, is waited on before the worker is yielded."""
    tier_require("worker", "a Celery worker")
    broker_use()
    settings.MEDIA_ROOT = media_root
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": TEST_REDIS_URL,
           "PAINTRL_MEDIA_ROOT": str(media_root), **(env or {})}
    name = f"test-{queue}-{os.getpid()}@{socket.gethostname()}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "paintrl_site", "worker", "-Q", queue,
         "-P", pool, "-c", str(concurrency), "--without-heartbeat", "--without-gossip",
         "--without-mingle", "-n", name, "--loglevel", "WARNING",
         *(["--include", include] if include else [])],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    if ready is not None:
        wait_for(lambda: ready(name), worker=proc)
    yield proc
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()


def run_render_worker(media_root, settings):
    """The render worker as the Procfile runs it: threads sharing one pool of
    two browsers (the `render_worker` fixture in conftest.py yields from this),
    yielded once it consumes the queue: the reward service refuses a batch
    while no render worker answers (training.external.services.FleetWatch)."""
    from sketches.fleet import render_workers

    chromium_path()
    yield from run_worker("render", media_root, settings, pool="threads", concurrency=2,
                          env={"PAINTRL_RENDER_BROWSERS": "2"},
                          ready=lambda name: name in render_workers())


def render_worker_start(broker_url: str, media_root, *, env: dict | None = None,
                        browsers: int = 2, name: str = "render") -> subprocess.Popen:
    """A render worker as the Procfile runs it (a thread per browser sharing
    one pool), named `render_worker_name(name)`. Unlike run_worker it does
    not flush the broker: a test's second worker must find what the first
    one left there."""
    tier_require("worker", "a Celery worker")
    chromium_path()
    env = {**os.environ, "DATABASE_URL": database_url(), "REDIS_URL": broker_url,
           "PAINTRL_MEDIA_ROOT": str(media_root), "PAINTRL_RENDER_BROWSERS": str(browsers),
           **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "paintrl_site", "worker", "-Q", "render",
         "-P", "threads", "-c", str(browsers), "--without-heartbeat", "--without-gossip",
         "--without-mingle", "-n", render_worker_name(name), "--loglevel", "WARNING"],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def render_worker_name(name: str) -> str:
    """The Celery node name render_worker_start gives a worker called `name`
    (unique to this test process)."""
    return f"{name}-{os.getpid()}@{socket.gethostname()}"


def render_worker_stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            worker_kill(proc)


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
