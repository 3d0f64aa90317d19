"""From PNG files to the small uint8 tensors the reward model reads.

A render is padded to a square on white (canvases need not be square, and
stretching would change the shapes the model judges), box-filtered down to
`size` x `size` RGB, and kept as uint8 (3 x size x size): 1,664 renders at
64 px are 20 MB. Decoding is the slow part (benchmarks/reward_speed.py), so
each decoded image is cached in memory and, when a cache folder is given,
on disk, keyed by the file's path, size and modification time, or for a file
in a remote storage (a bucket) by its bytes, which are fetched anyway.
"""
from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from files.stored import local_path, read_bytes
from sketches.renderer.paint import image_on_white

# Decoding threads: PIL releases the GIL while it inflates and resizes, so
# threads decode side by side (benchmarks/reward_speed.py; docs/benchmarks.md).
DECODE_THREADS = min(4, os.cpu_count() or 1)
# Bump when the preprocessing changes, so old cache files are not reused.
PREPROCESS_VERSION = 1

_memory: dict[str, np.ndarray] = {}
# The in-memory cache stops growing here (a long-lived worker scores every new
# render): 256 MB holds ~21,000 renders at 64 px, the disk cache the rest.
_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024
_memory_bytes = 0
_memory_lock = threading.Lock()  # decoding threads add to the cache together


def decode(data_or_path: bytes | str | Path, size: int) -> np.ndarray:
    """One image as uint8 (3, size, size)."""
    if isinstance(data_or_path, bytes):
        import io

        image = Image.open(io.BytesIO(data_or_path))
    else:
        image = Image.open(data_or_path)
    # Downsample at decode time where the format allows it (JPEG draft mode);
    # PNG ignores this and decodes in full.
    image.draft("RGB", (size, size))
    image = image_on_white(image)
    width, height = image.size
    side = max(width, height)
    if width != height:
        square = Image.new("RGB", (side, side), (255, 255, 255))
        square.paste(image, ((side - width) // 2, (side - height) // 2))
        image = square
    image = image.resize((size, size), Image.Resampling.BOX, reducing_gap=2.0)
    return np.asarray(image, dtype=np.uint8).transpose(2, 0, 1).copy()


def _cache_key(path: Path, size: int) -> str:
    stat = path.stat()
    raw = f"v{PREPROCESS_VERSION}|{path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}|{size}"
    return hashlib.sha1(raw.encode()).hexdigest()


def _bytes_key(data: bytes, size: int) -> str:
    return hashlib.sha1(f"v{PREPROCESS_VERSION}|{size}|".encode() + data).hexdigest()


def load_one(path: str | Path, size: int, cache_dir: Path | None = None,
             storage=None) -> np.ndarray:
    """One image as load_images gives it; `path` is a name in `storage` when
    one is given, else a local path."""
    data = None
    if storage is not None:
        local = local_path(str(path), storage)
        if local is None:
            data = read_bytes(str(path), storage)
        path = local
    else:
        path = Path(path)
    key = _cache_key(path, size) if data is None else _bytes_key(data, size)
    cached = _memory.get(key)
    if cached is not None:
        return cached
    cache_file = cache_dir / key[:2] / f"{key}.npy" if cache_dir is not None else None
    array = None
    if cache_file is not None and cache_file.exists():
        try:
            array = np.load(cache_file)
        except (OSError, ValueError):
            array = None  # a torn write from a killed run: decode again
    if array is None:
        array = decode(path if data is None else data, size)
        if cache_file is not None:
            cache_file.parent.mkdir(parents=True, exist_ok=True)
            partial = cache_file.with_suffix(f".{os.getpid()}.tmp")
            with partial.open("wb") as handle:
                np.save(handle, array)
            partial.replace(cache_file)
    global _memory_bytes
    with _memory_lock:
        if key not in _memory and _memory_bytes + array.nbytes <= _MEMORY_LIMIT_BYTES:
            _memory[key] = array
            _memory_bytes += array.nbytes
    return array


def load_images(paths: Sequence[str | Path], size: int, *, storage=None,
                cache_dir: Path | None = None,
                on_progress: Callable[[int, int], None] | None = None) -> torch.Tensor:
    """The images at `paths` as one uint8 tensor (N, 3, size, size): names in
    `storage` (the app's renders: `default_storage`) or, without one, local
    paths (benchmarks' corpora)."""
    if not paths:
        return torch.zeros((0, 3, size, size), dtype=torch.uint8)
    out = np.empty((len(paths), 3, size, size), dtype=np.uint8)
    with ThreadPoolExecutor(max_workers=DECODE_THREADS) as pool:
        arrays = pool.map(lambda p: load_one(p, size, cache_dir, storage), paths)
        for index, array in enumerate(arrays):
            out[index] = array
            if on_progress is not None and (index + 1) % 256 == 0:
                on_progress(index + 1, len(paths))
    return torch.from_numpy(out)


def clear_memory_cache() -> None:
    global _memory_bytes
    with _memory_lock:
        _memory.clear()
        _memory_bytes = 0
