"""Import, first half: an export read through the render importer's sources
and every line checked into unsaved rows, before anything is written."""
from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from django.core.exceptions import ValidationError
from django.db import models

from sketches.importing.errors import ImportInputError, ItemError
from sketches.importing.images import png_check
from sketches.importing.sources import FolderSource, Listing, ZipSource
from sketches.models import Render, Sketch
from training.models import Rollout, TrainingRun, TrainingStep

from .common import (
    FORMAT,
    RENDER_FIELDS,
    ROLLOUT_FIELDS,
    ROLLOUTS_FILE,
    RUN_FILE,
    SKETCH_FIELDS,
    STEP_FIELDS,
    STEPS_FILE,
    TransferError,
)


@dataclass
class ParsedRollout:
    rollout: Rollout
    sketch: Sketch | None
    render: Render | None
    png: str | None
    png_sha256: str | None
    where: str


def source(path: Path, limits) -> FolderSource | ZipSource:
    if path.is_dir():
        return FolderSource(path, limits)
    if not path.exists():
        raise TransferError(f"{path} does not exist")
    try:
        return ZipSource(path, limits)
    except ImportInputError as exc:
        raise TransferError(f"{exc} (give the export's folder or its .zip)") from exc


def _read(source, listing: Listing, name: str, limit: int) -> bytes:
    member = listing.members.get(name)
    if member is None:
        raise TransferError(f"{name} is missing: not a run export (expected {RUN_FILE}, "
                            f"{STEPS_FILE}, {ROLLOUTS_FILE} and png/)")
    try:
        return source.read(member, limit=limit)
    except ItemError as exc:
        raise TransferError(f"{name}: {exc.message}") from exc


def read_json(source, listing: Listing, name: str, limit: int) -> dict:
    try:
        obj = json.loads(_read(source, listing, name, limit).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise TransferError(f"{name} is not valid JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise TransferError(f"{name} holds a {type(obj).__name__}, not an object")
    return obj


def read_jsonl(source, listing: Listing, name: str, limits) -> Iterator[tuple[dict, str]]:
    data = _read(source, listing, name, limits.max_total_bytes)
    for number, raw in enumerate(data.splitlines(), start=1):
        if not raw.strip():
            continue
        where = f"{name} line {number}"
        try:
            obj = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            raise TransferError(f"{where} is not valid JSON: {exc}") from exc
        if not isinstance(obj, dict):
            raise TransferError(f"{where} holds a {type(obj).__name__}, not an object")
        yield obj, where


def header(obj: dict) -> dict:
    version = obj.get("format")
    if version != FORMAT:
        raise TransferError(f"{RUN_FILE}: unknown format {version!r}; this paintrl reads "
                            f"{FORMAT!r}")
    for key in ("run", "references"):
        if not isinstance(obj.get(key), dict):
            raise TransferError(f"{RUN_FILE}: {key!r} is missing or not an object")
    status = obj["run"].get("status")
    if status == TrainingRun.Status.DRAFT:
        raise TransferError(f"{RUN_FILE}: the run is a draft, which has no record to import")
    return obj


def build(model: type[models.Model], data: dict, names: tuple[str, ...], where: str,
           exclude: tuple[str, ...] = ()):
    """An unsaved row from a line's values, each cleaned by its model field
    (choices, types, ranges, dates); TransferError naming the line otherwise."""
    unknown = sorted(set(data) - set(names))
    if unknown:
        raise TransferError(f"{where}: unknown fields {unknown}")
    row = model(**data)
    # Not cleaned: foreign keys (set on import); JSON values (parsed from JSON
    # already, and {} would count as "blank"); empty texts the worker stores
    # too (an empty completion's code), as long as they are strings.
    skipped = [f.name for f in model._meta.concrete_fields
               if f.is_relation or isinstance(f, models.JSONField)
               or (data.get(f.name) == "" and not f.choices)]
    try:
        row.clean_fields(exclude=[*skipped, *exclude])
    except ValidationError as exc:
        problems = "; ".join(f"{k}: {' '.join(v)}" for k, v in exc.message_dict.items())
        raise TransferError(f"{where}: {problems}") from exc
    return row


def step_parse(obj: dict, where: str) -> TrainingStep:
    return build(TrainingStep, obj, STEP_FIELDS, where)


def rollout_parse(obj: dict, where: str) -> ParsedRollout:
    obj = dict(obj)
    sketch_data, render_data = obj.pop("sketch", None), obj.pop("render", None)
    rollout = build(Rollout, obj, ROLLOUT_FIELDS, where)
    sketch = render = png = digest = None
    if sketch_data is not None:
        sketch_data = _object(sketch_data, f"{where}: sketch")
        sketch_data.pop("id", None)
        sketch = build(Sketch, sketch_data, SKETCH_FIELDS, f"{where}: sketch")
    if render_data is not None:
        render_data = _object(render_data, f"{where}: render")
        if sketch is None:
            raise TransferError(f"{where}: a render without its sketch")
        render_data.pop("id", None)
        png, digest = render_data.pop("png", None), render_data.pop("png_sha256", None)
        if png is not None and not (isinstance(png, str) and isinstance(digest, str)):
            raise TransferError(f"{where}: render png and png_sha256 must be strings")
        render = build(Render, render_data, RENDER_FIELDS, f"{where}: render")
    return ParsedRollout(rollout, sketch, render, png, digest, where)


def _object(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise TransferError(f"{where} is a {type(value).__name__}, not an object")
    return dict(value)


def png_read_checked(source, listing: Listing, parsed: ParsedRollout, limits) -> bytes:
    data = _read(source, listing, parsed.png, limits.max_png_bytes)
    if hashlib.sha256(data).hexdigest() != parsed.png_sha256:
        raise TransferError(f"{parsed.png}: its bytes do not match the png_sha256 of "
                            f"{parsed.where}")
    try:
        png_check(data, max_pixels=limits.max_image_pixels)
    except ItemError as exc:
        raise TransferError(f"{parsed.png}: {exc.message}") from exc
    return data
