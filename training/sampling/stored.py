"""A policy's completion stored as a Sketch of origin rollout (so it joins
the grading queue) and its Render: a run's rollouts, a probe's samples and
an external run's items are all stored so. Imports nothing heavy (no
torch), so the web process may store them too."""
from __future__ import annotations

from sketches.brush_api import DEFAULT_BRUSH
from sketches.code_text import extract_code
from sketches.models import Render, Sketch
from sketches.rendering import RenderOutcome
from sketches.services import render_store, sketch_create


def completion_store(*, text: str, prompt: str, meta: dict, seed: int,
                     outcome: RenderOutcome) -> tuple[Sketch, Render]:
    """A policy's completion as a Sketch (origin rollout, so it joins the
    grading queue) and its Render, stored by sketches.services.render_store
    like every render: a run's rollout (runs/rewards.py), a probe sample
    (runs/probe/) and an external run's item (external/)."""
    sketch = sketch_create(code=extract_code(text) or text, prompt=prompt,
                           origin=Sketch.Origin.ROLLOUT, meta=meta)
    # The version it rendered with (the run's brush setting, resolved for
    # "auto"), so a re-render draws it with the same library.
    render = render_store(render=Render.objects.create(
        sketch=sketch, seed=seed, brush=outcome.brush_version or DEFAULT_BRUSH), outcome=outcome)
    return sketch, render
