"""The test sketches (tests/sketches/), read by their path under it."""
from __future__ import annotations

from pathlib import Path

SKETCHES_DIR = Path(__file__).parent / "sketches"


def read_sketch(relative: str) -> str:
    return (SKETCHES_DIR / relative).read_text()
