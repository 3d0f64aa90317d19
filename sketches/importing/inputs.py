"""What is in an input, as a list of planned items: each has the name the
report shows and a `load()` that reads and checks it, raising ItemError.
Problems found while planning (an unsafe member, a bad manifest line)
become items whose load() raises, so every problem reaches the report the
same way and is counted once."""
from __future__ import annotations

import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .conf import ImportLimits
from .errors import ErrorCode, ImportInputError, ItemError
from .images import CheckedPng, png_check
from .records import (
    ManifestEntry,
    manifest_entry_parse,
    manifest_file_hint,
    sketch_line_parse,
    text_check,
)
from .sources import FolderSource, Member, ZipSource, member_name

MANIFEST_NAME = "manifest.jsonl"
JSONL_SUFFIXES = {".jsonl", ".ndjson"}
# A manifest line is small (names, a prompt, a few grades); 64 MiB holds
# several hundred thousand of them.
MAX_MANIFEST_BYTES = 64 * 1024 * 1024
# JSON can spell one byte of code as six ("\u0001"), plus room for the prompt.
JSONL_LINE_FACTOR = 6
JSONL_LINE_SLACK = 64 * 1024


@dataclass(frozen=True)
class Candidate:
    """One sketch, read and checked, ready to store."""
    name: str
    code: str
    prompt: str = ""
    seed: int = 0
    grades: dict[str, str] = field(default_factory=dict)
    png: CheckedPng | None = None
    meta: dict = field(default_factory=dict)  # becomes Sketch.meta["import"]
    brush: str | None = None  # the p5.brush its line asks for; None: the import's


@dataclass(frozen=True)
class PlannedItem:
    name: str
    load: Callable[[], Candidate]


@dataclass
class ImportPlan:
    kind: str                      # folder | zip | jsonl
    total: int
    items: Iterator[PlannedItem]
    ignored: list[str] = field(default_factory=list)


@contextmanager
def import_plan(path: Path, limits: ImportLimits, source_name: str) -> Iterator[ImportPlan]:
    """The plan for `path`: a folder, a zip, or a .jsonl file of sketches."""
    if not path.exists():
        raise ImportInputError(f"{path} does not exist")
    if path.is_dir():
        with FolderSource(path, limits) as source:
            yield _archive_plan("folder", source, limits, source_name)
    elif zipfile.is_zipfile(path):
        with ZipSource(path, limits, label=source_name) as source:
            yield _archive_plan("zip", source, limits, source_name)
    elif path.suffix.lower() == ".zip":
        raise ImportInputError(f"{source_name} is named .zip but is not a zip archive")
    elif path.suffix.lower() in JSONL_SUFFIXES and path.is_file():
        yield _jsonl_plan(path, limits, source_name)
    else:
        raise ImportInputError(f"{source_name} is not a folder, a .zip or a .jsonl file")


def code_decode(data: bytes) -> str:
    try:
        code = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise ItemError(ErrorCode.NOT_UTF8, f"not UTF-8 text (byte {exc.start})") from exc
    return imported_code_check(code)


def imported_code_check(code: str) -> str:
    """`code` of an imported item, once it is text and not empty. Unlike
    code a person writes (sketches.editing.written_code_check), a syntax
    error is kept: an import is a record of what was written, and its
    render says what is wrong with it."""
    text_check(code, ErrorCode.NOT_UTF8)
    if not code.strip():
        raise ItemError(ErrorCode.EMPTY_CODE, "no code in it")
    return code


def _fail(error: ItemError) -> Callable[[], Candidate]:
    def load() -> Candidate:
        raise error
    return load


# --- folders and zips ----------------------------------------------------

def _archive_plan(kind: str, source: FolderSource | ZipSource, limits: ImportLimits,
                  source_name: str) -> ImportPlan:
    listing = source.listing()
    members = listing.members
    items = [PlannedItem(name, _fail(error)) for name, error in listing.rejected]
    referenced: set[str] = {MANIFEST_NAME}
    if MANIFEST_NAME in members:
        for line_no, parsed, raw in _manifest(source, members[MANIFEST_NAME]):
            if isinstance(parsed, ItemError):
                items.append(_bad_manifest_line(line_no, parsed, raw, referenced))
                continue
            referenced.update(_clean_names(parsed.file, parsed.png))
            items.append(PlannedItem(parsed.file, _manifest_loader(
                source, members, parsed, limits, source_name)))
    ignored = []
    for name, member in members.items():
        if name in referenced:
            continue
        if name.lower().endswith(".js"):
            items.append(PlannedItem(name, _member_loader(source, member, limits, source_name)))
        else:
            ignored.append(name)
    return ImportPlan(kind=kind, total=len(items), items=iter(items), ignored=ignored)


def _manifest(source, member: Member
              ) -> Iterator[tuple[int, ManifestEntry | ItemError, bytes]]:
    try:
        data = source.read(member, limit=MAX_MANIFEST_BYTES)
    except ItemError as error:
        raise ImportInputError(f"{MANIFEST_NAME}: {error.message}") from error
    for line_no, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        try:
            yield line_no, manifest_entry_parse(line_no, raw), raw
        except ItemError as error:
            yield line_no, error, raw


def _bad_manifest_line(line_no: int, error: ItemError, raw: bytes,
                       referenced: set[str]) -> PlannedItem:
    """The error, under the name of the file the line names when it can be
    made out; that file is then not imported on its own, without a prompt."""
    where = f"{MANIFEST_NAME} line {line_no}"
    hint = manifest_file_hint(raw)
    claimed = _clean_names(hint)
    if not claimed:
        return PlannedItem(where, _fail(error))
    referenced.update(claimed)
    return PlannedItem(hint, _fail(ItemError(error.code, f"{where}: {error.message}")))


def _clean_names(*names: str | None) -> list[str]:
    """The member names a manifest entry claims (unsafe ones are reported
    when the entry is loaded)."""
    clean = []
    for name in filter(None, names):
        try:
            clean.append(member_name(name))
        except ItemError:
            pass
    return clean


def _lookup(members: dict[str, Member], name: str, what: str) -> Member:
    member = members.get(member_name(name))
    if member is None:
        raise ItemError(ErrorCode.MISSING_FILE, f"the manifest names {what} {name!r}, "
                                                "which is not in the input")
    return member


def _manifest_loader(source, members, entry: ManifestEntry, limits: ImportLimits,
                     source_name: str) -> Callable[[], Candidate]:
    def load() -> Candidate:
        code_member = _lookup(members, entry.file, "the sketch")
        png = None
        if entry.png:
            png_member = _lookup(members, entry.png, "the PNG")
            png = png_check(source.read(png_member, limit=limits.max_png_bytes),
                            max_pixels=limits.max_image_pixels)
        code = code_decode(source.read(code_member, limit=limits.max_file_bytes))
        return Candidate(
            name=code_member.name, code=code, prompt=entry.prompt, seed=entry.seed,
            grades=entry.grades, png=png, brush=entry.brush,
            meta={"file": code_member.name, "source": source_name,
                  **({"png": entry.png} if entry.png else {})},
        )
    return load


def _member_loader(source, member: Member, limits: ImportLimits,
                   source_name: str) -> Callable[[], Candidate]:
    def load() -> Candidate:
        code = code_decode(source.read(member, limit=limits.max_file_bytes))
        return Candidate(name=member.name, code=code,
                         meta={"file": member.name, "source": source_name})
    return load


# --- JSONL files of {prompt, code} ---------------------------------------

def _jsonl_plan(path: Path, limits: ImportLimits, source_name: str) -> ImportPlan:
    cap = JSONL_LINE_FACTOR * limits.max_file_bytes + JSONL_LINE_SLACK
    total = sum(1 for _ in _jsonl_lines(path, cap))
    return ImportPlan(kind="jsonl", total=total,
                      items=_jsonl_items(path, cap, limits, source_name))


def _jsonl_lines(path: Path, cap: int) -> Iterator[tuple[int, bytes | None]]:
    """(line number, raw line) for each non-blank line; None for a line
    longer than `cap`, which is skipped without being held in memory."""
    try:
        f = path.open("rb")
    except OSError as exc:
        raise ImportInputError(f"cannot read {path}: {exc.strerror}") from exc
    with f:
        line_no = 0
        while raw := f.readline(cap + 1):
            line_no += 1
            if len(raw) > cap and not raw.endswith(b"\n"):
                while (rest := f.readline(1 << 20)) and not rest.endswith(b"\n"):
                    pass
                yield line_no, None
            elif raw.strip():
                yield line_no, raw.rstrip(b"\r\n")


def _jsonl_items(path: Path, cap: int, limits: ImportLimits,
                 source_name: str) -> Iterator[PlannedItem]:
    for line_no, raw in _jsonl_lines(path, cap):
        name = f"{path.name} line {line_no}"
        if raw is None:
            yield PlannedItem(name, _fail(ItemError(
                ErrorCode.FILE_TOO_LARGE, f"the line is longer than {cap} bytes")))
            continue
        yield PlannedItem(name, _jsonl_loader(name, line_no, raw, limits, source_name))


def _jsonl_loader(name: str, line_no: int, raw: bytes, limits: ImportLimits,
                  source_name: str) -> Callable[[], Candidate]:
    def load() -> Candidate:
        line = sketch_line_parse(line_no, raw)
        code = imported_code_check(line.code)
        size = len(code.encode("utf-8"))
        if size > limits.max_file_bytes:
            raise ItemError(ErrorCode.FILE_TOO_LARGE,
                            f"the code is {size} bytes, over the limit of {limits.max_file_bytes}")
        return Candidate(name=name, code=code, prompt=line.prompt,
                         seed=line.seed, grades=line.grades, brush=line.brush,
                         meta={"file": source_name, "line": line_no, "source": source_name})
    return load
