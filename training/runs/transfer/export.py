"""Export: a launched run written to a new folder or zip (`run_export`), and
where its checkpoints and final policy stayed (`not_exported`)."""
from __future__ import annotations

import hashlib
import json
import logging
import os
import shutil
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from django.utils import timezone
from django.utils.text import slugify

from files.stored import read_bytes
from sketches.models import Render
from training.models import Judge, TrainingRun

from ...policy import run_dir
from .common import (
    FORMAT,
    NOT_EXPORTED,
    RENDER_FIELDS,
    ROLLOUT_FIELDS,
    ROLLOUTS_FILE,
    RUN_FIELDS,
    RUN_FILE,
    SKETCH_FIELDS,
    STEP_FIELDS,
    STEPS_FILE,
    TransferError,
    row,
)

logger = logging.getLogger(__name__)


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
    steps = [json.dumps(row(s, STEP_FIELDS), ensure_ascii=False)
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
        "run": row(run, RUN_FIELDS),
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
        line = row(rollout, ROLLOUT_FIELDS)
        sketch, render = rollout.sketch, rollout.render
        line["sketch"] = {"id": sketch.pk, **row(sketch, SKETCH_FIELDS)} if sketch else None
        png_name, png = None, None
        if render is not None:
            line["render"] = {"id": render.pk, **row(render, RENDER_FIELDS), "png": None,
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
        return read_bytes(render.png.name)
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
    folder = run_dir(run.pk)
    found = [p for p in folder.glob("checkpoint-*") if p.is_dir()]
    checkpoints = [str(p) for p in sorted(found, key=_checkpoint_number)]
    return {"note": NOT_EXPORTED, "run_dir": str(folder), "checkpoints": checkpoints,
            "checkpoint_step": run.checkpoint_step,
            "final_policy": (run.progress or {}).get("final_policy")}


def _checkpoint_number(path: Path) -> int:
    tail = path.name.removeprefix("checkpoint-")
    return int(tail) if tail.isdigit() else -1
