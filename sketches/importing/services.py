"""Import sketches, their renders and their grades from a folder, a zip or a
JSONL file: one code path for the `import_renders` command and the upload
page's Celery task.

Each item is stored in its own transaction, so a bad item leaves nothing
behind and never stops the rest. Re-importing is idempotent: code already
stored (same SHA-256) is reported as already imported and not stored again;
its grades are still applied, which changes nothing when they are the same."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from django.core.files.base import ContentFile
from django.db import InterfaceError, OperationalError, transaction
from django.utils import timezone

from ..brush_api import AUTO_BRUSH, brush_choice_check
from ..models import IMPORTED_RENDERER, Render, Sketch, code_hash
from ..renderer.paint import paint_fraction
from ..services import render_create, sketch_create
from .conf import GradesHandler, grades_handler, import_deadline_s, import_limits
from .errors import ErrorCode, ItemError
from .inputs import Candidate, PlannedItem, import_plan
from .report import ALREADY_IMPORTED, ImportReport, ItemResult, Outcome, RenderSource

logger = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int, ItemResult], None]


def import_path(path: str | Path, *, source_name: str | None = None,
                on_progress: ProgressCallback | None = None,
                queue_renders: bool = True, brush: str = AUTO_BRUSH) -> ImportReport:
    """Import everything in `path` and report item by item.

    `brush` is the p5.brush the sketches render with ("2", "1" or "auto",
    the default: sketches from outside are written for either, and auto
    renders each with the version its calls are written for), unless an
    item's line names its own; a ValueError names any other value.

    `source_name` is what Sketch.meta records as the source (the uploaded
    file's name; by default the path's name). `on_progress(done, total,
    result)` is called after each item. With `queue_renders=False` the
    pending renders are created but not queued; their ids are in
    `report.pending_render_ids` for the caller to render.
    Raises ImportInputError when the input as a whole cannot be read."""
    path = Path(path)
    source_name = source_name or path.name
    run = _ImportRun(store_grades=grades_handler(), queue_renders=queue_renders,
                     brush=brush_choice_check(brush))
    with import_plan(path, import_limits(), source_name) as plan:
        report = ImportReport(source=source_name, kind=plan.kind, total=plan.total,
                              ignored=plan.ignored)
        for planned in plan.items:
            result = run.item_import(planned)
            report.add(result)
            if on_progress is not None:
                on_progress(report.done, report.total, result)
    logger.info("import of %s: %s", source_name, report.summary())
    return report


@dataclass
class _ImportRun:
    """What one import remembers from item to item."""
    store_grades: GradesHandler
    queue_renders: bool
    brush: str  # for items whose line names none
    # (code hash, seed) -> the item that brought it: the same pair twice is a duplicate.
    seen: dict[tuple[str, int], str] = field(default_factory=dict)
    # Ids of the sketches this import created: the same code at another
    # seed is another render of it, not an "already imported" sketch.
    created: set[int] = field(default_factory=set)

    def item_import(self, planned: PlannedItem) -> ItemResult:
        try:
            return self._candidate_store(planned.load())
        except ItemError as error:
            return ItemResult(planned.name, Outcome.ERROR, error.code, error.message)
        except (OperationalError, InterfaceError) as exc:
            # The database went away: the item's transaction rolled back, and
            # Django reconnects for the next item. Say so, not just the class.
            logger.warning("importing %s: database unavailable: %s", planned.name, exc)
            reason = " ".join(str(exc).split())
            return ItemResult(planned.name, Outcome.ERROR, ErrorCode.INTERNAL_ERROR,
                              f"the database was unavailable, so nothing of this item was "
                              f"stored; import the file again to retry it ({reason})")
        except Exception as exc:  # one broken item must not stop the import
            logger.exception("importing %s failed", planned.name)
            return ItemResult(planned.name, Outcome.ERROR, ErrorCode.INTERNAL_ERROR,
                              f"{type(exc).__name__}: {exc}")

    def _candidate_store(self, candidate: Candidate) -> ItemResult:
        key = (code_hash(candidate.code), candidate.seed)
        if key in self.seen:
            raise ItemError(ErrorCode.DUPLICATE_FILE,
                            f"the same code (at the same seed) as {self.seen[key]}")
        existing = Sketch.objects.filter(code_sha256=key[0]).order_by("pk").first()
        stored_files: list = []
        stored = False
        warning = ""
        try:
            with transaction.atomic():
                if existing is None:
                    sketch = sketch_create(
                        code=candidate.code, prompt=candidate.prompt,
                        origin=Sketch.Origin.IMPORTED, meta={"import": candidate.meta})
                    render, how = _render_new(sketch, candidate, self.queue_renders,
                                              stored_files, self.brush)
                else:
                    sketch = existing
                    render, how = _render_reuse(sketch, candidate, self.queue_renders,
                                                stored_files, self.brush)
                grades = _grades_store(render, candidate.grades, self.store_grades)
                stored = True
        except BaseException as exc:
            if not stored or not isinstance(exc, Exception):
                # The rows rolled back; the PNG written to storage did not.
                for file in stored_files:
                    file.storage.delete(file.name)
                raise
            # Committed: only queuing the render after the commit failed (no broker).
            logger.exception("queuing the render of %s failed", candidate.name)
            reason = " ".join(str(exc).split())
            warning = (f"stored, but its render was not queued ({type(exc).__name__}: "
                       f"{reason}); `manage.py render_pending` renders it")
        self.seen[key] = candidate.name
        if existing is None or existing.pk in self.created:
            self.created.add(sketch.pk)
            return ItemResult(candidate.name, Outcome.IMPORTED, message=warning,
                              sketch_id=sketch.pk, render_id=render.pk, render=how,
                              grades=grades)
        message = "; ".join(filter(None, [f"the same code as sketch {sketch.pk}", warning]))
        return ItemResult(candidate.name, Outcome.SKIPPED, ALREADY_IMPORTED, message,
                          sketch_id=sketch.pk, render_id=render.pk, render=how, grades=grades)


def _render_new(sketch: Sketch, candidate: Candidate, queue_renders: bool,
                stored_files: list, brush: str) -> tuple[Render, RenderSource]:
    png = candidate.png
    brush = candidate.brush or brush
    if png is None:
        if queue_renders:
            return (render_create(sketch=sketch, seed=candidate.seed, brush=brush,
                                  deadline_s=import_deadline_s()),
                    RenderSource.QUEUED)
        return (Render.objects.create(sketch=sketch, seed=candidate.seed, brush=brush,
                                      deadline_s=import_deadline_s()),
                RenderSource.QUEUED)
    render = Render.objects.create(
        sketch=sketch, seed=candidate.seed, brush=brush, status=Render.Status.OK,
        width=png.width, height=png.height, paint_fraction=paint_fraction(png.data),
        renderer_version=IMPORTED_RENDERER, rendered=timezone.now())
    render.png.save("render.png", ContentFile(png.data), save=True)
    stored_files.append(render.png)
    return render, RenderSource.PNG


def _render_reuse(sketch: Sketch, candidate: Candidate, queue_renders: bool,
                  stored_files: list, brush: str) -> tuple[Render, RenderSource]:
    """The render an earlier import made for this code and seed (an imported
    PNG, when this item brings one), so grades land on the same render."""
    renders = sketch.renders.filter(seed=candidate.seed).order_by("pk")
    if candidate.png is not None:
        renders = renders.filter(renderer_version=IMPORTED_RENDERER)
    found = renders.first()
    if found is not None:
        return found, RenderSource.EXISTING
    return _render_new(sketch, candidate, queue_renders, stored_files, brush)


def _grades_store(render: Render, grades: dict[str, str], store_grades: GradesHandler) -> int:
    if not grades:
        return 0
    try:
        store_grades(render=render, grades=grades)
    except ValueError as exc:
        raise ItemError(ErrorCode.BAD_GRADES, str(exc)) from exc
    return len(grades)
