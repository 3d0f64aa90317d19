"""Rubrics (what a rollout is rewarded for), judges (who compares and rates
pictures) and the judges' cache of verdicts."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models

from ..reward.judges.keys import api_key_env_problem
from ..reward.judges.registry import DEFAULT_BACKEND, backend_choices
from ..reward.rubric import signal_specs
from ..reward.spec import RubricError
from .base import NextVersion


class Rubric(NextVersion, models.Model):
    """A named, versioned list of weighted signals. The signal list is data
    (see training.reward.kinds for the kinds and their parameters); replays keep
    a copy of the list they used, so editing a rubric never rewrites what
    was measured with it."""

    name = models.CharField(max_length=80)
    version = models.PositiveIntegerField(
        blank=True, help_text="Left blank, a new rubric gets the next version of its name.")
    description = models.TextField(blank=True)
    signals = models.JSONField(
        default=list,
        help_text='A list of {"name", "kind", "weight", "params"}: kinds gate, compile_gate, '
                  "brush_gate, length, preference, pairwise, absolute (see the README).")
    preset = models.BooleanField(default=False, help_text="Installed by paintrl (v1, v2).")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"],
                                               name="rubric_name_version_unique")]

    def clean(self):
        try:
            signal_specs(self.signals)
        except RubricError as error:
            raise ValidationError({"signals": str(error)}) from error

    def specs(self):
        return signal_specs(self.signals)


class Judge(models.Model):
    """A backend that compares two pictures, rates one, or scores its
    preference: `backend` is a key of PAINTRL_JUDGE_BACKENDS (settings), the
    fields below configure it. Keys are never stored: `api_key_env` names the
    environment variable that holds one."""

    name = models.CharField(max_length=80, unique=True)
    # Callable choices: the select lists the configured backends, and the
    # migration stores the function's path, not the keys of the day.
    backend = models.CharField(max_length=40, choices=backend_choices, default=DEFAULT_BACKEND,
                               help_text="A key of PAINTRL_JUDGE_BACKENDS (settings).")
    base_url = models.CharField(
        max_length=300, blank=True,
        help_text="Blank: PAINTRL_JUDGE_BASE_URL (openai) or PAINTRL_HPSV3_URL (hpsv3).")
    model = models.CharField(max_length=200, blank=True,
                             help_text="Blank: PAINTRL_JUDGE_MODEL (openai).")
    api_key_env = models.CharField(
        max_length=100, blank=True, default="PAINTRL_JUDGE_API_KEY",
        help_text="Name of the environment variable that holds the API key (never the key).")
    max_concurrency = models.PositiveSmallIntegerField(default=4)
    timeout_s = models.FloatField(default=60.0)
    retries = models.PositiveSmallIntegerField(default=2)
    agreement = models.JSONField(default=dict, blank=True,
                                 help_text="Agreement with curators' grades, last measured.")
    agreement_measured = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        problem = api_key_env_problem(self.api_key_env)
        if problem:
            raise ValidationError({"api_key_env": problem})

    def __str__(self) -> str:
        return f"{self.name} ({self.get_backend_display()})"


class JudgeVerdict(models.Model):
    """A judge's answer, cached by what was asked about which pictures (by
    the SHA-256 of their PNG bytes: the same picture gets the same answer
    whichever render holds it). Only answers are cached, never failures."""

    judge_key = models.CharField(max_length=200)
    question = models.CharField(max_length=60,
                                help_text='"compare", "preference" or "rate:<criterion>".')
    image = models.CharField(max_length=64)
    reference = models.CharField(max_length=64, blank=True)
    value = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(
            fields=["judge_key", "question", "image", "reference"], name="judge_verdict_unique")]
