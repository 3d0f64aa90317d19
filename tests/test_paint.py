"""sketches.renderer.paint: the paint fraction and the flattening on white,
held to their plain definitions."""
from __future__ import annotations

import io
from collections import Counter

import numpy as np
from PIL import Image

from sketches.renderer.paint import MEASURE_SIZE, PAINT_TOLERANCE, flatten_on_white, paint_fraction


def png_of(array: np.ndarray, mode: str) -> bytes:
    out = io.BytesIO()
    Image.fromarray(array.astype(np.uint8), mode).save(out, format="PNG")
    return out.getvalue()


def fraction_by_definition(png: bytes) -> float:
    """The share of thumbnail pixels off the most common colour (the first
    seen, among ties) by more than the tolerance, pixel by pixel."""
    with Image.open(io.BytesIO(png)) as img:
        small = img.convert("RGB").resize((MEASURE_SIZE, MEASURE_SIZE), Image.Resampling.BOX)
    pixels = list(small.getdata())
    background = Counter(pixels).most_common(1)[0][0]
    off = [p for p in pixels
           if max(abs(a - b) for a, b in zip(p, background, strict=True)) > PAINT_TOLERANCE]
    return len(off) / len(pixels)


def test_paint_fraction_is_its_definition_on_paintings_and_ties():
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(6):
        canvas = np.empty((256, 256, 3))
        canvas[:] = rng.integers(0, 256, 3)
        h, w = rng.integers(10, 200, 2)
        y, x = rng.integers(0, 56, 2)
        canvas[y:y + h, x:x + w] = rng.integers(0, 256, (h, w, 3))
        cases.append(canvas)
    # Two colours, each half the canvas: the tie goes to the one met first.
    tie = np.zeros((MEASURE_SIZE, MEASURE_SIZE, 3))
    tie[: MEASURE_SIZE // 2] = (250, 240, 230)
    tie[MEASURE_SIZE // 2:] = (20, 30, 40)
    cases += [tie, tie[::-1].copy()]
    # Just inside and just outside the tolerance.
    edge = np.full((MEASURE_SIZE, MEASURE_SIZE, 3), 200.0)
    edge[:10] += PAINT_TOLERANCE
    edge[10:20] += PAINT_TOLERANCE + 1
    cases.append(edge)
    for canvas in cases:
        png = png_of(canvas, "RGB")
        assert paint_fraction(png) == fraction_by_definition(png)
    assert paint_fraction(png_of(edge, "RGB")) == 10 / MEASURE_SIZE


def test_flatten_keeps_an_opaque_capture_and_flattens_a_translucent_one():
    opaque = np.full((40, 40, 4), 255)
    opaque[..., :3] = (12, 90, 200)
    png = png_of(opaque, "RGBA")
    assert flatten_on_white(png) is png

    clear = opaque.copy()
    clear[:20, :, 3] = 0
    flat = flatten_on_white(png_of(clear, "RGBA"))
    with Image.open(io.BytesIO(flat)) as img:
        assert img.mode == "RGB"
        assert img.getpixel((0, 0)) == (255, 255, 255)
        assert img.getpixel((0, 30)) == (12, 90, 200)
