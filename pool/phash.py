"""Which pool members are near-duplicates of each other?

A render's fingerprint is a 64-bit DCT perceptual hash of its luminance (the
classic pHash: 32x32 grey image, 2-D DCT, the 8x8 lowest frequencies, one bit
each for above/below their median) plus its colour layout (the mean colour of
each cell of a 4x4 grid). Two renders are near-duplicates when the hashes
differ in at most PAINTRL_POOL_DUPLICATE_DISTANCE bits and the colour layouts
lie within PAINTRL_POOL_DUPLICATE_COLOUR_DISTANCE. The hash sees only light
and dark: the procedural painter draws a blue and a teal hibiscus 4 bits
apart, and to a curator those are two references, not one.

The defaults (8 bits, 10 layout units) were chosen with
benchmarks/pool_duplicates.py, which alters painter renders (resized,
blurred, JPEG, noise, brightened, cropped, a dot painted on) and counts what
each threshold flags among the altered copies and among distinct renders:
the defaults flag nearly every altered copy and a handful of distinct pairs,
each a real near-copy (docs/benchmarks.md, "Measured constants").

Fingerprints are stored (RenderFingerprint) keyed by the PNG they came from,
so each image is decoded once: pool.selectors.render_fingerprints reads them
(and computes, without storing, any that are missing), and
pool.services.render_fingerprints_store stores them, from a task."""
from __future__ import annotations

import io
import logging
from dataclasses import dataclass

import numpy as np
from PIL import Image

from sketches.models import Render

from . import conf

logger = logging.getLogger(__name__)

# Bump when the fingerprint changes, so stored ones are recomputed.
FINGERPRINT_VERSION = 1
HASH_SIDE = 32  # the grey image the DCT runs on
LOW_FREQUENCIES = 8  # 8x8 coefficients -> 64 bits
LAYOUT_SIDE = 4  # the colour layout's grid: 4x4 cells x RGB = 48 bytes
# Rows of the pairwise comparison done at once. Even where every pair passes
# the hash test (a pool of near-blank renders), one block's colour comparison
# holds 64 x N x 48 floats: 49 MB at N = 2,000.
COMPARE_ROWS = 64
# ITU-R 601 luma, as Pillow's convert("L") uses.
LUMA = np.array([0.299, 0.587, 0.114])


@dataclass(frozen=True)
class Fingerprint:
    phash: int  # 64 bits
    layout: bytes  # mean RGB of each 4x4 grid cell, row by row, 48 bytes

    def hex(self) -> tuple[str, str]:
        return f"{self.phash:016x}", self.layout.hex()

    @classmethod
    def from_hex(cls, phash: str, layout: str) -> Fingerprint:
        return cls(int(phash, 16), bytes.fromhex(layout))

    def layout_array(self) -> np.ndarray:
        return np.frombuffer(self.layout, dtype=np.uint8).reshape(-1, 3).astype(np.float64)


@dataclass(frozen=True)
class NearDuplicate:
    """Two renders (a < b by id) whose fingerprints are close."""
    a: int
    b: int
    distance: int  # differing hash bits
    colour_distance: float  # of the colour layouts, see layout_distance


def _dct_matrix(n: int) -> np.ndarray:
    """The orthonormal DCT-II matrix: D @ x is the DCT of column vector x."""
    k = np.arange(n)[:, None]
    i = np.arange(n)[None, :]
    matrix = np.cos(np.pi * (2 * i + 1) * k / (2 * n)) * np.sqrt(2 / n)
    matrix[0] /= np.sqrt(2)
    return matrix


_DCT = _dct_matrix(HASH_SIDE)


def fingerprint_image(image: Image.Image) -> Fingerprint:
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        # Transparent parts show as the page's white, as on screen.
        background = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, image.convert("RGBA"))
    small = image.convert("RGB").resize((HASH_SIDE, HASH_SIDE), Image.Resampling.LANCZOS,
                                        reducing_gap=2.0)
    layout = small.resize((LAYOUT_SIDE, LAYOUT_SIDE), Image.Resampling.BOX).tobytes()
    grey = np.asarray(small, dtype=np.float64) @ LUMA
    low = (_DCT @ grey @ _DCT.T)[:LOW_FREQUENCIES, :LOW_FREQUENCIES].ravel()
    # Rounded, so a flat image (every AC coefficient ~1e-13) hashes the same
    # on every machine instead of by floating-point noise.
    low = np.round(low, 6)
    bits = low > np.median(low)
    phash = int.from_bytes(np.packbits(bits).tobytes(), "big")
    return Fingerprint(phash=phash, layout=layout)


def fingerprint_bytes(data: bytes) -> Fingerprint:
    with Image.open(io.BytesIO(data)) as image:
        return fingerprint_image(image)


def hamming(a: int, b: int) -> int:
    return (a ^ b).bit_count()


def _centred(layouts: np.ndarray) -> np.ndarray:
    """Layouts (..., cells, 3) less each one's mean colour: a copy a shade
    brighter or warmer all over keeps its layout."""
    return layouts - layouts.mean(axis=-2, keepdims=True)


def layout_distance(a: Fingerprint, b: Fingerprint) -> float:
    """Root mean square, over the grid cells, of the RGB distance between the
    two centred colour layouts (0-255 units)."""
    difference = _centred(a.layout_array()) - _centred(b.layout_array())
    return float(np.sqrt((difference ** 2).sum(axis=-1).mean()))


def near_duplicate_pairs(fingerprints: dict[int, Fingerprint], *,
                         max_distance: int | None = None,
                         max_colour_distance: float | None = None) -> list[NearDuplicate]:
    """Every pair of ids whose fingerprints are near-duplicates, closest
    first. Vectorised, hash first, so thousands compare in well under a
    second (benchmarks/pool_duplicates.py; docs/benchmarks.md)."""
    max_distance = conf.duplicate_distance() if max_distance is None else max_distance
    max_colour = (conf.duplicate_colour_distance() if max_colour_distance is None
                  else max_colour_distance)
    ids = np.array(sorted(fingerprints), dtype=np.int64)
    if len(ids) < 2:
        return []
    hashes = np.array([fingerprints[i].phash for i in ids], dtype=np.uint64)
    layouts = _centred(np.stack([fingerprints[i].layout_array() for i in ids]))
    pairs = []
    for start in range(0, len(ids), COMPARE_ROWS):
        bits = np.bitwise_count(hashes[start:start + COMPARE_ROWS, None] ^ hashes[None, :])
        upper = np.arange(start, start + bits.shape[0])[:, None] < np.arange(len(ids))[None, :]
        rows, columns = np.nonzero(upper & (bits <= max_distance))
        # Few pairs pass the hash test, so colours are compared for those alone.
        rows += start
        shades = np.sqrt(((layouts[rows] - layouts[columns]) ** 2).sum(axis=-1).mean(axis=-1))
        for r, c, shade in zip(rows, columns, shades, strict=True):
            if shade <= max_colour:
                pairs.append(NearDuplicate(int(ids[r]), int(ids[c]), int(bits[r - start, c]),
                                           round(float(shade), 1)))
    pairs.sort(key=lambda p: (p.distance, p.colour_distance, p.a, p.b))
    return pairs


def fingerprint_render(render: Render) -> Fingerprint | None:
    """The fingerprint of `render`'s PNG, or None (logged) when the file is
    missing or unreadable: such a render cannot be compared."""
    try:
        with render.png.open("rb") as file:
            return fingerprint_bytes(file.read())
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        logger.warning("render %s: cannot fingerprint %s: %s", render.pk, render.png.name, exc)
        return None
