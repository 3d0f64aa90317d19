"""The curation page's forms: they parse and check input; pool.services
makes the changes."""
from __future__ import annotations

from django import forms

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


class FreezeForm(forms.Form):
    name = forms.CharField(max_length=120, widget=forms.TextInput(
        attrs={"placeholder": "e.g. pool-2026-11-30"}))
    note = forms.CharField(max_length=1000, required=False)


class DeriveForm(forms.Form):
    """A calibrated snapshot: the members of a calibration's band."""

    calibration = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    low = forms.FloatField(min_value=0, max_value=1, label="Win rate from",
                           widget=forms.NumberInput(attrs={"step": "0.05"}))
    high = forms.FloatField(min_value=0, max_value=1, label="to",
                            widget=forms.NumberInput(attrs={"step": "0.05"}))
    name = forms.CharField(max_length=120, widget=forms.TextInput(
        attrs={"placeholder": "e.g. pool-2026-12-03-calibrated"}))
    note = forms.CharField(max_length=1000, required=False)
