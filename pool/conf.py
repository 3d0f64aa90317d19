"""The pool app's settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment)."""
from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

# A 64-bit hash differs in at most 64 bits.
HASH_BITS = 64


def duplicate_distance() -> int:
    """Two pool members are near-duplicates when their perceptual hashes differ
    in at most this many bits (and their colour layouts are close, see below;
    pool/phash.py records the measurements behind both defaults)."""
    distance = settings.PAINTRL_POOL_DUPLICATE_DISTANCE
    if not 0 <= distance <= HASH_BITS:
        raise ImproperlyConfigured(
            f"PAINTRL_POOL_DUPLICATE_DISTANCE must be from 0 to {HASH_BITS}, got {distance}")
    return distance


def duplicate_colour_distance() -> float:
    """The largest colour-layout distance (RMS over a 4x4 grid of RGB
    distances, 0-255 units) between near-duplicates: the hash sees only light
    and dark, so without this a recoloured composition would count as a copy."""
    distance = settings.PAINTRL_POOL_DUPLICATE_COLOUR_DISTANCE
    if distance < 0:
        raise ImproperlyConfigured(
            f"PAINTRL_POOL_DUPLICATE_COLOUR_DISTANCE must be at least 0, got {distance}")
    return float(distance)


def snapshot_panels() -> list[Callable]:
    """The snapshot page's panels (settings.PAINTRL_SNAPSHOT_PANELS): each a
    function (request, snapshot) -> pool.snapshot_panels.SnapshotPanel | None."""
    panels = []
    for path in settings.PAINTRL_SNAPSHOT_PANELS:
        try:
            panels.append(import_string(path))
        except ImportError as exc:
            raise ImproperlyConfigured(f"PAINTRL_SNAPSHOT_PANELS={path!r} does not name an "
                                       f"importable function: {exc}") from exc
    return panels
