"""Folders and zip archives seen as named members, read one at a time into
memory within limits. Nothing is ever extracted to disk, so a hostile name
can do no harm on its own; names that try to leave the input (`../x.js`,
absolute paths, symlinks) are still refused, so the report says so and a
manifest cannot reach outside the input either."""
from __future__ import annotations

import os
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from .conf import ImportLimits
from .errors import ErrorCode, ImportInputError, ItemError

_DRIVE = re.compile(r"^[A-Za-z]:")
# Members we pass over without a word: macOS resource forks, dot files.
_IGNORED_TOP = {"__MACOSX"}
READ_CHUNK = 1 << 20


def member_name(raw: str) -> str:
    """`raw` as a clean relative POSIX path, or ItemError(unsafe_path). Backslashes
    count as separators, as they do for the Windows tools that made many zips."""
    name = raw.replace("\\", "/")
    if "\x00" in name:
        raise ItemError(ErrorCode.UNSAFE_PATH, "the name contains a NUL byte")
    if name.startswith("/") or _DRIVE.match(name):
        raise ItemError(ErrorCode.UNSAFE_PATH, "absolute path")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise ItemError(ErrorCode.UNSAFE_PATH, "the path leaves the input ('..')")
    if not parts:
        raise ItemError(ErrorCode.UNSAFE_PATH, "empty path")
    return "/".join(parts)


def is_ignored(name: str) -> bool:
    parts = name.split("/")
    return parts[0] in _IGNORED_TOP or any(p.startswith(".") for p in parts)


@dataclass(frozen=True)
class Member:
    name: str            # relative POSIX path, as reports and manifests name it
    size: int            # uncompressed size as declared (zip header) or on disk
    compressed: int      # compressed size as declared; equals size in a folder
    key: object = None   # what the source needs to read it (a ZipInfo, a Path)


@dataclass
class Listing:
    members: dict[str, Member] = field(default_factory=dict)
    # Members refused while listing, by the name they had in the input.
    rejected: list[tuple[str, ItemError]] = field(default_factory=list)


def _strip_common_folder(members: dict[str, Member]) -> dict[str, Member]:
    """Zipping a folder usually puts everything under `folder/`: strip it, so
    `folder/manifest.jsonl` is found and names match the manifest's."""
    tops = {name.split("/", 1)[0] for name in members}
    if len(tops) != 1 or any("/" not in name for name in members):
        return members
    cut = len(tops.pop()) + 1
    return {name[cut:]: Member(name[cut:], m.size, m.compressed, m.key)
            for name, m in members.items()}


class FolderSource:
    """A folder on disk. Symlinks that point outside it are refused; those
    inside are read; symlinked folders are not walked into (no loops)."""

    def __init__(self, root: Path, limits: ImportLimits):
        self.root = root.resolve()
        self.limits = limits
        self.label = root.name

    def __enter__(self) -> FolderSource:
        return self

    def __exit__(self, *exc) -> None:
        pass

    def listing(self) -> Listing:
        listing = Listing()
        for dirpath, dirnames, filenames in os.walk(self.root, followlinks=False):
            for entry in sorted(dirnames) + sorted(filenames):
                path = Path(dirpath, entry)
                rel = path.relative_to(self.root).as_posix()
                if is_ignored(rel):
                    continue
                if path.is_symlink() and not self._inside(path):
                    listing.rejected.append((rel, ItemError(
                        ErrorCode.UNSAFE_PATH, "a symlink pointing outside the folder")))
                    continue
                if entry in dirnames:  # walked below unless hidden; symlinks never
                    continue
                try:
                    info = path.stat()
                except OSError:  # a dangling symlink
                    continue
                if stat.S_ISREG(info.st_mode):  # never a FIFO or a device: reading would hang
                    listing.members[rel] = Member(rel, info.st_size, info.st_size, path)
            dirnames[:] = sorted(d for d in dirnames if not is_ignored(d))
        listing.members = dict(sorted(listing.members.items()))
        return listing

    def _inside(self, path: Path) -> bool:
        return Path(os.path.realpath(path)).is_relative_to(self.root)

    def read(self, member: Member, *, limit: int) -> bytes:
        if member.size > limit:
            raise _too_large(member.size, limit)
        with open(member.key, "rb") as f:
            data = f.read(limit + 1)
        if len(data) > limit:  # grew since it was listed
            raise _too_large(len(data), limit)
        return data


class ZipSource:
    """A zip archive. Each member is checked against the limits by its declared
    sizes before it is read, and again by what reading it actually yields,
    because headers can lie."""

    def __init__(self, path: Path, limits: ImportLimits, *, label: str = ""):
        self.limits = limits
        self.label = label or path.name
        self.spent = 0  # bytes decompressed so far, against limits.max_total_bytes
        try:
            self.zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
            raise ImportInputError(f"{self.label} is not a readable zip archive: {exc}") from exc

    def __enter__(self) -> ZipSource:
        return self

    def __exit__(self, *exc) -> None:
        self.zip.close()

    def listing(self) -> Listing:
        listing = Listing()
        for info in self.zip.infolist():
            if info.is_dir():
                continue
            try:
                name = member_name(info.filename)
            except ItemError as error:
                listing.rejected.append((info.filename, error))
                continue
            if is_ignored(name):
                continue
            if stat.S_ISLNK(info.external_attr >> 16):
                listing.rejected.append((info.filename, ItemError(
                    ErrorCode.UNSAFE_PATH, "a symlink inside the zip")))
                continue
            if name in listing.members:
                listing.rejected.append((info.filename, ItemError(
                    ErrorCode.DUPLICATE_FILE, "a second member with the same name")))
                continue
            listing.members[name] = Member(name, info.file_size, info.compress_size, info)
        listing.members = dict(sorted(_strip_common_folder(listing.members).items()))
        return listing

    def read(self, member: Member, *, limit: int) -> bytes:
        self._check_declared(member, limit)
        try:
            with self.zip.open(member.key) as f:
                data = self._read_bounded(f, member, limit)
        except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError,
                RuntimeError, OSError) as exc:
            # A lying size header ends up here too: zipfile stops at the declared
            # size and the CRC of the truncated data does not match.
            raise ItemError(ErrorCode.CORRUPT_ENTRY, f"cannot read it from the zip: {exc}") from exc
        return data

    def _check_declared(self, member: Member, limit: int) -> None:
        limits = self.limits
        if member.size > limits.ratio_floor_bytes and \
                member.size > limits.max_ratio * max(member.compressed, 1):
            raise ItemError(ErrorCode.ZIP_BOMB, (
                f"expands {member.compressed} bytes to {member.size} "
                f"(more than {limits.max_ratio}x)"))
        if member.size > limit:
            raise _too_large(member.size, limit)
        if self.spent + member.size > limits.max_total_bytes:
            raise ItemError(ErrorCode.ZIP_BOMB, (
                f"reading it would take the archive past {limits.max_total_bytes} bytes "
                "uncompressed in all"))

    def _read_bounded(self, f, member: Member, limit: int) -> bytes:
        """Read in chunks, counting what actually comes out rather than what
        the header promised."""
        chunks, got = [], 0
        cap = min(limit, member.size)
        while True:
            chunk = f.read(min(READ_CHUNK, cap + 1 - got))
            if not chunk:
                break
            got += len(chunk)
            self.spent += len(chunk)
            if got > cap:
                raise ItemError(ErrorCode.ZIP_BOMB,
                                f"holds more than the {member.size} bytes its header declares")
            chunks.append(chunk)
        return b"".join(chunks)


def _too_large(size: int, limit: int) -> ItemError:
    return ItemError(ErrorCode.FILE_TOO_LARGE, f"{size} bytes, over the limit of {limit}")
