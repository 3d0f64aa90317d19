"""The one form behind every comparing action: the comparing page's plain
HTML forms post it, and compare.js posts the same fields in the background."""
from __future__ import annotations

from dataclasses import dataclass

from django import forms

from sketches.input_rules import SHOWN_MS_MAX

from . import services
from .grading_forms import QueueRequestForm, shown_ms_of
from .models import Comparison
from .pairs import PairKey, pair_key
from .selectors import renders_gradable


@dataclass(frozen=True)
class CompareOutcome:
    op: str  # "compare" or "undo"
    left: int
    right: int
    choice: str = ""  # what was recorded ("" after an undo)
    held: bool = False  # after undo: whether the pair is held for the curator again


class CompareForm(forms.Form):
    OPS = [("compare", "Compare"), ("undo", "Undo a comparison")]

    op = forms.ChoiceField(choices=OPS)
    left = forms.IntegerField(min_value=1)
    right = forms.IntegerField(min_value=1)
    choice = forms.ChoiceField(choices=Comparison.Choice.choices, required=False)
    shown_ms = forms.IntegerField(min_value=0, max_value=SHOWN_MS_MAX, required=False)
    shown_at = forms.IntegerField(min_value=0, required=False)  # as ActionForm's, without JS

    def clean(self):
        data = super().clean()
        if "left" not in data or "right" not in data:
            return data
        found = renders_gradable().select_related("sketch").only(
            "id", "sketch_id", "sketch__prompt").in_bulk([data["left"], data["right"]])
        for side in ("left", "right"):
            if data[side] not in found:
                self.add_error(side, f"render {data[side]} does not exist or cannot be compared")
        if self.errors:
            return data
        data["left"], data["right"] = found[data["left"]], found[data["right"]]
        try:
            services.pair_check(left=data["left"], right=data["right"])
        except ValueError as exc:
            raise forms.ValidationError(str(exc)) from exc
        if data.get("op") == "compare" and not data.get("choice"):
            self.add_error("choice", "a comparison needs a choice: left, right, tie or skip")
        return data

    def apply(self, *, curator, now_ms: int) -> CompareOutcome:
        data = self.cleaned_data
        left, right = data["left"], data["right"]
        if data["op"] == "compare":
            comparison = services.comparison_submit(
                curator=curator, left=left, right=right, choice=data["choice"],
                shown_ms=shown_ms_of(data, now_ms))
            return CompareOutcome("compare", left.pk, right.pk, comparison.choice)
        held = services.comparison_undo(curator=curator, left=left, right=right)
        return CompareOutcome("undo", left.pk, right.pk, held=held)


class PairRequestForm(QueueRequestForm):
    """What the browser already holds (pairs as "left-right") and how many it wants."""

    def clean_have(self) -> list[PairKey]:
        raw = self.cleaned_data.get("have") or ""
        try:
            return [pair_key(*map(int, part.split("-"))) for part in raw.split(",")
                    if part.strip()]
        except (ValueError, TypeError) as exc:
            raise forms.ValidationError(
                f"have must be comma-separated pairs of render ids (12-34), got {raw!r}") from exc
