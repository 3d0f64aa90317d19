"""Writes for sketches and renders. Rendering itself lives in rendering.py;
these functions store what it returns and queue the work."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed

from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from .models import Render, Sketch
from .renderer import RenderPool, shared_pool
from .rendering import RenderOutcome, render_text


@transaction.atomic
def sketch_create(*, code: str, prompt: str = "", origin: str = Sketch.Origin.IMPORTED,
                  parent: Sketch | None = None, meta: dict | None = None) -> Sketch:
    return Sketch.objects.create(code=code, prompt=prompt, origin=origin, parent=parent,
                                 meta=meta or {})


def render_create(*, sketch: Sketch, seed: int = 0) -> Render:
    """A pending render, queued on the `render` queue once the transaction commits."""
    from .tasks import render_task

    render = Render.objects.create(sketch=sketch, seed=seed)
    transaction.on_commit(lambda: render_task.delay(render.pk))
    return render


def render_store(*, render: Render, outcome: RenderOutcome) -> Render:
    """Write an outcome onto its render. A render that is already final is left
    as it is, so a redelivered task does no harm."""
    with transaction.atomic():
        locked = Render.objects.select_for_update().get(pk=render.pk)
        if locked.is_final:
            return locked
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
        locked.rendered = timezone.now()
        written = None
        try:
            if outcome.png:
                locked.png.save("render.png", ContentFile(outcome.png), save=False)
                written = locked.png.name
            locked.save()
        except BaseException:
            # The row rolls back but the file written to storage would stay,
            # and the retry would write a second one: remove it.
            if written:
                locked.png.storage.delete(written)
            raise
        return locked


def render_execute(*, render_id: int, pool: RenderPool | None = None) -> Render:
    """Render one pending render now, in this process's pool."""
    render = Render.objects.select_related("sketch").get(pk=render_id)
    if render.is_final:
        return render
    outcome = render_text(pool or shared_pool(), render.sketch.code, render.seed)
    return render_store(render=render, outcome=outcome)


def renders_execute_bulk(
    *,
    render_ids: Sequence[int],
    pool: RenderPool | None = None,
    on_progress: Callable[[int, int, Render], None] | None = None,
) -> list[Render]:
    """Render many at once across the whole pool, storing each as it finishes;
    `on_progress(done, total, render)` is called after each one is stored."""
    pool = pool or shared_pool()
    todo = [r for r in Render.objects.select_related("sketch").filter(pk__in=render_ids)
            if not r.is_final]
    stored: list[Render] = []
    # One waiting thread per browser keeps every browser busy.
    with ThreadPoolExecutor(max_workers=pool.config.browsers) as executor:
        futures = {executor.submit(render_text, pool, r.sketch.code, r.seed): r for r in todo}
        for future in as_completed(futures):
            stored.append(render_store(render=futures[future], outcome=future.result()))
            if on_progress is not None:
                on_progress(len(stored), len(todo), stored[-1])
    return stored
