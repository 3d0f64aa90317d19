"""The calibration forms: the launch page's, and the snapshot panel's
derive; they parse and check input, calibration.services acts."""
from __future__ import annotations

from django import forms

from pool.forms import dated_placeholder
from pool.models import PoolSnapshot

from ..config_base import form_fields
from ..models import Judge, PromptSet, SystemPrompt, TrainingRun
from .config import CHOSEN, CalibrationConfig


class CalibrationForm(forms.Form):
    snapshot = forms.ModelChoiceField(queryset=PoolSnapshot.objects.order_by("-created"))
    run = forms.ModelChoiceField(
        queryset=TrainingRun.objects.filter(status=TrainingRun.Status.DONE).order_by("-pk"),
        required=False, label="Policy: a finished run's trained policy",
        help_text="Blank: the checkpoint folder below, or the built-in policy. A run also "
                  "gives the defaults of the choices left blank: its judge, prompts, system "
                  "prompt and sampling.")
    base_model = forms.CharField(
        max_length=500, required=False, label="or a local checkpoint folder",
        help_text="Blank (and no run): the built-in policy.")
    judge = forms.ModelChoiceField(
        queryset=Judge.objects.order_by("name"), required=False,
        help_text="Blank: the run's judge, or the local one.")
    prompt_set = forms.ModelChoiceField(
        queryset=PromptSet.objects.order_by("name"), required=False,
        help_text="The prompts the policy writes rollouts for. Blank: the run's, or the preset.")
    system_prompt = forms.ModelChoiceField(
        queryset=SystemPrompt.objects.order_by("name", "-version"), required=False,
        help_text="Blank: the run's, or the newest preset.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields.update(form_fields(CalibrationConfig, CHOSEN))

    def clean(self):
        data = super().clean()
        if data.get("run") and (data.get("base_model") or "").strip():
            raise forms.ValidationError("choose a run or a checkpoint folder, not both")
        return data


class DeriveForm(forms.Form):
    """A calibrated snapshot: the members of a calibration's band."""

    calibration = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    low = forms.FloatField(min_value=0, max_value=1, label="Win rate from",
                           widget=forms.NumberInput(attrs={"step": "0.05"}))
    high = forms.FloatField(min_value=0, max_value=1, label="to",
                            widget=forms.NumberInput(attrs={"step": "0.05"}))
    name = forms.CharField(max_length=120)
    note = forms.CharField(max_length=1000, required=False)

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("auto_id", "id_derive_%s")
        super().__init__(*args, **kwargs)
        dated_placeholder(self, "-calibrated")
