"""Is this file a PNG we can safely keep as a render? The pixel count is
checked from the header before anything is decoded: a few kilobytes of PNG
can claim 100,000 x 100,000 pixels (a decompression bomb)."""
from __future__ import annotations

import io
import warnings
from dataclasses import dataclass

from PIL import Image, UnidentifiedImageError

from .errors import ErrorCode, ItemError

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@dataclass(frozen=True)
class CheckedPng:
    data: bytes
    width: int
    height: int


def png_check(data: bytes, *, max_pixels: int) -> CheckedPng:
    """`data` if it is a whole, decodable PNG of at most `max_pixels` pixels;
    otherwise ItemError not_png, image_too_large or corrupt_image."""
    if not data.startswith(PNG_SIGNATURE):
        raise ItemError(ErrorCode.NOT_PNG, f"not a PNG file (starts with {data[:8]!r})")
    try:
        with warnings.catch_warnings():
            # Pillow warns, then raises, on images above its own global limit;
            # ours is checked below and is the one reported.
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=["PNG"]) as img:  # reads the header only
                width, height = img.size
                if width * height > max_pixels:
                    raise _too_many_pixels(width, height, max_pixels)
                img.verify()  # chunk structure and CRCs
            with Image.open(io.BytesIO(data), formats=["PNG"]) as img:
                img.load()    # the pixel data itself (verify() does not decode it)
    except Image.DecompressionBombError as exc:
        raise ItemError(ErrorCode.IMAGE_TOO_LARGE, str(exc)) from exc
    except UnidentifiedImageError as exc:
        raise ItemError(ErrorCode.NOT_PNG, "Pillow does not read it as a PNG") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ItemError(ErrorCode.CORRUPT_IMAGE, f"the PNG does not decode: {exc}") from exc
    if width < 1 or height < 1:
        raise ItemError(ErrorCode.CORRUPT_IMAGE, f"the PNG is {width}x{height} pixels")
    return CheckedPng(data=data, width=width, height=height)


def _too_many_pixels(width: int, height: int, max_pixels: int) -> ItemError:
    return ItemError(ErrorCode.IMAGE_TOO_LARGE,
                     f"{width}x{height} pixels, over the limit of {max_pixels}")
