"""A real scoring function for scripts/hpsv3_service.py in tests (loaded with
`--scorer tests.hpsv3_test_scorer:paint_score`): the share of the canvas
covered with paint, on HPSv3's rough 0-10 scale. It judges the pictures it
is sent, so a test can check that scores travel back in order."""
from __future__ import annotations

from PIL import Image

from tests.fake_vision_server import paint_fraction


def paint_score(images: list[Image.Image], prompts: list[str]) -> list[float]:
    return [10.0 * paint_fraction(image) for image in images]
