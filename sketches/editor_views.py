"""The sketch editor: code on the left, a live preview on the right that the
browser paints with the server renderer's own harness, p5 and p5.brush.
Saving creates an edited Sketch and queues its render."""
from __future__ import annotations

from urllib.parse import unquote_to_bytes

from django import forms
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.templatetags.static import static
from django.views.decorators.http import require_http_methods

from . import editing
from .access import is_curator
from .code_syntax import SyntaxProblem
from .conf import renderer_config
from .input_rules import SEED_MAX
from .models import Render, Sketch
from .renderer.page_server import harness_script

NOT_UTF8 = ("The code was not sent as valid UTF-8; characters that could not be read are shown "
            "as \N{REPLACEMENT CHARACTER}. Fix them and save again.")


class SketchEditForm(forms.Form):
    prompt = forms.CharField(required=False, strip=False,
                             widget=forms.TextInput(attrs={"autocomplete": "off"}))
    # strip=False: whitespace is part of the code the person wrote.
    code = forms.CharField(strip=False, error_messages={
        "required": "The sketch is empty: write some code before saving."},
        widget=forms.Textarea(attrs={"class": "code-editor", "spellcheck": "false",
                                     "autocapitalize": "off", "autocomplete": "off",
                                     "wrap": "off", "rows": 28}))
    seed = forms.IntegerField(min_value=0, max_value=SEED_MAX, initial=0)

    def __init__(self, *args, parent: Sketch, body_is_utf8: bool = True, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.parent = parent
        self.body_is_utf8 = body_is_utf8
        # The line and column of a syntax error in the posted code, for the editor to mark.
        self.syntax_error: SyntaxProblem | None = None

    def clean_code(self) -> str:
        # Browsers send a textarea's line breaks as CRLF (HTML spec); the
        # sketch keeps the LF it was written with, so its hash stays honest.
        code = self.cleaned_data["code"].replace("\r\n", "\n")
        if not self.body_is_utf8:
            raise forms.ValidationError(NOT_UTF8)
        try:
            editing.written_code_check(code)
        except editing.SketchEditInvalid as exc:
            self.syntax_error = exc.syntax
            raise forms.ValidationError(str(exc)) from None
        return code

    def clean(self) -> dict:
        data = super().clean()
        if {"code", "prompt", "seed"} <= data.keys():
            same = editing.unchanged_render(parent=self.parent, code=data["code"],
                                            prompt=data["prompt"], seed=data["seed"])
            if same:
                raise forms.ValidationError(editing.nothing_changed(same))
        return data


def body_is_utf8(request) -> bool:
    """Django decodes form fields leniently (bad bytes become U+FFFD); read the
    urlencoded body strictly so such code is refused rather than saved."""
    if request.content_type != "application/x-www-form-urlencoded":
        return True
    try:
        unquote_to_bytes(request.body.replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def preview_config(syntax_error: SyntaxProblem | None = None) -> dict:
    """What editor.js needs: the preview's libraries and limits, and the
    server's syntax error (line and column, 1-based) for the editor to mark."""
    config = renderer_config()
    return {
        "harness": harness_script(config),
        "p5": static("vendor/p5/p5.min.js"),
        "brush": static("vendor/p5.brush/p5.brush.js"),
        "deadlineS": config.deadline_s,
        "maxBytes": editing.MAX_CODE_BYTES,
        "syntaxError": syntax_error and {"line": syntax_error.line,
                                         "column": syntax_error.column,
                                         "message": syntax_error.message},
    }


def source_render(request, parent: Sketch) -> Render | None:
    """The render the editor was opened from (?render=), else the sketch's
    latest: its seed is the preview's, its picture shown for comparison."""
    renders = parent.renders.order_by("-created")
    try:
        return renders.filter(pk=int(request.GET["render"])).first()
    except (KeyError, ValueError):
        return renders.first()


@require_http_methods(["GET", "POST"])
def sketch_editor(request, pk: int):
    parent = get_object_or_404(Sketch, pk=pk)
    if not is_curator(request.user):
        raise PermissionDenied("Only curators and staff can edit sketches.")
    source = source_render(request, parent)
    if request.method == "POST":
        form = SketchEditForm(request.POST, parent=parent, body_is_utf8=body_is_utf8(request))
        if form.is_valid():
            new_render = editing.sketch_edit(parent=parent, code=form.cleaned_data["code"],
                                             prompt=form.cleaned_data["prompt"],
                                             seed=form.cleaned_data["seed"])
            return redirect("sketches:render_detail", new_render.pk)
    else:
        form = SketchEditForm(parent=parent, initial={
            "code": parent.code, "prompt": parent.prompt, "seed": source.seed if source else 0})
    return render(request, "sketches/editor.html", {
        "parent": parent, "form": form, "source": source,
        "max_mb": editing.MAX_CODE_BYTES / 1e6, "preview": preview_config(form.syntax_error),
    })
