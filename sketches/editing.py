"""Editing a sketch: the edit is a new Sketch (origin "edited", the original as
its parent), rendered on the server at the seed the editor previewed. Once
that render is ok it is in the grading queue like any other, because the
queue takes every ok render a curator has not graded."""
from __future__ import annotations

from django.db import transaction

from .code_text import MAX_SKETCH_BYTES
from .models import Render, Sketch
from .services import render_create, sketch_create

MAX_CODE_BYTES = MAX_SKETCH_BYTES


class SketchEditInvalid(ValueError):
    """The edit cannot be saved; the message says why, for the person editing."""


def code_problem(code: str) -> str | None:
    """Why `code` cannot be saved as a sketch, or None when it can."""
    if not code.strip():
        return "The sketch is empty: write some code before saving."
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError:
        return "The code is not valid UTF-8 text (it holds unpaired surrogate characters)."
    if size > MAX_CODE_BYTES:
        return (f"The sketch is {size / 1e6:.2f} MB; the limit is {MAX_CODE_BYTES / 1e6:g} MB. "
                "Move data out of the code or shorten it.")
    return None


def sketch_edit(*, parent: Sketch, code: str, prompt: str | None = None,
                seed: int = 0) -> Render:
    """Save `code` as an edit of `parent` and queue its render (after commit).
    The prompt defaults to the parent's. Raises SketchEditInvalid."""
    problem = code_problem(code)
    if problem:
        raise SketchEditInvalid(problem)
    with transaction.atomic():
        sketch = sketch_create(code=code, prompt=parent.prompt if prompt is None else prompt,
                               origin=Sketch.Origin.EDITED, parent=parent)
        return render_create(sketch=sketch, seed=seed)
