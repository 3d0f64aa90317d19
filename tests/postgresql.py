"""Tests that must run on PostgreSQL (concurrency, cutting its connection):
under the default SQLite settings they rerun themselves there, in a pytest
subprocess pointing at PAINTRL_TEST_POSTGRES_URL (default: the CI database),
and fail, never skip, when it cannot be reached."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from django.db import connection
from django.test import Client

POSTGRES_URL = os.environ.get("PAINTRL_TEST_POSTGRES_URL",
                              "postgres://postgres@127.0.0.1:5432/test")
ROOT = Path(__file__).resolve().parent.parent


def clients_logged_in(users) -> list[Client]:
    """A test client per user, logged in: one per thread of a concurrency test."""
    clients = []
    for user in users:
        client = Client()
        client.force_login(user)
        clients.append(client)
    return clients


def run_at_once(work: Callable[[int], None], count: int) -> None:
    """Run work(0) .. work(count - 1), each in its own thread, and wait for all."""
    threads = [threading.Thread(target=work, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def on_postgresql(request) -> bool:
    """True when this test runs on PostgreSQL; otherwise it is run there (and
    fails here if it fails there), and the caller returns."""
    if connection.vendor == "postgresql":
        return True
    _rerun_on_postgresql(request.node.nodeid)
    return False


def _rerun_on_postgresql(nodeid: str) -> None:
    import psycopg

    try:
        psycopg.connect(POSTGRES_URL, connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        pytest.fail(f"this test needs PostgreSQL at {POSTGRES_URL} (set "
                    f"PAINTRL_TEST_POSTGRES_URL to another): {exc}".strip())
    env = {**os.environ, "DATABASE_URL": POSTGRES_URL}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", nodeid, "-q", "-p", "no:cacheprovider", "--create-db"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    if result.returncode != 0:
        pytest.fail(f"on PostgreSQL ({POSTGRES_URL}) the test failed:\n"
                    f"{result.stdout[-6000:]}\n{result.stderr[-2000:]}")
