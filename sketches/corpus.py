"""The procedural corpus: painter sketches stored as Sketch rows and queued
for rendering, so there is something real to grade before any policy exists."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.db import transaction

from .models import Sketch, code_hash
from .painter import paint
from .services import BULK, render_create, sketch_create


@dataclass(frozen=True)
class SeedReport:
    created: int
    existing: int


def corpus_seed(
    *,
    count: int,
    seed: int = 0,
    size: int,
    on_progress: Callable[[int, int], None] | None = None,
    batch_size: int = 100,
) -> SeedReport:
    """Store painter sketches for seeds `seed .. seed+count-1` and queue a
    render of each. The painter is deterministic, so a seed already stored has
    the same code hash and is skipped: running this twice adds nothing.

    Each batch commits on its own, so the render workers start on the first
    batch while later ones are still being written."""
    created = existing = 0
    for start in range(seed, seed + count, batch_size):
        chunk = range(start, min(start + batch_size, seed + count))
        painted = [paint(s, size=size) for s in chunk]
        with transaction.atomic():
            stored = set(Sketch.objects.filter(code_sha256__in=[code_hash(p.code) for p in painted])
                         .values_list("code_sha256", flat=True))
            for sketch in painted:
                if code_hash(sketch.code) in stored:
                    existing += 1
                    continue
                row = sketch_create(code=sketch.code, prompt=sketch.prompt,
                                    origin=Sketch.Origin.PROCEDURAL, meta=sketch.meta)
                render_create(sketch=row, seed=sketch.meta["seed"], priority=BULK)
                stored.add(row.code_sha256)
                created += 1
        if on_progress is not None:
            on_progress(created + existing, count)
    return SeedReport(created=created, existing=existing)
