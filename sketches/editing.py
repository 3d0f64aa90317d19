"""Editing a sketch: the edit is a new Sketch (origin "edited", the original as
its parent), rendered on the server at the seed the editor previewed. Once
that render is ok it is in the grading queue like any other, because the
queue takes every ok render a curator has not graded. The same code and
prompt at a new seed is no new sketch: it is a new render of the original."""
from __future__ import annotations

from django.db import transaction

from .brush_api import DEFAULT_BRUSH
from .code_syntax import SyntaxProblem, syntax_problem
from .code_text import MAX_SKETCH_BYTES
from .models import Render, Sketch
from .services import render_create, sketch_create

MAX_CODE_BYTES = MAX_SKETCH_BYTES


class SketchEditInvalid(ValueError):
    """The edit cannot be saved; the message says why, for the person editing,
    and `syntax` where the line and column of a syntax error are known."""

    def __init__(self, message: str, syntax: SyntaxProblem | None = None) -> None:
        super().__init__(message)
        self.syntax = syntax


def written_code_check(code: str) -> None:
    """Raise SketchEditInvalid when code a person wrote (an edit, a sketch
    sent to the API) cannot be saved: empty, not UTF-8, too large, or not
    JavaScript that parses, so they fix it before it renders.
    (sketches.importing.inputs.imported_code_check is looser on purpose.)"""
    if not code.strip():
        raise SketchEditInvalid("The sketch is empty: write some code before saving.")
    try:
        size = len(code.encode("utf-8"))
    except UnicodeEncodeError:
        raise SketchEditInvalid("The code is not valid UTF-8 text (it holds unpaired surrogate "
                                "characters).") from None
    if size > MAX_CODE_BYTES:
        raise SketchEditInvalid(
            f"The sketch is {size / 1e6:.2f} MB; the limit is {MAX_CODE_BYTES / 1e6:g} MB. "
            "Move data out of the code or shorten it.")
    if syntax := syntax_problem(code):
        raise SketchEditInvalid(str(syntax), syntax=syntax)


def unchanged_render(*, parent: Sketch, code: str, prompt: str, seed: int) -> Render | None:
    """The render of `parent` this edit would repeat (same code, prompt and
    seed), or None when the edit asks for something new."""
    if code != parent.code or prompt != parent.prompt:
        return None
    return parent.renders.filter(seed=seed).order_by("-created").first()


def sketch_edit(*, parent: Sketch, code: str, prompt: str | None = None,
                seed: int = 0) -> Render:
    """Save `code` as an edit of `parent` and queue its render (after commit);
    the same code and prompt at a new seed queue a render of `parent` itself.
    The prompt defaults to the parent's. Raises SketchEditInvalid."""
    prompt = parent.prompt if prompt is None else prompt
    written_code_check(code)
    if same := unchanged_render(parent=parent, code=code, prompt=prompt, seed=seed):
        raise SketchEditInvalid(nothing_changed(same))
    # An edit renders with the p5.brush its parent last rendered with (an
    # imported 1.x sketch stays 1.x).
    last = parent.renders.order_by("-created", "-pk").values_list("brush", flat=True).first()
    brush = last or DEFAULT_BRUSH
    with transaction.atomic():
        if code == parent.code and prompt == parent.prompt:
            return render_create(sketch=parent, seed=seed, brush=brush)
        sketch = sketch_create(code=code, prompt=prompt, origin=Sketch.Origin.EDITED,
                               parent=parent)
        return render_create(sketch=sketch, seed=seed, brush=brush)


def nothing_changed(same: Render) -> str:
    return (f"Nothing changed: render {same.pk} is this code and prompt at seed {same.seed}. "
            "Edit the code or the prompt, or pick another seed.")
