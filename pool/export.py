"""Export a frozen snapshot as a folder or a zip that `manage.py
import_pool_snapshot` reads back as the same snapshot (pool.snapshot_import),
and `manage.py import_renders` as its members' sketches and renders:

    <snapshot-name>/
      manifest.jsonl     one line per member, in the importer's format
      snapshot.json      format, name, note, time, rule, counts, member count
      code/0001-hibiscus-r12.js
      png/0001-hibiscus-r12.png

A manifest line: {"file": "code/....js", "prompt": "...", "png": "png/....png",
"seed": 3, "tier": "love", "subject": "hibiscus", "pinned": false,
"render_id": 12}. The lines are in member order. import_renders reads file,
prompt, png and seed and ignores the rest; import_pool_snapshot also reads
tier, subject and pinned. A member whose PNG is gone from storage is
exported without "png" (import_renders then queues a render of its code at
its seed; import_pool_snapshot refuses the export, as the member's image is
part of the snapshot)."""
from __future__ import annotations

import json
import logging
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from django.utils.text import slugify

from files.stored import read_bytes

from .models import PoolMember, PoolSnapshot

logger = logging.getLogger(__name__)

MANIFEST_NAME = "manifest.jsonl"
SUMMARY_NAME = "snapshot.json"
# snapshot.json's "format". Raise the number when an importer of the old
# format would misread a new export; exports made before the field existed
# are format 1.
EXPORT_FORMAT = "paintrl-pool-snapshot"
EXPORT_FORMAT_VERSION = 1


@dataclass(frozen=True)
class ExportSummary:
    members: int
    pngs: int
    missing_pngs: list[int]  # member ids whose PNG was not found


@dataclass(frozen=True)
class _ExportedMember:
    line: dict
    code_name: str
    code: str
    png_name: str | None
    png: bytes | None


def snapshot_folder_name(snapshot: PoolSnapshot) -> str:
    return slugify(snapshot.name) or f"snapshot-{snapshot.pk}"


def snapshot_export_folder(snapshot: PoolSnapshot, folder: str | Path) -> ExportSummary:
    """Write the export into `folder`, which must not exist or be empty."""
    folder = Path(folder)
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise FileExistsError(f"{folder} exists and is not an empty folder")
    (folder / "code").mkdir(parents=True, exist_ok=True)
    (folder / "png").mkdir(exist_ok=True)

    def write(name: str, data: bytes) -> None:
        (folder / name).write_bytes(data)

    return _export(snapshot, write)


def snapshot_export_zip(snapshot: PoolSnapshot, file: str | Path | BinaryIO) -> ExportSummary:
    """Write the export as a zip (everything under one folder named after the
    snapshot) to a path or a binary file object."""
    top = snapshot_folder_name(snapshot)
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        def write(name: str, data: bytes) -> None:
            # PNGs are compressed already: storing them saves time, not space.
            compress = zipfile.ZIP_STORED if name.endswith(".png") else zipfile.ZIP_DEFLATED
            archive.writestr(f"{top}/{name}", data, compress_type=compress)

        return _export(snapshot, write)


def _export(snapshot: PoolSnapshot, write) -> ExportSummary:
    lines, pngs, missing = [], 0, []
    for exported in _members(snapshot):
        write(exported.code_name, exported.code.encode("utf-8"))
        if exported.png is not None:
            write(exported.png_name, exported.png)
            pngs += 1
        else:
            missing.append(exported.line["member_id"])
        lines.append(json.dumps(exported.line, ensure_ascii=False))
    write(MANIFEST_NAME, ("\n".join(lines) + "\n").encode("utf-8"))
    write(SUMMARY_NAME, json.dumps(_summary(snapshot, len(lines)), indent=2,
                                   ensure_ascii=False).encode("utf-8"))
    if missing:
        logger.warning("snapshot %s: %d member PNGs were missing from storage",
                       snapshot.name, len(missing))
    return ExportSummary(members=len(lines), pngs=pngs, missing_pngs=missing)


def _members(snapshot: PoolSnapshot) -> Iterator[_ExportedMember]:
    for index, member in enumerate(snapshot.members.order_by("pk"), start=1):
        stem = f"{index:04d}-{slugify(member.subject) or 'other'}-r{member.render_id or 'gone'}"
        png = _png_read(member)
        line = {"file": f"code/{stem}.js", "prompt": member.prompt, "seed": member.seed,
                "tier": member.tier, "subject": member.subject, "pinned": member.pinned,
                "render_id": member.render_id, "member_id": member.pk}
        png_name = f"png/{stem}.png"
        if png is not None:
            line["png"] = png_name
        yield _ExportedMember(line, line["file"], member.code, png_name, png)


def _png_read(member: PoolMember) -> bytes | None:
    if not member.png:
        return None
    try:
        return read_bytes(member.png)
    except (FileNotFoundError, OSError) as exc:
        logger.warning("member %s: PNG %s unreadable: %s", member.pk, member.png, exc)
        return None


def _summary(snapshot: PoolSnapshot, members: int) -> dict:
    return {
        "format": f"{EXPORT_FORMAT}/{EXPORT_FORMAT_VERSION}",
        "name": snapshot.name,
        "note": snapshot.note,
        "created": snapshot.created.isoformat(),
        "created_by": snapshot.created_by.get_username() if snapshot.created_by else None,
        "rule": snapshot.rule,
        "counts": snapshot.counts,
        "members": members,
        "manifest": MANIFEST_NAME,
    }
