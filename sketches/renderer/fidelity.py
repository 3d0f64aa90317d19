"""Do two renders show the same picture? The measure a renderer change is held
to (harness 3's CPU fill masks against the SwiftShader masks before them, the
editor's preview against the server's render)."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

from .paint import image_on_white

# The bounds for "the same picture": a mean absolute difference per channel of
# at most MEAN_LEVELS_MAX, and at most OFF_SHARE_MAX of the pixels with a
# channel off by more than OFF_LEVELS. Antialiased edges differ between
# rasterisers by a few levels on a few pixels; a wash that turned paler moved
# the mean by 0.96 levels (the renderer with plain CPU fill masks, 2026-12-01).
MEAN_LEVELS_MAX = 0.3
OFF_LEVELS = 10
OFF_SHARE_MAX = 0.005


def pixels(png: bytes) -> np.ndarray:
    """RGB levels, transparent areas on white, as the renderer stores them."""
    with Image.open(io.BytesIO(png)) as img:
        return np.asarray(image_on_white(img), dtype=np.int16)


def picture_difference(a: bytes | np.ndarray, b: bytes | np.ndarray) -> tuple[float, float]:
    """Mean absolute difference per channel, and the share of pixels with a
    channel off by more than OFF_LEVELS. Pictures of different sizes are not
    the same picture: ValueError."""
    a = pixels(a) if isinstance(a, bytes) else a
    b = pixels(b) if isinstance(b, bytes) else b
    if a.shape != b.shape:
        raise ValueError(f"pictures of different sizes: {a.shape} and {b.shape}")
    diff = np.abs(a.astype(np.int16) - b.astype(np.int16))
    return float(diff.mean()), float((diff.max(axis=2) > OFF_LEVELS).mean())


def same_picture(a: bytes | np.ndarray, b: bytes | np.ndarray) -> bool:
    mean, off = picture_difference(a, b)
    return mean <= MEAN_LEVELS_MAX and off <= OFF_SHARE_MAX
