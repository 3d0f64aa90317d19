"""Image statistics for checking the painter's quality range on rendered
PNGs (the paint fraction itself comes with every RenderOutcome)."""
from __future__ import annotations

import io
from collections import Counter

from PIL import Image

# Measured on a 128 px thumbnail (as paint_fraction is) with each channel cut
# to 8 levels: watercolour glazes and hatching land in many bins, flat washes
# in a few. A bin counts when it holds at least 0.2 % of the pixels (33 of
# 16,384), so stray anti-aliased edge pixels do not count as colours.
MEASURE_SIZE = 128
LEVELS = 8
MIN_SHARE = 0.002


def distinct_colours(png: bytes) -> int:
    """How many quantised colours cover a noticeable share of the picture."""
    with Image.open(io.BytesIO(png)) as img:
        small = img.convert("RGB").resize((MEASURE_SIZE, MEASURE_SIZE), Image.Resampling.BOX)
    step = 256 // LEVELS
    bins = Counter((r // step, g // step, b // step) for r, g, b in small.get_flattened_data())
    floor = MIN_SHARE * MEASURE_SIZE * MEASURE_SIZE
    return sum(1 for n in bins.values() if n >= floor)
