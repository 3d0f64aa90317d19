"""Import a pool snapshot export (pool.export, a folder or a zip) as the same
frozen snapshot: its name, note, rule, counts and members (tier, subject,
pinned, prompt, code, seed, in their order), pointing at renders of the
export's PNGs.

Three steps, so bad input costs nothing and a failure leaves no half snapshot:
1. read and check the whole export (snapshot.json, every manifest line, every
   member's code and PNG present, the format, the name free) before anything
   is stored;
2. import the members' sketches and PNGs with the one import code path,
   sketches.importing.import_path (each item its own transaction; code and
   seed already imported as a PNG are reused, not stored twice);
3. only when every member has its render, create the snapshot and its members
   in one transaction.
A member the render import refuses (a PNG that does not decode, say) stops at
step 2: the members imported before it stay as renders, which the next import
of the fixed export reuses, and no snapshot is made."""
from __future__ import annotations

import json
import logging
import re
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.db import IntegrityError, transaction

from sketches.importing import ErrorCode, ImportInputError, ImportReport, ItemError, import_path
from sketches.importing.conf import import_limits
from sketches.importing.inputs import MAX_MANIFEST_BYTES
from sketches.importing.records import manifest_entry_parse, text_check
from sketches.importing.report import RenderSource
from sketches.importing.sources import FolderSource, Member, ZipSource, member_name
from sketches.models import Render

from .export import EXPORT_FORMAT, EXPORT_FORMAT_VERSION, MANIFEST_NAME, SUMMARY_NAME
from .models import PoolMember, PoolSnapshot, Tier

logger = logging.getLogger(__name__)

# snapshot.json holds a name, a note, the rule and per-subject counts: a few
# kilobytes for hundreds of subjects. The cap only stops a hostile file.
MAX_SUMMARY_BYTES = 4 * 1024 * 1024
_FORMAT = re.compile(rf"^{re.escape(EXPORT_FORMAT)}/(\d+)$")
# How many of the render import's errors the message lists by name.
ERRORS_SHOWN = 5


class SnapshotImportError(Exception):
    """The export cannot be imported as a snapshot; the message says why and
    what was (not) stored."""


@dataclass(frozen=True)
class ExportedMember:
    line: int        # its manifest line, for messages
    file: str        # the code's member name, as the render import reports it
    png: str
    prompt: str
    seed: int
    tier: str
    subject: str
    pinned: bool


@dataclass(frozen=True)
class SnapshotExport:
    """What an export says about its snapshot, checked."""
    name: str
    note: str
    rule: dict
    counts: dict
    format_version: int
    members: list[ExportedMember]


@dataclass(frozen=True)
class SnapshotImportResult:
    snapshot: PoolSnapshot
    report: ImportReport   # the render import's report
    renders_new: int       # renders stored from the export's PNGs
    renders_reused: int    # renders an earlier import had stored (same code, seed)


def snapshot_import(*, path: str | Path, name: str | None = None) -> SnapshotImportResult:
    """Import the export at `path` as a new frozen snapshot, named as it was
    or `name`. Raises SnapshotImportError with no snapshot stored (and, but
    for a member the render import refuses, nothing else either)."""
    path = Path(path)
    export = snapshot_export_read(path)
    name = _name_free(export.name if name is None else name)
    try:
        report = import_path(path, source_name=path.name, queue_renders=False)
    except ImportInputError as exc:  # it was read a moment ago; it changed since
        raise SnapshotImportError(f"{path}: {exc}") from exc
    render_ids = _member_renders(export, report)
    snapshot = _snapshot_store(export, name, render_ids)
    sources = [r.render for r in report.items]
    result = SnapshotImportResult(
        snapshot=snapshot, report=report,
        renders_new=sources.count(RenderSource.PNG),
        renders_reused=sources.count(RenderSource.EXISTING))
    logger.info("imported snapshot %r from %s: %d members, %d new renders, %d reused",
                name, path, len(render_ids), result.renders_new, result.renders_reused)
    return result


# --- 1. reading and checking the export -----------------------------------

def snapshot_export_read(path: Path) -> SnapshotExport:
    """The export at `path`, checked whole; SnapshotImportError at the first
    problem. Reads through the render import's sources, so the same limits
    and path checks apply and a zip's top folder is handled the same way."""
    with _source(path) as source:
        listing = source.listing()
        if listing.rejected:
            name, error = listing.rejected[0]
            raise SnapshotImportError(f"{name}: {error.message}")
        members = listing.members
        summary = _summary_read(source, members)
        exported = list(_manifest_read(source, members))
    if len(exported) != summary["members"]:
        raise SnapshotImportError(
            f"{SUMMARY_NAME} says the snapshot has {summary['members']} members but "
            f"{MANIFEST_NAME} lists {len(exported)}: the export is incomplete")
    named = {m.file for m in exported}
    strays = sorted(n for n in members if n.lower().endswith(".js") and n not in named)
    if strays:
        # import_renders would import them as sketches of their own.
        raise SnapshotImportError(f"{strays[0]} is not in {MANIFEST_NAME} ({len(strays)} such "
                                  "files): not an export as export_pool_snapshot writes it")
    return SnapshotExport(name=summary["name"], note=summary["note"], rule=summary["rule"],
                          counts=summary["counts"], format_version=summary["format"],
                          members=exported)


@contextmanager
def _source(path: Path) -> Iterator[FolderSource | ZipSource]:
    if not path.exists():
        raise SnapshotImportError(f"{path} does not exist")
    if path.is_dir():
        with FolderSource(path, import_limits()) as source:
            yield source
    elif zipfile.is_zipfile(path):
        try:
            source = ZipSource(path, import_limits())
        except ImportInputError as exc:
            raise SnapshotImportError(str(exc)) from exc
        with source:
            yield source
    else:
        raise SnapshotImportError(f"{path} is neither a folder nor a zip: export_pool_snapshot "
                                  "writes one of those")


def _read(source, members: dict[str, Member], name: str, limit: int) -> bytes:
    member = members.get(name)
    if member is None:
        raise SnapshotImportError(f"no {name} in the export: not a snapshot export "
                                  "(export_pool_snapshot writes one)")
    try:
        return source.read(member, limit=limit)
    except ItemError as exc:
        raise SnapshotImportError(f"{name}: {exc.message}") from exc


def _json_object(data: bytes, where: str) -> dict:
    try:
        obj = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise SnapshotImportError(f"{where} is not valid JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise SnapshotImportError(f"{where}: expected a JSON object, got {type(obj).__name__}")
    return obj


def _summary_read(source, members: dict[str, Member]) -> dict:
    obj = _json_object(_read(source, members, SUMMARY_NAME, MAX_SUMMARY_BYTES), SUMMARY_NAME)
    version = _format_version(obj.get("format"))
    expected = {"name": str, "note": str, "rule": dict, "counts": dict, "members": int}
    for key, kind in expected.items():
        value = obj.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise SnapshotImportError(f"{SUMMARY_NAME}: '{key}' must be a "
                                      f"{_kind_name(kind)}, got {value!r:.60}")
    for key in ("name", "note", "rule", "counts"):
        _storable(obj[key], f"{SUMMARY_NAME}: '{key}'")
    return {**{key: obj[key] for key in expected}, "format": version}


def _storable(value: str | dict, where: str) -> None:
    """Text PostgreSQL can store: JSON may spell a NUL or half a surrogate
    pair, which would fail the snapshot's transaction instead of saying why."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    try:
        text_check(text, ErrorCode.BAD_LINE, f"{where} ")
    except ItemError as exc:
        raise SnapshotImportError(exc.message) from exc


def _format_version(value) -> int:
    if value is None:  # exports made before snapshot.json named its format
        return 1
    match = _FORMAT.match(value) if isinstance(value, str) else None
    if match is None:
        raise SnapshotImportError(f"{SUMMARY_NAME}: unknown format {value!r:.60} (expected "
                                  f"{EXPORT_FORMAT}/{EXPORT_FORMAT_VERSION})")
    version = int(match.group(1))
    if version > EXPORT_FORMAT_VERSION:
        raise SnapshotImportError(
            f"the export is format {version}, made by a newer paintrl; this one reads "
            f"format {EXPORT_FORMAT_VERSION} and older: import it with a newer paintrl")
    if version < 1:
        raise SnapshotImportError(f"{SUMMARY_NAME}: unknown format {value!r}")
    return version


def _kind_name(kind: type) -> str:
    return {str: "string", dict: "JSON object", int: "whole number", bool: "true or false"}[kind]


def _manifest_read(source, members: dict[str, Member]) -> Iterator[ExportedMember]:
    data = _read(source, members, MANIFEST_NAME, MAX_MANIFEST_BYTES)
    seen: dict[str, int] = {}
    for line_no, raw in enumerate(data.split(b"\n"), start=1):
        raw = raw.rstrip(b"\r")
        if not raw.strip():
            continue
        where = f"{MANIFEST_NAME} line {line_no}"
        try:
            member = _member_parse(line_no, raw)
            file, png = member_name(member.file), member_name(member.png)
        except ItemError as exc:
            raise SnapshotImportError(f"{where}: {exc.message}") from exc
        if file in seen:
            raise SnapshotImportError(f"{where} names {file}, as line {seen[file]} does")
        seen[file] = line_no
        for name, what in ((file, "code"), (png, "PNG")):
            if name not in members:
                raise SnapshotImportError(f"{where}: the member's {what} {name} is not in "
                                          "the export")
        yield ExportedMember(line_no, file, png, member.prompt, member.seed, member.tier,
                             member.subject, member.pinned)


def _member_parse(line_no: int, raw: bytes) -> ExportedMember:
    """A manifest line: file, prompt, png and seed read by the render import's
    own parser, so both agree on them; then the snapshot's fields."""
    entry = manifest_entry_parse(line_no, raw)
    obj = json.loads(raw)  # it parsed just now
    if not entry.png:
        raise SnapshotImportError(
            f"{MANIFEST_NAME} line {line_no}: {entry.file} has no PNG (it was missing from "
            "storage when the snapshot was exported), and a member's image is part of the "
            "snapshot: export it again from a database that has the PNG")
    for key, kind in (("tier", str), ("subject", str), ("pinned", bool)):
        if not isinstance(obj.get(key), kind):
            raise SnapshotImportError(f"{MANIFEST_NAME} line {line_no}: '{key}' must be a "
                                      f"{_kind_name(kind)}, got {obj.get(key)!r:.60}")
    if obj["tier"] not in Tier.values:
        raise SnapshotImportError(f"{MANIFEST_NAME} line {line_no}: unknown tier "
                                  f"{obj['tier']!r:.60} (expected {', '.join(Tier.values)})")
    _storable(obj["subject"], f"{MANIFEST_NAME} line {line_no}: 'subject'")
    limit = PoolMember._meta.get_field("subject").max_length
    if len(obj["subject"]) > limit:
        raise SnapshotImportError(f"{MANIFEST_NAME} line {line_no}: the subject is longer "
                                  f"than {limit} characters")
    return ExportedMember(line_no, entry.file, entry.png, entry.prompt, entry.seed,
                          obj["tier"], obj["subject"], obj["pinned"])


def _name_free(name: str) -> str:
    """`name` tidied as snapshot_freeze tidies it, if no snapshot has it."""
    name = " ".join(name.split())
    if not name:
        raise SnapshotImportError("a snapshot needs a name")
    limit = PoolSnapshot._meta.get_field("name").max_length
    if len(name) > limit:
        raise SnapshotImportError(f"a snapshot name has at most {limit} characters, "
                                  f"got {len(name)}")
    if PoolSnapshot.objects.filter(name=name).exists():
        raise _name_taken(name)
    return name


def _name_taken(name: str) -> SnapshotImportError:
    return SnapshotImportError(
        f"a snapshot named {name!r} exists already, and snapshots never change: nothing was "
        "imported; import it under another name (import_pool_snapshot --name NEW)")


# --- 2. the members' renders ---------------------------------------------

def _member_renders(export: SnapshotExport, report: ImportReport) -> list[int]:
    """Each member's render id, in member order, or SnapshotImportError when
    the render import refused any member."""
    if report.errors:
        listed = "; ".join(f"{r.name}: {r.code}: {r.message}"
                           for r in report.errors[:ERRORS_SHOWN])
        more = len(report.errors) - ERRORS_SHOWN
        kept = sum(1 for r in report.items if r.render_id is not None)
        raise SnapshotImportError(
            f"{len(report.errors)} of {len(export.members)} members could not be imported, so "
            f"no snapshot was made: {listed}{f'; and {more} more' if more > 0 else ''}. "
            f"The {kept} renders that were imported are kept; importing the fixed export "
            "reuses them")
    by_name = {r.name: r.render_id for r in report.items}
    ids = [by_name.get(m.file) for m in export.members]
    if None in ids or len(set(ids)) != len(ids):
        # import_path reports each manifest item under its code's name.
        raise SnapshotImportError(f"the render import did not report one render per member "
                                  f"({report.summary()}); no snapshot was made")
    return ids


# --- 3. the snapshot, in one transaction ---------------------------------

def _snapshot_store(export: SnapshotExport, name: str, render_ids: list[int]) -> PoolSnapshot:
    try:
        with transaction.atomic():
            renders = Render.objects.select_related("sketch").in_bulk(render_ids)
            gone = [m.file for m, pk in zip(export.members, render_ids, strict=True)
                    if pk not in renders or not renders[pk].png]
            if gone:
                raise SnapshotImportError(f"the renders of {', '.join(gone[:ERRORS_SHOWN])} "
                                          "were deleted during the import; no snapshot was made")
            snapshot = PoolSnapshot.objects.create(name=name, note=export.note,
                                                   rule=export.rule, counts=export.counts)
            # bulk_create keeps the list's order in the primary keys, and
            # members are ordered by pk: the export's member order.
            PoolMember.objects.bulk_create([
                PoolMember(snapshot=snapshot, render=renders[pk], tier=m.tier,
                           subject=m.subject, prompt=m.prompt, code=renders[pk].sketch.code,
                           seed=m.seed, png=renders[pk].png.name, pinned=m.pinned)
                for m, pk in zip(export.members, render_ids, strict=True)])
    except IntegrityError as exc:
        if PoolSnapshot.objects.filter(name=name).exists():  # imported at the same moment
            raise _name_taken(name) from exc
        raise
    return snapshot
