"""How much of a captured canvas is paint, and the downscaled copy used for
scoring. Computed here from the PNG, never trusted from the page."""
from __future__ import annotations

import io

import numpy as np
from PIL import Image

# Channel difference from the background colour that counts as paint. JPEG-free
# PNG captures of a flat background differ by 0; watercolour glazes at 10 %
# opacity on paper differ by about 10-25 per channel.
PAINT_TOLERANCE = 8
# Measuring on a 128 px thumbnail keeps this at about 2 ms per render.
MEASURE_SIZE = 128


def paint_fraction(png: bytes) -> float:
    """Share of the canvas that differs from its most common colour (of
    several as common, the first in reading order). In numpy: a loop over
    the thumbnail's pixels in Python took 20-60 ms a render here."""
    with Image.open(io.BytesIO(png)) as img:
        small = img.convert("RGB").resize((MEASURE_SIZE, MEASURE_SIZE), Image.Resampling.BOX)
    pixels = np.asarray(small, dtype=np.int32).reshape(-1, 3)
    packed = (pixels[:, 0] << 16) | (pixels[:, 1] << 8) | pixels[:, 2]
    colours, counts = np.unique(packed, return_counts=True)
    commonest = colours[counts == counts.max()]
    background = pixels[np.flatnonzero(np.isin(packed, commonest))[0]]
    painted = np.abs(pixels - background).max(axis=1) > PAINT_TOLERANCE
    return float(painted.mean())


def image_on_white(img: Image.Image) -> Image.Image:
    """The image as opaque RGB, transparent areas shown on white, as a viewer
    sees them (a sketch that never calls background() leaves them clear)."""
    if img.mode in ("RGB", "L"):
        return img.convert("RGB")
    rgba = img.convert("RGBA")
    flat = Image.new("RGB", rgba.size, (255, 255, 255))
    flat.paste(rgba, mask=rgba.getchannel("A"))
    return flat


def flatten_on_white(png: bytes) -> bytes:
    """An opaque PNG (see image_on_white); an opaque one comes back as it is,
    including an RGBA one whose alpha is 255 everywhere (a canvas that called
    background(): re-encoding it cost 15-20 ms a render for the same pixels)."""
    with Image.open(io.BytesIO(png)) as img:
        img.load()
        if img.mode in ("RGB", "L"):
            return png
        if img.mode == "RGBA" and img.getchannel("A").getextrema() == (255, 255):
            return png
        flat = image_on_white(img)
    out = io.BytesIO()
    flat.save(out, format="PNG")
    return out.getvalue()


def downscale(png: bytes, size: int) -> bytes:
    """A copy whose longer side is `size` pixels, for judges and scorers."""
    with Image.open(io.BytesIO(png)) as img:
        img = img.convert("RGB")
        img.thumbnail((size, size), Image.Resampling.LANCZOS)
        out = io.BytesIO()
        img.save(out, format="PNG")
    return out.getvalue()
