"""Chromium for the tests: where it is (a test that needs it fails, never
skips, where it is missing, and must be in the `browser` tier), and a
renderer config with the tests' deadlines."""
from __future__ import annotations

import os

import pytest

from sketches.renderer import RendererConfig
from tests.tiers import tier_require

# Short enough that the hostile corpus runs quickly, long enough for every
# honest test sketch (the slowest takes about 2.5 s on a cold browser here).
TEST_DEADLINE_S = 8.0
# A deadline that stops tests/sketches/slow/paced_lines.js (about 15 s of
# drawing) after a few hundred strokes, with setup well past its first.
SHORT_DEADLINE_S = 1.5


def chromium_path() -> str:
    tier_require("browser", "Chromium")
    path = os.environ.get("PAINTRL_CHROMIUM_PATH", "/usr/bin/chromium")
    if not os.access(path, os.X_OK):
        pytest.fail(f"Chromium is required at {path}: run `apt-get install chromium` "
                    "(make test does this as root) or set PAINTRL_CHROMIUM_PATH.")
    return path


def make_config(**overrides) -> RendererConfig:
    return RendererConfig(chromium_path=chromium_path(),
                          **{"deadline_s": TEST_DEADLINE_S, **overrides})
