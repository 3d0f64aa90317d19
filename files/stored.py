"""Files through Django's storage API, on this machine or in a bucket.

Every PNG, upload and reward-model file is named in a storage (`STORAGES`,
settings.py): the local file system by default, an S3-compatible bucket when
PAINTRL_S3_BUCKET is set, so web, render and train workers on different
hosts see the same files. Code that needs a file's bytes or a path reads it
here, never through `storage.path()`, which a remote storage does not have.
"""
from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.core.files.storage import Storage, default_storage


def local_path(name: str, storage: Storage = default_storage) -> Path | None:
    """The file's path on this machine; None where the storage is remote."""
    try:
        return Path(storage.path(name))
    except NotImplementedError:
        return None


def read_bytes(name: str, storage: Storage = default_storage) -> bytes:
    with storage.open(name, "rb") as handle:
        return handle.read()


@contextmanager
def local_copy(name: str, storage: Storage = default_storage) -> Iterator[Path]:
    """A path to the file for code that can only open paths (archive readers):
    the file itself where it is local, else a temporary copy, removed after."""
    path = local_path(name, storage)
    if path is not None:
        yield path
        return
    suffix = "".join(Path(name).suffixes[-2:])  # keeps .tar.gz, which readers sniff by
    with tempfile.TemporaryDirectory(prefix="paintrl-stored-") as tmp:
        copy = Path(tmp) / f"file{suffix}"
        with storage.open(name, "rb") as source, copy.open("wb") as target:
            shutil.copyfileobj(source, target, 1024 * 1024)
        yield copy
