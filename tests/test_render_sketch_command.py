"""`manage.py render_sketch`, run as a user or a script would: a subprocess
whose stdout is one JSON object."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.chromium import chromium_path
from tests.sketch_files import SKETCHES_DIR

pytestmark = pytest.mark.browser  # every test runs the command, which starts Chromium

ROOT = Path(__file__).resolve().parents[1]
LINES = SKETCHES_DIR / "good" / "lines.js"


def run_command(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    chromium_path()
    return subprocess.run(
        [sys.executable, "manage.py", "render_sketch", *args],
        cwd=ROOT, input=stdin, capture_output=True, timeout=120,
    )


class TestJsonReport:
    def test_good_sketch_prints_one_ok_object_and_writes_the_png(self, tmp_path):
        out = tmp_path / "lines.png"
        proc = run_command(str(LINES), "--seed", "3", "--out", str(out), "--json")
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["status"] == "ok"
        assert report["violations"] == []
        for key in ("errors", "paint_fraction", "elapsed_ms", "brush_calls", "unknown_calls"):
            assert key in report
        assert report["brush_calls"] > 0
        assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    def test_stdin_with_a_rejected_sketch_still_exits_zero(self):
        proc = run_command("-", "--json", stdin=b"function setup(){ createCanvas(80,80); }")
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        assert report["status"] == "rejected"
        assert "not_webgl" in report["violations"]

    def test_text_without_code_is_rejected_as_no_code(self):
        proc = run_command("-", "--json", stdin=b"I would rather not write a sketch today.")
        report = json.loads(proc.stdout)
        assert (report["status"], report["violations"]) == ("rejected", ["no_code"])


class TestBadInput:
    @pytest.mark.parametrize("content, message", [
        (b"\xff\xfe\x00 not utf-8", "not UTF-8"),
        (b"x" * 1_000_001, "larger than"),
    ])
    def test_unreadable_input_is_a_clear_error(self, tmp_path, content, message):
        path = tmp_path / "bad.js"
        path.write_bytes(content)
        proc = run_command(str(path), "--json")
        assert proc.returncode != 0
        assert message in proc.stderr.decode()

    def test_missing_file_is_a_clear_error(self, tmp_path):
        proc = run_command(str(tmp_path / "nope.js"))
        assert proc.returncode != 0
        assert "cannot read" in proc.stderr.decode()
