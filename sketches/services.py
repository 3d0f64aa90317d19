"""Writes for sketches and renders. Rendering itself lives in rendering.py;
these functions store what it returns and queue the work."""
from __future__ import annotations

import gzip
import logging
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from django.core.files.base import ContentFile
from django.core.files.storage import Storage
from django.db import transaction
from django.utils import timezone

from jobs.dispatch import task_send

from .brush_api import brush_choice_check
from .conf import png_in_use
from .models import Render, Sketch
from .renderer import RenderPool, shared_pool
from .renderer.libraries import DEFAULT_BRUSH
from .rendering import UNAVAILABLE, RenderOutcome, render_text, renderer_versions
from .selectors import renders_stale

log = logging.getLogger(__name__)
Stored = TypeVar("Stored")


@transaction.atomic
def sketch_create(*, code: str, prompt: str = "", origin: str = Sketch.Origin.IMPORTED,
                  parent: Sketch | None = None, meta: dict | None = None) -> Sketch:
    return Sketch.objects.create(code=code, prompt=prompt, origin=origin, parent=parent,
                                 meta=meta or {})


# Celery message priorities on the render queue (the Redis transport takes
# lower numbers first). A render a person asked for (an edit, an import, a
# single render) goes ahead of bulk corpus work: queued behind the demo's
# 1,300 seeded renders, an edit waited about 90 minutes for its picture.
ASKED = 0
BULK = 9


def render_create(*, sketch: Sketch, seed: int = 0, priority: int = ASKED,
                  brush: str = DEFAULT_BRUSH, deadline_s: float | None = None) -> Render:
    """A pending render, queued on the `render` queue once the transaction
    commits, at `priority` (ASKED or BULK), to be rendered with p5.brush
    `brush` (brush_api.BRUSHES: "2", "1" or "auto"; a ValueError names
    any other), within `deadline_s` where given (else the renderer's; the
    render keeps it, so a lost one sent again by `render_pending` or a
    re-render has it too)."""
    render = Render.objects.create(sketch=sketch, seed=seed, brush=brush_choice_check(brush),
                                   deadline_s=deadline_s)
    task_send("sketches.tasks.render_task", render.pk, priority=priority)
    return render


def render_store(*, render: Render, outcome: RenderOutcome,
                 replace_stale: bool = False) -> Render:
    """Write an outcome onto its render. A render that is already final is left
    as it is, so a redelivered task does no harm.

    With `replace_stale` the outcome is a re-render (renders_rerender), written
    over the old one only while the render is still stale (selectors.
    renders_stale: so never twice, never over an import) and never when it is
    `unavailable`: the old picture, verdict and version then stay as they
    were. The old PNG is deleted once the new row has committed, unless
    settings.PAINTRL_PNG_IN_USE says a frozen snapshot still reads it."""
    with transaction.atomic():
        locked = Render.objects.select_for_update().get(pk=render.pk)
        if replace_stale:
            if (outcome.status == UNAVAILABLE
                    or not renders_stale(outcome.renderer_version).filter(pk=locked.pk).exists()):
                return locked
        elif locked.is_final:
            return locked
        old_files = [locked.png.name, locked.calls.name] if replace_stale else []
        locked.status = outcome.status
        locked.violations = outcome.violations
        locked.violation_details = outcome.details
        locked.js_errors = outcome.errors
        locked.paint_fraction = outcome.paint_fraction
        locked.width, locked.height = outcome.width, outcome.height
        locked.brush_calls = outcome.brush_calls
        locked.brush_call_counts = outcome.brush_call_counts
        locked.unknown_calls = outcome.unknown_calls
        locked.frames = outcome.frames
        locked.elapsed_ms = outcome.elapsed_ms
        locked.draw_ms = outcome.draw_ms
        locked.renderer_version = outcome.renderer_version
        locked.brush_version = outcome.brush_version
        locked.rendered = timezone.now()
        written = []
        # A re-render's files get names of their own (models.render_png_path).
        tag = f"-{secrets.token_hex(4)}" if replace_stale else ""
        try:
            for field, content, suffix in (
                    (locked.png, outcome.png, ".png"),
                    (locked.calls, outcome.calls and gzip.compress(outcome.calls.encode()),
                     ".calls.json.gz")):
                if content:
                    field.save(f"render{tag}{suffix}", ContentFile(content), save=False)
                    written.append(field.name)
                elif replace_stale:
                    field.name = ""  # the new verdict has none; the old one is not its
            locked.save()
        except BaseException:
            # The row rolls back but the files written to storage would stay,
            # and the retry would write them again: remove them.
            for name in written:
                locked.png.storage.delete(name)
            raise
        for name in old_files:
            if name and name not in (locked.png.name, locked.calls.name):
                transaction.on_commit(partial(render_png_retire, name=name,
                                              storage=locked.png.storage))
        return locked


def render_png_retire(*, name: str, storage: Storage) -> None:
    """Delete a render's file (its PNG or its call list) no render points at
    any more, unless something else (a frozen snapshot) still reads it."""
    in_use = png_in_use()
    if in_use is None or in_use(name):
        return
    try:
        storage.delete(name)
    except OSError:
        # Only disk space is lost; the rows already point at the new file.
        log.warning("could not delete the replaced render file %s", name, exc_info=True)


def render_execute(*, render_id: int, pool: RenderPool | None = None,
                   deadline_s: float | None = None) -> Render:
    """Render one pending render now, in this process's pool, within
    `deadline_s` where given, else the render's own (else the pool's)."""
    render = Render.objects.select_related("sketch").get(pk=render_id)
    if render.is_final:
        return render
    outcome = render_text(pool or shared_pool(), render.sketch.code, render.seed,
                          brush=render.brush,
                          deadline_s=render.deadline_s if deadline_s is None else deadline_s)
    return render_store(render=render, outcome=outcome)


def renders_execute_bulk(
    *,
    render_ids: Sequence[int],
    pool: RenderPool | None = None,
    on_progress: Callable[[int, int, Render], None] | None = None,
) -> list[Render]:
    """Render many at once across the whole pool, storing each as it finishes;
    `on_progress(done, total, render)` is called after each one is stored."""
    todo = [r for r in Render.objects.select_related("sketch").filter(pk__in=render_ids)
            if not r.is_final]
    return _render_concurrently(
        todo, pool or shared_pool(),
        lambda render, outcome: render_store(render=render, outcome=outcome), on_progress)


@dataclass(frozen=True)
class Rerender:
    """A stale render after renders_rerender: `status` is what the renderer
    said this time; `replaced` when the render now holds the current
    renderer's picture and verdict, else it was kept as it was (the re-render
    was `unavailable`) and is still stale."""

    render: Render
    status: str
    replaced: bool


def renders_rerender(
    *,
    render_ids: Sequence[int],
    pool: RenderPool | None = None,
    on_progress: Callable[[int, int, Rerender], None] | None = None,
) -> list[Rerender]:
    """Render stale renders again with the current renderer, in place: the same
    Render row, so the grades, pins, rollouts and pool memberships that point at
    it stay attached. That is right while a new renderer repaints the same
    picture (harness 3 against 2: within 0.1-0.4 levels per channel); the
    verdict may change with it, and is stored. Each is stored as it finishes
    (render_store, replace_stale); one that comes back `unavailable` keeps its
    old PNG, verdict and version, and stays stale for the next run. Pending
    and imported renders are never touched."""
    pool = pool or shared_pool()
    todo = list(renders_stale(renderer_versions(pool)).select_related("sketch")
                .filter(pk__in=render_ids))

    def store(render: Render, outcome: RenderOutcome) -> Rerender:
        stored = render_store(render=render, outcome=outcome, replace_stale=True)
        replaced = (outcome.status != UNAVAILABLE
                    and stored.renderer_version == outcome.renderer_version)
        return Rerender(stored, outcome.status, replaced)

    return _render_concurrently(todo, pool, store, on_progress)


def _render_concurrently(
    renders: list[Render],
    pool: RenderPool,
    store: Callable[[Render, RenderOutcome], Stored],
    on_progress: Callable[[int, int, Stored], None] | None,
) -> list[Stored]:
    """Render across the whole pool, each within its own deadline, storing
    each in this thread as it finishes."""
    stored: list[Stored] = []
    # One waiting thread per browser keeps every browser busy.
    with ThreadPoolExecutor(max_workers=pool.config.browsers) as executor:
        futures = {executor.submit(render_text, pool, r.sketch.code, r.seed, r.brush,
                                   r.deadline_s): r
                   for r in renders}
        for future in as_completed(futures):
            stored.append(store(futures[future], future.result()))
            if on_progress is not None:
                on_progress(len(stored), len(renders), stored[-1])
    return stored
