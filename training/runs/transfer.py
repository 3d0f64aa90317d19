"""A training run moved between databases: `run_export` writes a finished
run's record (settings, what it was launched with, steps, rollouts with their
sketches, renders and PNGs) as a folder or a zip; `run_import` reads one back
as a new, finished run whose rows look to the run page like the worker's.

    run.json         format, the run's fields (launched_config holds the rubric
                     signals, system prompt text and prompts it used), the rows
                     its foreign keys named, counts, what was not exported
    steps.jsonl      one TrainingStep per line
    rollouts.jsonl   one Rollout per line, with its "sketch" and "render" (the
                     render's "png" names a file under png/, "png_sha256" its hash)
    png/0002-01-03.png   step 2, group 1, generation 3

Checkpoints and the final policy are not exported (hundreds of megabytes for a
real model): run.json records where they were. An imported run therefore
cannot be resumed from its checkpoint.

An import is one transaction: the input is parsed and checked first, then
every row is written; a failure (a bad PNG, a row the database refuses) rolls
back every row and deletes the PNG files already written, so nothing is left.
Inputs are read through the render importer's sources (sketches.importing):
the same path checks and size limits as an upload, nothing extracted to disk.
"""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, IntegrityError, models, transaction
from django.utils import timezone
from django.utils.text import slugify

from pool.models import PoolSnapshot
from sketches.importing.conf import import_limits
from sketches.importing.errors import ImportInputError, ItemError
from sketches.importing.images import png_check
from sketches.importing.sources import FolderSource, Listing, ZipSource
from sketches.models import Render, Sketch

from ..models import Judge, PromptSet, Rollout, Rubric, SystemPrompt, TrainingRun, TrainingStep
from . import conf

logger = logging.getLogger(__name__)

FORMAT = "paintrl-run/1"
RUN_FILE, STEPS_FILE, ROLLOUTS_FILE = "run.json", "steps.jsonl", "rollouts.jsonl"
NOT_EXPORTED = ("Checkpoints and the final policy are not exported (they are large); their "
                "paths on the exporting machine are recorded in run.json only, so the "
                "imported run cannot be resumed from its checkpoint.")
FINISHED = (TrainingRun.Status.DONE, TrainingRun.Status.FAILED, TrainingRun.Status.CANCELLED)
IMPORTED = " (imported)"


class TransferError(ValueError):
    """The run cannot be exported, or the input imported; the message says why."""


def _data_fields(model: type[models.Model], exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A model's own values (no id, no foreign keys): what a line carries."""
    return tuple(f.name for f in model._meta.concrete_fields
                 if not f.is_relation and not f.primary_key and f.name not in exclude)


# cancel_requested is a request to a worker: an imported run has none.
RUN_FIELDS = _data_fields(TrainingRun, exclude=("cancel_requested",))
STEP_FIELDS = _data_fields(TrainingStep)
ROLLOUT_FIELDS = _data_fields(Rollout)
SKETCH_FIELDS = _data_fields(Sketch)
RENDER_FIELDS = _data_fields(Render, exclude=("png",))


def _jsonable(value):
    return value.isoformat() if isinstance(value, datetime | date) else value


def _row(obj: models.Model, names: tuple[str, ...]) -> dict:
    return {name: _jsonable(getattr(obj, name)) for name in names}


# --- export ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExportSummary:
    steps: int
    rollouts: int
    pngs: int
    missing_pngs: list[str]  # PNG names whose file was gone from storage
    not_exported: dict


def run_export(*, run: TrainingRun, out: str | Path) -> ExportSummary:
    """Write `run` to `out`: a new (or empty) folder, or a new file ending in
    .zip. Written beside `out` first and moved into place when complete, so a
    failure leaves no partial export."""
    if run.status == TrainingRun.Status.DRAFT:
        raise TransferError(f"{run} is a draft that was never launched: there is nothing "
                            "to export (clone it instead)")
    out = Path(out)
    if out.suffix.lower() == ".zip":
        if out.exists():
            raise TransferError(f"{out} exists already")
        return _export_zip(run, out)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise TransferError(f"{out} exists and is not an empty folder")
    return _export_folder(run, out)


def _export_folder(run: TrainingRun, out: Path) -> ExportSummary:
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=out.parent, prefix=f".{out.name}."))
    try:
        (staging / "png").mkdir()
        summary = _export(run, lambda name, data: (staging / name).write_bytes(data))
        if out.exists():
            out.rmdir()  # checked empty above
        staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return summary


def _export_zip(run: TrainingRun, out: Path) -> ExportSummary:
    out.parent.mkdir(parents=True, exist_ok=True)
    handle, staging = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    os.close(handle)
    top = slugify(run.name) or f"run-{run.pk}"
    try:
        with zipfile.ZipFile(staging, "w", compression=zipfile.ZIP_DEFLATED) as archive:
            def write(name: str, data: bytes) -> None:
                # PNGs are compressed already: storing them saves time, not space.
                kind = zipfile.ZIP_STORED if name.endswith(".png") else zipfile.ZIP_DEFLATED
                archive.writestr(f"{top}/{name}", data, compress_type=kind)

            summary = _export(run, write)
        os.replace(staging, out)
    except BaseException:
        Path(staging).unlink(missing_ok=True)
        raise
    return summary


def _export(run: TrainingRun, write: Callable[[str, bytes], None]) -> ExportSummary:
    steps = [json.dumps(_row(s, STEP_FIELDS), ensure_ascii=False)
             for s in run.steps.order_by("step")]
    lines, pngs, missing = [], 0, []
    for line, png_name, png in _rollout_lines(run):
        if png is not None:
            write(png_name, png)
            pngs += 1
        elif png_name:
            missing.append(png_name)
        lines.append(json.dumps(line, ensure_ascii=False))
    write(STEPS_FILE, _jsonl(steps))
    write(ROLLOUTS_FILE, _jsonl(lines))
    left_out = not_exported(run)
    header = {
        "format": FORMAT,
        "exported": timezone.now().isoformat(),
        "exported_run_id": run.pk,
        "run": _row(run, RUN_FIELDS),
        "references": _references(run),
        "counts": {"steps": len(steps), "rollouts": len(lines), "pngs": pngs},
        "not_exported": left_out,
    }
    write(RUN_FILE, json.dumps(header, indent=2, ensure_ascii=False).encode("utf-8"))
    if missing:
        logger.warning("run %s: %d rollout PNGs were missing from storage", run.pk, len(missing))
    return ExportSummary(steps=len(steps), rollouts=len(lines), pngs=pngs,
                         missing_pngs=missing, not_exported=left_out)


def _jsonl(lines: list[str]) -> bytes:
    return "".join(f"{line}\n" for line in lines).encode("utf-8")


def _rollout_lines(run: TrainingRun) -> Iterator[tuple[dict, str | None, bytes | None]]:
    """(line, PNG name, PNG bytes or None) per rollout; a render whose file is
    gone keeps its status and loses its "png"."""
    rollouts = run.rollouts.order_by("step", "group", "index").select_related("sketch", "render")
    for rollout in rollouts.iterator(chunk_size=200):
        line = _row(rollout, ROLLOUT_FIELDS)
        sketch, render = rollout.sketch, rollout.render
        line["sketch"] = {"id": sketch.pk, **_row(sketch, SKETCH_FIELDS)} if sketch else None
        png_name, png = None, None
        if render is not None:
            line["render"] = {"id": render.pk, **_row(render, RENDER_FIELDS), "png": None,
                              "png_sha256": None}
            if render.png:
                png_name = f"png/{rollout.step:04d}-{rollout.group:02d}-{rollout.index:02d}.png"
                png = _png_read(render)
                if png is not None:
                    line["render"].update(png=png_name,
                                          png_sha256=hashlib.sha256(png).hexdigest())
        else:
            line["render"] = None
        yield line, png_name, png


def _png_read(render: Render) -> bytes | None:
    try:
        with default_storage.open(render.png.name, "rb") as file:
            return file.read()
    except OSError as exc:
        logger.warning("render %s: PNG %s unreadable: %s", render.pk, render.png.name, exc)
        return None


def _references(run: TrainingRun) -> dict:
    """The rows the run's foreign keys name, as found by an import."""
    def judge(row: Judge) -> dict:
        # The endpoint (base_url) stays behind: an import must not point this
        # machine's workers at another network's service.
        return {"name": row.name, "backend": row.backend, "model": row.model}

    return {
        "rubric": {"name": run.rubric.name, "version": run.rubric.version,
                   "signals": run.rubric.signals},
        "system_prompt": {"name": run.system_prompt.name, "version": run.system_prompt.version,
                          "text": run.system_prompt.text},
        "prompt_set": {"name": run.prompt_set.name, "prompts": run.prompt_set.prompts},
        "judge": judge(run.judge),
        "scorer": judge(run.scorer),
        "snapshot": {"name": run.snapshot.name} if run.snapshot else None,
        "parent": {"id": run.parent_id, "name": run.parent.name} if run.parent else None,
        "created_by": run.created_by.get_username() if run.created_by else None,
    }


def not_exported(run: TrainingRun) -> dict:
    """Where the run's checkpoints and final policy were (they stay there)."""
    folder = conf.run_dir(run.pk)
    found = [p for p in folder.glob("checkpoint-*") if p.is_dir()]
    checkpoints = [str(p) for p in sorted(found, key=_checkpoint_number)]
    return {"note": NOT_EXPORTED, "run_dir": str(folder), "checkpoints": checkpoints,
            "checkpoint_step": run.checkpoint_step,
            "final_policy": (run.progress or {}).get("final_policy")}


def _checkpoint_number(path: Path) -> int:
    tail = path.name.removeprefix("checkpoint-")
    return int(tail) if tail.isdigit() else -1


# --- import: reading and checking ------------------------------------------------------------

@dataclass
class _ParsedRollout:
    rollout: Rollout
    sketch: Sketch | None
    render: Render | None
    png: str | None
    png_sha256: str | None
    where: str


@dataclass
class ImportSummary:
    run: TrainingRun
    steps: int
    rollouts: int
    pngs: int
    notices: list[str] = field(default_factory=list)


def run_import(*, path: str | Path, name: str | None = None) -> ImportSummary:
    """A new finished run from an export (folder or zip); TransferError on
    bad input, with nothing written."""
    path = Path(path)
    limits = import_limits()
    with _source(path, limits) as source:
        listing = source.listing()
        if listing.rejected:
            raw, error = listing.rejected[0]
            raise TransferError(f"{path}: refused member {raw!r} ({error.message})")
        header = _header(_read_json(source, listing, RUN_FILE, limits.max_total_bytes))
        steps = [_step_parse(obj, where)
                 for obj, where in _read_jsonl(source, listing, STEPS_FILE, limits)]
        rollouts = [_rollout_parse(obj, where)
                    for obj, where in _read_jsonl(source, listing, ROLLOUTS_FILE, limits)]
        for parsed in rollouts:
            if parsed.png is not None and parsed.png not in listing.members:
                raise TransferError(f"{parsed.where}: its PNG {parsed.png!r} is not in {path}")
        run_name = name if name is not None else header["run"].get("name", "")
        if not isinstance(run_name, str) or not run_name.strip():
            raise TransferError("the run needs a name: pass --name")
        duplicate = TrainingRun.objects.filter(name=run_name).first()
        if duplicate is not None:
            raise TransferError(f"a run named {run_name!r} exists already (id {duplicate.pk}): "
                                "import it under another name with --name")

        def png_bytes(parsed: _ParsedRollout) -> bytes:
            return _png_read_checked(source, listing, parsed, limits)

        return _write(header, run_name, steps, rollouts, png_bytes)


def _source(path: Path, limits) -> FolderSource | ZipSource:
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


def _read_json(source, listing: Listing, name: str, limit: int) -> dict:
    try:
        obj = json.loads(_read(source, listing, name, limit).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise TransferError(f"{name} is not valid JSON: {exc}") from exc
    if not isinstance(obj, dict):
        raise TransferError(f"{name} holds a {type(obj).__name__}, not an object")
    return obj


def _read_jsonl(source, listing: Listing, name: str, limits) -> Iterator[tuple[dict, str]]:
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


def _header(obj: dict) -> dict:
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


def _build(model: type[models.Model], data: dict, names: tuple[str, ...], where: str,
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


def _step_parse(obj: dict, where: str) -> TrainingStep:
    return _build(TrainingStep, obj, STEP_FIELDS, where)


def _rollout_parse(obj: dict, where: str) -> _ParsedRollout:
    obj = dict(obj)
    sketch_data, render_data = obj.pop("sketch", None), obj.pop("render", None)
    rollout = _build(Rollout, obj, ROLLOUT_FIELDS, where)
    sketch = render = png = digest = None
    if sketch_data is not None:
        sketch_data = _object(sketch_data, f"{where}: sketch")
        sketch_data.pop("id", None)
        sketch = _build(Sketch, sketch_data, SKETCH_FIELDS, f"{where}: sketch")
    if render_data is not None:
        render_data = _object(render_data, f"{where}: render")
        if sketch is None:
            raise TransferError(f"{where}: a render without its sketch")
        render_data.pop("id", None)
        png, digest = render_data.pop("png", None), render_data.pop("png_sha256", None)
        if png is not None and not (isinstance(png, str) and isinstance(digest, str)):
            raise TransferError(f"{where}: render png and png_sha256 must be strings")
        render = _build(Render, render_data, RENDER_FIELDS, f"{where}: render")
    return _ParsedRollout(rollout, sketch, render, png, digest, where)


def _object(value, where: str) -> dict:
    if not isinstance(value, dict):
        raise TransferError(f"{where} is a {type(value).__name__}, not an object")
    return dict(value)


def _png_read_checked(source, listing: Listing, parsed: _ParsedRollout, limits) -> bytes:
    data = _read(source, listing, parsed.png, limits.max_png_bytes)
    if hashlib.sha256(data).hexdigest() != parsed.png_sha256:
        raise TransferError(f"{parsed.png}: its bytes do not match the png_sha256 of "
                            f"{parsed.where}")
    try:
        png_check(data, max_pixels=limits.max_image_pixels)
    except ItemError as exc:
        raise TransferError(f"{parsed.png}: {exc.message}") from exc
    return data


# --- import: writing -------------------------------------------------------------------------

def _write(header: dict, name: str, steps: list[TrainingStep], rollouts: list[_ParsedRollout],
           png_bytes: Callable[[_ParsedRollout], bytes]) -> ImportSummary:
    written: list[str] = []  # PNG files, deleted again if the transaction fails
    try:
        with transaction.atomic():
            notices: list[str] = []
            run = _run_create(header, name, notices)
            for step in steps:
                step.run = run
            _bulk_create_keeping(TrainingStep, steps)
            pngs = _rollouts_create(run, header.get("exported_run_id"), rollouts, png_bytes,
                                    written)
            return ImportSummary(run=run, steps=len(steps), rollouts=len(rollouts), pngs=pngs,
                                 notices=notices)
    except IntegrityError as exc:
        _files_delete(written)
        raise TransferError(f"the database refused the export's rows ({exc})") from exc
    except DatabaseError as exc:
        _files_delete(written)
        raise TransferError(f"the database failed ({type(exc).__name__}: {exc})") from exc
    except BaseException:
        _files_delete(written)
        raise


def _files_delete(names: list[str]) -> None:
    for name in names:
        try:
            default_storage.delete(name)
        except OSError:
            logger.warning("could not delete %s after a failed run import", name)


def _bulk_create_keeping(model: type[models.Model], rows: list) -> None:
    """bulk_create, then the exported `created` times put back (auto_now_add
    overwrites them on insert; bulk_update does not)."""
    created = [row.created for row in rows]
    model.objects.bulk_create(rows)
    _created_restore(model, rows, created)


def _created_restore(model: type[models.Model], rows: list, created: list) -> None:
    kept = []
    for row, moment in zip(rows, created, strict=True):
        if moment is not None:
            row.created = moment
            kept.append(row)
    model.objects.bulk_update(kept, ["created"], batch_size=500)


def _run_create(header: dict, name: str, notices: list[str]) -> TrainingRun:
    data = dict(header["run"])
    data["name"] = name
    status = data.get("status")
    if status not in FINISHED:
        # A record, never a job: a run exported while live is not queued here.
        notices.append(f"The run was {status} when exported; it is imported as cancelled.")
        data["status"] = TrainingRun.Status.CANCELLED
    run = _build(TrainingRun, data, RUN_FIELDS, RUN_FILE)
    refs, launched = header["references"], run.launched_config or {}
    run.rubric = _rubric(refs.get("rubric"), launched, notices)
    run.system_prompt = _system_prompt(refs.get("system_prompt"), launched, notices)
    run.prompt_set = _prompt_set(refs.get("prompt_set"), launched, notices)
    run.judge = _judge(refs.get("judge"), "judge", notices)
    run.scorer = _judge(refs.get("scorer"), "scorer", notices)
    run.snapshot = _snapshot(refs.get("snapshot"), notices)
    left_out = header.get("not_exported") or {}
    progress = dict(run.progress or {})
    progress["imported"] = {"exported_run_id": header.get("exported_run_id"),
                            "exported": header.get("exported"),
                            "imported": timezone.now().isoformat(),
                            "not_exported": left_out,
                            "parent": refs.get("parent"), "created_by": refs.get("created_by")}
    notices.append(NOT_EXPORTED)
    # The run page lists progress notices: a reader sees where the run came from.
    progress["notices"] = [*(progress.get("notices") or []),
                           f"Imported from an export of run {header.get('exported_run_id')} "
                           f"made {header.get('exported')}.", *notices]
    run.progress = progress
    stamps = {f: getattr(run, f) for f in ("created", "started", "finished", "heartbeat")}
    if stamps["created"] is None:
        del stamps["created"]
    run.save()
    TrainingRun.objects.filter(pk=run.pk).update(**stamps)  # created is auto_now_add
    run.refresh_from_db()
    return run


def _rollouts_create(run: TrainingRun, old_run_id, parsed: list[_ParsedRollout],
                     png_bytes: Callable[[_ParsedRollout], bytes], written: list[str]) -> int:
    """Sketch (origin as exported: rollout), Render with its PNG, and Rollout
    rows, as training.runs.rewards stores them."""
    sketches, renders, rows, pngs, sketch_times, render_times = [], [], [], 0, [], []
    for item in parsed:
        sketch, render, rollout = item.sketch, item.render, item.rollout
        if sketch is not None:
            exported_hash, created = sketch.code_sha256, sketch.created
            meta = dict(sketch.meta or {})
            if old_run_id is not None and meta.get("run") == old_run_id:
                meta["run"] = run.pk  # the run that made it, in this database
            sketch.meta = meta
            sketch.save()
            if exported_hash and sketch.code_sha256 != exported_hash:
                raise TransferError(f"{item.where}: the sketch's code does not match its "
                                    "code_sha256")
            sketches.append(sketch)
            sketch_times.append(created)
        if render is not None:
            created = render.created
            render.sketch = sketch
            render.save()
            if item.png is not None:
                render.png.save("render.png", ContentFile(png_bytes(item)), save=False)
                written.append(render.png.name)
                render.save(update_fields=["png"])
                pngs += 1
            renders.append(render)
            render_times.append(created)
        rollout.run, rollout.sketch, rollout.render = run, sketch, render
        rows.append(rollout)
    _bulk_create_keeping(Rollout, rows)
    _created_restore(Sketch, sketches, sketch_times)
    _created_restore(Render, renders, render_times)
    return pngs


# --- import: the run's foreign keys ----------------------------------------------------------

def _imported_name(name: str, max_length: int) -> str:
    return f"{name[:max_length - len(IMPORTED)]}{IMPORTED}"


def _ref(value, what: str) -> dict:
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise TransferError(f"{RUN_FILE}: references.{what} is missing or has no name")
    version = value.get("version")
    if version is not None and (not isinstance(version, int) or isinstance(version, bool)):
        raise TransferError(f"{RUN_FILE}: references.{what}.version is not a number")
    return value


def _same(rows, attribute: str, content):
    """The first row whose `attribute` equals `content`, compared in Python:
    JSON key order differs between databases (PostgreSQL's jsonb sorts keys)."""
    return next((row for row in rows if getattr(row, attribute) == content), None)


def _launched(launched: dict, key: str, content: str, fallback):
    copy = launched.get(key)
    return copy.get(content, fallback) if isinstance(copy, dict) else fallback


def _rubric(ref, launched: dict, notices: list[str]) -> Rubric:
    """The same name and version with the signals the run was launched with;
    else an earlier import's copy; else a new "<name> (imported)" rubric."""
    ref = _ref(ref, "rubric")
    signals = _launched(launched, "rubric", "signals", ref.get("signals"))
    found = _same(Rubric.objects.filter(name=ref["name"], version=ref.get("version")),
                  "signals", signals)
    if found is not None:
        return found
    copy_name = _imported_name(ref["name"], 80)
    found = _same(Rubric.objects.filter(name=copy_name).order_by("-version"), "signals", signals)
    if found is None:
        found = Rubric.objects.create(
            name=copy_name, signals=signals,
            description=f"The signals of rubric {ref['name']} (rev. {ref.get('version')}) as "
                        "an imported training run was launched with them.")
    notices.append(f"Rubric {ref['name']} (rev. {ref.get('version')}) with the run's signals "
                   f"is not in this database: the run uses {found}.")
    return found


def _system_prompt(ref, launched: dict, notices: list[str]) -> SystemPrompt:
    ref = _ref(ref, "system_prompt")
    text = _launched(launched, "system_prompt", "text", ref.get("text"))
    if not isinstance(text, str):
        raise TransferError(f"{RUN_FILE}: the system prompt's text is missing")
    found = _same(SystemPrompt.objects.filter(name=ref["name"], version=ref.get("version")),
                  "text", text)
    if found is not None:
        return found
    copy_name = _imported_name(ref["name"], 80)
    found = _same(SystemPrompt.objects.filter(name=copy_name).order_by("-version"), "text",
                  text)
    if found is None:
        found = SystemPrompt.objects.create(name=copy_name, text=text)
    notices.append(f"System prompt {ref['name']} (rev. {ref.get('version')}) with the run's "
                   f"text is not in this database: the run uses {found}.")
    return found


def _prompt_set(ref, launched: dict, notices: list[str]) -> PromptSet:
    ref = _ref(ref, "prompt_set")
    prompts = launched.get("prompts", ref.get("prompts"))
    if not isinstance(prompts, list):
        raise TransferError(f"{RUN_FILE}: the run's prompts are missing")
    found = _same(PromptSet.objects.filter(name=ref["name"]), "prompts", prompts)
    if found is not None:
        return found
    base = _imported_name(ref["name"], 110)
    for number in range(1, 1000):
        candidate = base if number == 1 else f"{base[:-1]} {number})"
        row = PromptSet.objects.filter(name=candidate).first()
        if row is None:
            found = PromptSet.objects.create(
                name=candidate, prompts=prompts,
                description=f"The prompts of {ref['name']!r} as an imported run used them.")
            break
        if row.prompts == prompts:
            found = row
            break
    else:
        raise TransferError(f"too many imported copies of prompt set {ref['name']!r}")
    notices.append(f"Prompt set {ref['name']!r} with the run's prompts is not in this database: "
                   f"the run uses {found.name!r}.")
    return found


def _judge(ref, role: str, notices: list[str]) -> Judge:
    """The judge of that name; else one created with its name and backend
    (a run's judge cannot be empty) and no endpoint, said in a notice."""
    ref = _ref(ref, role)
    found = Judge.objects.filter(name=ref["name"]).first()
    if found is not None:
        return found
    copy_name = _imported_name(ref["name"], 80)
    found = Judge.objects.filter(name=copy_name).first()
    if found is None:
        found = Judge(name=copy_name, backend=ref.get("backend") or Judge.Backend.LOCAL,
                      model=ref.get("model") or "")
        try:
            found.full_clean()
        except ValidationError as exc:
            raise TransferError(f"{RUN_FILE}: references.{role}: {exc}") from exc
        found.save()
        notices.append(f"Judge {ref['name']!r} is not in this database: created {copy_name!r} "
                       "with its backend and model, without an endpoint.")
    else:
        notices.append(f"Judge {ref['name']!r} is not in this database: the run's {role} is "
                       f"{copy_name!r}.")
    return found


def _snapshot(ref, notices: list[str]) -> PoolSnapshot | None:
    if ref is None:
        return None
    ref = _ref(ref, "snapshot")
    found = PoolSnapshot.objects.filter(name=ref["name"]).first()
    if found is None:
        notices.append(f"Pool snapshot {ref['name']!r} is not in this database: the run "
                       "names none.")
    return found

