"""The import's settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from ..code_text import MAX_SKETCH_BYTES
from ..conf import setting_function


@dataclass(frozen=True)
class ImportLimits:
    # One sketch's code; the same bound as `render_sketch` and the editor.
    max_file_bytes: int = MAX_SKETCH_BYTES
    # One render PNG as stored (a 1200 px watercolour render is about 1-2 MB).
    max_png_bytes: int = 20_000_000
    # Decoded pixels of one PNG, checked from its header before decoding:
    # 4096 x 4096 RGBA is 64 MiB in memory, far above any render we make.
    max_image_pixels: int = 4096 * 4096
    # Bytes decompressed from one archive in all; bounds the time a zip can
    # cost. zipfile inflated 1.3-1.8 GB/s on one core here (Nov 2026), so the
    # limit is a few seconds of CPU; 1,700 renders with their PNGs are ~1 GB.
    max_total_bytes: int = 2_000_000_000
    # Uncompressed / compressed size of one member. A 730-byte test sketch
    # deflates 1.7x, PNGs about 1x; zeros deflate 1,029x (the zip bomb's trick).
    max_ratio: int = 100
    # Members smaller than this are not ratio-checked: a 40 KB file of
    # spaces compresses 500x and costs nothing.
    ratio_floor_bytes: int = 64 * 1024

    def __post_init__(self):
        for name, value in vars(self).items():
            if not isinstance(value, int) or value <= 0:
                raise ImproperlyConfigured(f"import limit {name} must be a positive integer, "
                                           f"got {value!r}")


def import_limits() -> ImportLimits:
    defaults = ImportLimits()
    return ImportLimits(
        max_file_bytes=getattr(settings, "PAINTRL_IMPORT_MAX_FILE_BYTES",
                               defaults.max_file_bytes),
        max_png_bytes=getattr(settings, "PAINTRL_IMPORT_MAX_PNG_BYTES", defaults.max_png_bytes),
        max_image_pixels=getattr(settings, "PAINTRL_IMPORT_MAX_IMAGE_PIXELS",
                                 defaults.max_image_pixels),
        max_total_bytes=getattr(settings, "PAINTRL_IMPORT_MAX_TOTAL_BYTES",
                                defaults.max_total_bytes),
        max_ratio=getattr(settings, "PAINTRL_IMPORT_MAX_RATIO", defaults.max_ratio),
    )


# The longest PAINTRL_IMPORT_DEADLINE_S allowed. A render is its sketch's run
# and its replay, each within the deadline, and a render task holding a
# prefork worker is stopped at 600 s (sketches/tasks.py, ONE_RENDER_LIMITS):
# two 240 s halves and a browser's start stay inside that.
MAX_IMPORT_DEADLINE_S = 240.0


def import_deadline_s() -> float:
    """PAINTRL_IMPORT_DEADLINE_S: the render deadline of an imported sketch
    that comes without its PNG. The renderer's own deadline (30 s) is sized
    for training, where a rollout that paints for minutes is worth stopping;
    an import is a person's chosen painting, rendered once, and a heavy
    single-frame p5.brush 2.x painting from outside took more than 30 s here
    (docs/benchmarks.md, "Paint by construction"). Bounded, since model-
    or stranger-written code still runs in it."""
    value = settings.PAINTRL_IMPORT_DEADLINE_S
    if not 0 < value <= MAX_IMPORT_DEADLINE_S:
        raise ImproperlyConfigured(f"PAINTRL_IMPORT_DEADLINE_S must be in (0, "
                                   f"{MAX_IMPORT_DEADLINE_S:g}] s, got {value}")
    return float(value)


def max_upload_bytes() -> int:
    return getattr(settings, "PAINTRL_IMPORT_MAX_UPLOAD_BYTES", 200 * 1024 * 1024)


GradesHandler = Callable[..., object]


def grades_handler() -> GradesHandler:
    """The function that stores imported grades, `handler(*, render, grades)`.
    A dotted path, so that sketches never imports the rating app."""
    return setting_function("PAINTRL_IMPORT_GRADES_HANDLER", "rating.services.grades_import")
