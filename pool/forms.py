"""The curation page's forms: they parse and check input; pool.services
makes the changes."""
from __future__ import annotations

from django import forms
from django.utils import timezone

from .models import PoolPin, PoolRule, Tier


class PinForm(forms.Form):
    render = forms.IntegerField(min_value=1, label="Render id")
    action = forms.ChoiceField(choices=PoolPin.Action.choices)
    tier = forms.ChoiceField(choices=Tier.choices, initial=Tier.LOVE,
                             help_text="The tier a render pinned in joins.")
    reason = forms.CharField(max_length=500, widget=forms.TextInput(
        attrs={"placeholder": "why the grades are overruled"}))


class RenderForm(forms.Form):
    render = forms.IntegerField(min_value=1)


class DuplicateForm(forms.Form):
    first = forms.IntegerField(min_value=1)
    second = forms.IntegerField(min_value=1)

    def clean(self):
        data = super().clean()
        if data.get("first") and data.get("first") == data.get("second"):
            raise forms.ValidationError("a render is not a near-duplicate of itself")
        return data


class RuleForm(forms.ModelForm):
    class Meta:
        model = PoolRule
        fields = ["love_share", "okay_tier", "min_grades", "min_per_subject", "note"]
        widgets = {"note": forms.TextInput(attrs={"placeholder": "why the rule changes"}),
                   "love_share": forms.NumberInput(attrs={"step": "0.05", "min": 0, "max": 0.99})}


def dated_placeholder(form: forms.Form, suffix: str = "") -> None:
    """The name's example, dated today (a date written into the code went stale)."""
    form.fields["name"].widget.attrs["placeholder"] = (
        f"e.g. pool-{timezone.localdate():%Y-%m-%d}{suffix}")


class FreezeForm(forms.Form):
    """The page holds the rule's form too, whose note is `id_note`: this one's
    ids are `id_freeze_*`, so each label points at its own field."""

    name = forms.CharField(max_length=120, error_messages={
        "required": "This field is required: name the snapshot (a run records the "
                    "snapshot it was rewarded against by its name)."})
    note = forms.CharField(max_length=1000, required=False)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "id_freeze_%s")
        super().__init__(*args, **kwargs)
        dated_placeholder(self)


