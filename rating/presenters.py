"""Renders and grades as the JSON grading.js reads: one place, so
the page's embedded data and the background answers cannot drift apart."""
from __future__ import annotations

from django.urls import reverse

from sketches.models import Render

from . import conf
from .models import Comparison, GradeChange
from .pair_queue import PairBatch, PairEntry
from .queue import QueueBatch
from .selectors import QueueEntry, QueueFilter


def render_json(render: Render) -> dict:
    sketch = render.sketch
    return {
        "id": render.pk,
        "png": reverse("sketches:render_png", args=[render.pk]),
        "detail": reverse("sketches:render_detail", args=[render.pk]),
        "code": reverse("rating:render_code", args=[render.pk]),
        "prompt": sketch.prompt,
        "subject": (sketch.meta or {}).get("subject", "") if isinstance(sketch.meta, dict) else "",
        "origin": sketch.get_origin_display(),
        "size": [render.width, render.height],
    }


def entry_json(entry: QueueEntry) -> dict:
    data = render_json(entry.render)
    data["grade"] = entry.grade.value if entry.grade else ""
    data["grade_id"] = entry.grade.pk if entry.grade else None
    return data


def undo_step_json(change: GradeChange) -> dict:
    """One step `u` can undo: the render, its grade now, and the value to restore."""
    data = render_json(change.grade.render)
    data.update(grade=change.value, grade_id=change.grade.pk, restore=change.previous)
    return data


def grading_page_json(*, entries: list[QueueEntry], undo_steps: list[GradeChange],
                      queue_filter: QueueFilter, batch: QueueBatch, after: int | None,
                      user) -> dict:
    """What the grading page hands grading.js at load (json_script)."""
    return {
        "entries": [entry_json(e) for e in entries],
        "undo": [undo_step_json(c) for c in undo_steps],
        "reviewing": queue_filter.reviewing,
        "exhausted": batch.exhausted,
        # Ask again well inside the claim lifetime, so a lingering curator keeps the queue.
        "renew_ms": conf.claim_ttl().total_seconds() * 1000 / 3,
        "after": after,
        "prefetch": conf.grade_prefetch(),
        "query": queue_filter.as_query(),
        "user": user.pk,
        "urls": {"act": reverse("rating:act"), "next": reverse("rating:next"),
                 "login": reverse("login")},
    }


def pair_json(entry: PairEntry) -> dict:
    return {"key": f"{entry.left.pk}-{entry.right.pk}", "prompt": entry.left.sketch.prompt,
            "left": render_json(entry.left), "right": render_json(entry.right)}


def comparison_step_json(comparison: Comparison) -> dict:
    """One comparison `u` can undo, on the sides it was shown."""
    data = pair_json(PairEntry(comparison.left, comparison.right))
    data["choice"] = comparison.choice
    return data


def compare_page_json(*, batch: PairBatch, undo_steps: list[Comparison], user) -> dict:
    """What the comparing page hands compare.js at load (json_script)."""
    return {
        "entries": [pair_json(e) for e in batch.entries],
        "undo": [comparison_step_json(c) for c in undo_steps],
        "exhausted": batch.exhausted,
        "renew_ms": conf.claim_ttl().total_seconds() * 1000 / 3,
        "prefetch": conf.grade_prefetch(),
        "user": user.pk,
        "urls": {"act": reverse("rating:compare_act"), "next": reverse("rating:compare_next"),
                 "login": reverse("login")},
    }
