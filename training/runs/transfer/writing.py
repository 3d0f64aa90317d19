"""Import, second half: `run_import`, and the one transaction that writes the
run, its steps, rollouts, sketches, renders and PNGs (or, on a failure, none)."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import DatabaseError, IntegrityError, models, transaction
from django.utils import timezone

from sketches.importing.conf import import_limits
from sketches.models import Render, Sketch
from training.models import Rollout, TrainingRun, TrainingStep

from . import reading, references
from .common import (
    FINISHED,
    NOT_EXPORTED,
    ROLLOUTS_FILE,
    RUN_FIELDS,
    RUN_FILE,
    STEPS_FILE,
    TransferError,
)

logger = logging.getLogger(__name__)


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
    with reading.source(path, limits) as source:
        listing = source.listing()
        if listing.rejected:
            raw, error = listing.rejected[0]
            raise TransferError(f"{path}: refused member {raw!r} ({error.message})")
        header = reading.header(
            reading.read_json(source, listing, RUN_FILE, limits.max_total_bytes))
        steps = [reading.step_parse(obj, where)
                 for obj, where in reading.read_jsonl(source, listing, STEPS_FILE, limits)]
        rollouts = [reading.rollout_parse(obj, where)
                    for obj, where in reading.read_jsonl(source, listing, ROLLOUTS_FILE, limits)]
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

        def png_bytes(parsed: reading.ParsedRollout) -> bytes:
            return reading.png_read_checked(source, listing, parsed, limits)

        return _write(header, run_name, steps, rollouts, png_bytes)


def _write(header: dict, name: str, steps: list[TrainingStep],
           rollouts: list[reading.ParsedRollout],
           png_bytes: Callable[[reading.ParsedRollout], bytes]) -> ImportSummary:
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
    run = reading.build(TrainingRun, data, RUN_FIELDS, RUN_FILE)
    refs, launched = header["references"], run.launched_config or {}
    run.rubric = references.rubric(refs.get("rubric"), launched, notices)
    run.system_prompt = references.system_prompt(refs.get("system_prompt"), launched, notices)
    run.prompt_set = references.prompt_set(refs.get("prompt_set"), launched, notices)
    run.judge = references.judge(refs.get("judge"), "judge", notices)
    run.scorer = references.judge(refs.get("scorer"), "scorer", notices)
    run.snapshot = references.snapshot(refs.get("snapshot"), notices)
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


def _rollouts_create(run: TrainingRun, old_run_id, parsed: list[reading.ParsedRollout],
                     png_bytes: Callable[[reading.ParsedRollout], bytes],
                     written: list[str]) -> int:
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
