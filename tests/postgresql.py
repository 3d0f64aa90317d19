"""Tests that must run on PostgreSQL (concurrency, cutting its connection):
under the default SQLite settings they rerun themselves there, in a pytest
subprocess pointing at PAINTRL_TEST_POSTGRES_URL (default: the CI database),
and fail, never skip, when it cannot be reached."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

POSTGRES_URL = os.environ.get("PAINTRL_TEST_POSTGRES_URL",
                              "postgres://postgres@127.0.0.1:5432/test")
ROOT = Path(__file__).resolve().parent.parent


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
