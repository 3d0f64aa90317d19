"""Rubrics (what a rollout is rewarded for), judges (who compares and rates
pictures), the judges' cache of verdicts, and replays: a rubric re-scored
offline on chosen renders, with the diagnostics that show which signal
carries information."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Max

from pool.models import PoolSnapshot
from sketches.models import Render


class Rubric(models.Model):
    """A named, versioned list of weighted signals. The signal list is data
    (see training.rubrics for the kinds and their parameters); replays keep
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
        from .rubrics import RubricError, signal_specs

        try:
            signal_specs(self.signals)
        except RubricError as error:
            raise ValidationError({"signals": str(error)}) from error

    def save(self, *args, **kwargs):
        if self.version is None:
            latest = Rubric.objects.filter(name=self.name).aggregate(v=Max("version"))["v"]
            self.version = (latest or 0) + 1
        super().save(*args, **kwargs)

    def specs(self):
        from .rubrics import signal_specs

        return signal_specs(self.signals)

    def __str__(self) -> str:
        # "rev." so the preset named v2 does not read "v2 v1".
        return f"{self.name} (rev. {self.version})"


class Judge(models.Model):
    """A backend that compares two pictures, rates one, or scores its
    preference. Keys are never stored: `api_key_env` names the environment
    variable that holds one."""

    class Backend(models.TextChoices):
        LOCAL = "local", "Local reward model"
        OPENAI = "openai", "OpenAI-compatible vision endpoint"
        HPSV3 = "hpsv3", "HPSv3 service"

    name = models.CharField(max_length=80, unique=True)
    backend = models.CharField(max_length=10, choices=Backend.choices, default=Backend.LOCAL)
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


class Replay(models.Model):
    """One or two rubrics re-scored on chosen renders, offline, on a worker."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    class GroupBy(models.TextChoices):
        PROMPT = "prompt", "Prompt (a GRPO group: rollouts of one prompt)"
        SUBJECT = "subject", "Subject"
        NONE = "none", "No groups (one group of everything)"

    name = models.CharField(max_length=120, blank=True)
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="replays")
    compare_rubric = models.ForeignKey(Rubric, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="+", help_text="Scored side by side.")
    rubric_signals = models.JSONField(
        default=list, help_text="The rubrics as scored: [{label, signals}], one or two.")
    snapshot = models.ForeignKey(PoolSnapshot, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+", help_text="References for pairwise signals.")
    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="+",
                              help_text="Answers pairwise and absolute questions.")
    scorer = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="+",
                               help_text="Gives the preference score.")
    selection = models.JSONField(default=dict, help_text="How the renders were chosen.")
    group_by = models.CharField(max_length=10, choices=GroupBy.choices, default=GroupBy.PROMPT)
    seed = models.IntegerField(default=0, help_text="Seeds the draw of pool references.")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED,
                              db_index=True)
    cancel_requested = models.BooleanField(default=False)
    progress = models.JSONField(default=dict, blank=True)
    results = models.JSONField(default=dict, blank=True)
    notices = models.JSONField(default=list, blank=True,
                               help_text="What the scoring could not do, and why.")
    error = models.TextField(blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    @property
    def finished_states(self) -> set[str]:
        return {self.Status.DONE, self.Status.FAILED, self.Status.CANCELLED}

    @property
    def is_finished(self) -> bool:
        return self.status in self.finished_states

    def __str__(self) -> str:
        return self.name or f"replay {self.pk}"


class ReplayItem(models.Model):
    """One render in a replay: its group and every signal's value (None
    where it could not be computed), keyed by signal key."""

    replay = models.ForeignKey(Replay, on_delete=models.CASCADE, related_name="items")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    group = models.CharField(max_length=300, blank=True)
    values = models.JSONField(default=dict)

    class Meta:
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["replay", "render"],
                                               name="replay_item_unique")]
