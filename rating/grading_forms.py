"""The one form behind every grading action: the page's plain HTML forms post
it, and grading.js posts the same fields in the background."""
from __future__ import annotations

from dataclasses import dataclass

from django import forms
from django.core.validators import RegexValidator

from sketches.input_rules import CLIENT_KEY_PATTERN, SHOWN_MS_MAX

from . import services
from .models import Grade
from .selectors import renders_gradable

# Most renders the browser may ask to hold ahead in one request.
MAX_WANT = 20


def shown_ms_of(data: dict, now_ms: int) -> int | None:
    """How long the item was on screen: the page's own measurement, else the
    difference from the time the page was served (`shown_at`, no JS)."""
    if data.get("shown_ms") is not None:
        return data["shown_ms"]
    shown_at = data.get("shown_at")
    if shown_at is None or not 0 <= now_ms - shown_at <= SHOWN_MS_MAX:
        return None
    return now_ms - shown_at


@dataclass(frozen=True)
class ActionOutcome:
    op: str
    render_id: int
    value: str = ""  # the grade's value after the action ("" when withdrawn or skipped)
    previous: str = ""  # its value before, which undo restores
    grade_id: int | None = None
    held: bool = False  # after unskip: whether the render is claimed for the curator again


class ActionForm(forms.Form):
    OPS = [("grade", "Grade"), ("undo", "Undo a grade"), ("skip", "Skip"),
           ("unskip", "Undo a skip")]

    op = forms.ChoiceField(choices=OPS)
    render = forms.IntegerField(min_value=1)
    value = forms.ChoiceField(choices=Grade.Value.choices, required=False)
    restore = forms.ChoiceField(choices=[("", "nothing"), *Grade.Value.choices], required=False)
    shown_ms = forms.IntegerField(min_value=0, max_value=SHOWN_MS_MAX, required=False)
    # Without JavaScript the page cannot time itself: it carries the time it was
    # served (epoch ms) and the server takes the difference.
    shown_at = forms.IntegerField(min_value=0, required=False)
    # The outbox's name for a grade, sent again on a retry (rating.services.grade_submit).
    key = forms.CharField(required=False, validators=[RegexValidator(
        CLIENT_KEY_PATTERN, "a request key is 8 to 64 letters, digits or _ . : -")])

    def clean_render(self):
        pk = self.cleaned_data["render"]
        render = next(iter(renders_gradable().filter(pk=pk).only("id", "sketch_id")), None)
        if render is None:
            raise forms.ValidationError(f"render {pk} does not exist or cannot be graded")
        return render

    def clean(self):
        data = super().clean()
        if data.get("op") == "grade" and not data.get("value"):
            self.add_error("value", "a grade needs a value: love, okay or nope")
        return data

    def shown_ms_at(self, now_ms: int) -> int | None:
        return shown_ms_of(self.cleaned_data, now_ms)

    def apply(self, *, curator, now_ms: int) -> ActionOutcome:
        data = self.cleaned_data
        op, render = data["op"], data["render"]
        if op == "grade":
            grade, previous = services.grade_submit(curator=curator, render=render,
                                                    value=data["value"],
                                                    shown_ms=self.shown_ms_at(now_ms),
                                                    key=data.get("key") or "")
            if grade is None:  # a retry of a grade withdrawn since
                return ActionOutcome(op, render.pk, "", previous)
            return ActionOutcome(op, render.pk, grade.value, previous, grade.pk)
        if op == "undo":
            grade = services.grade_undo(curator=curator, render=render,
                                        restore=data.get("restore") or "")
            return ActionOutcome(op, render.pk, grade.value if grade else "", "",
                                 grade.pk if grade else None, held=grade is None)
        if op == "skip":
            services.render_skip(curator=curator, render=render)
            return ActionOutcome(op, render.pk)
        held = services.render_unskip(curator=curator, render=render)
        return ActionOutcome(op, render.pk, held=held)


class QueueRequestForm(forms.Form):
    """What the browser already holds and how many renders it wants in all."""

    want = forms.IntegerField(min_value=0, max_value=MAX_WANT, required=False)
    have = forms.CharField(required=False, max_length=4000)
    after = forms.IntegerField(min_value=0, required=False)

    def clean_have(self) -> list[int]:
        raw = self.cleaned_data.get("have") or ""
        try:
            return [int(part) for part in raw.split(",") if part.strip()]
        except ValueError as exc:
            raise forms.ValidationError(
                f"have must be comma-separated render ids, got {raw!r}") from exc
