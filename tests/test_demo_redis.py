"""`make demo` stops, on exit (Ctrl-C included), the Redis it started itself
and never one it found running: scripts/ensure_redis.sh records the pid of a
Redis it starts in the file it is given, scripts/stop_redis.sh stops that one.
The Ctrl-C test runs the Makefile's own last line (the trap and a stand-in for
honcho) in its own process group and interrupts it as a terminal does."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.ports import free_port

ROOT = Path(__file__).resolve().parent.parent
ENSURE, STOP = ROOT / "scripts" / "ensure_redis.sh", ROOT / "scripts" / "stop_redis.sh"


def answers(port: int) -> bool:
    return subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(port), "ping"],
                          capture_output=True, text=True).stdout.strip() == "PONG"


def gone(port: int, timeout_s: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not answers(port):
            return True
        time.sleep(0.05)
    return False


def ensure(port: int, record: Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(ENSURE), str(record)], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "REDIS_URL": f"redis://127.0.0.1:{port}/0"},
                          check=True)


def demo_line() -> str:
    """The Makefile's demo line that runs honcho, as make runs it."""
    text = (ROOT / "Makefile").read_text()
    line = next(line for line in text.splitlines() if "honcho start" in line)
    return line.strip().lstrip("@")


@pytest.fixture
def workdir(tmp_path):
    (tmp_path / ".make").mkdir()
    return tmp_path


class TestDemoRedis:
    def test_a_redis_the_demo_started_stops_on_ctrl_c(self, workdir):
        port, record = free_port(), workdir / ".make" / "redis-demo.pid"
        started = ensure(port, record, workdir)
        assert "started Redis" in started.stdout and answers(port)
        pid = int(record.read_text())
        # The Makefile's line, with a sleep standing in for honcho (which stops
        # its processes on the same SIGINT).
        line = demo_line()
        assert re.search(r"trap '.*stop_redis\.sh \.make/redis-demo\.pid' EXIT", line), line
        command = line.replace("$(VENV)/bin/honcho start", "sleep 60").replace(
            "scripts/", f"{ROOT}/scripts/")
        demo = subprocess.Popen(["bash", "-c", command], cwd=workdir, start_new_session=True)
        try:
            time.sleep(0.5)
            os.killpg(demo.pid, signal.SIGINT)  # Ctrl-C: the whole foreground group
            demo.wait(timeout=10)
            assert gone(port), f"Redis pid {pid} still answers on {port}"
            assert not record.exists()
        finally:
            if demo.poll() is None:
                os.killpg(demo.pid, signal.SIGKILL)
            if answers(port):
                os.kill(pid, signal.SIGTERM)

    def test_a_redis_that_was_running_already_is_left_alone(self, workdir):
        port, record = free_port(), workdir / ".make" / "redis-demo.pid"
        other = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port),
                                  "--save", "", "--appendonly", "no"],
                                 stdout=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 5
            while not answers(port) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert answers(port)
            assert "started" not in ensure(port, record, workdir).stdout
            assert not record.exists()
            subprocess.run([str(STOP), str(record)], cwd=workdir, check=True)
            assert answers(port) and other.poll() is None
        finally:
            other.terminate()
            other.wait(timeout=10)
