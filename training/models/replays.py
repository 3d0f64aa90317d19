"""Replays: a rubric re-scored offline on chosen renders, with the
diagnostics that show which signal carries information."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from jobs.models import Job
from pool.models import PoolSnapshot
from sketches.models import Render

from .scoring import Judge, Rubric


class Replay(Job):
    """One or two rubrics re-scored on chosen renders, offline, on a worker."""

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
    results = models.JSONField(default=dict, blank=True)
    notices = models.JSONField(default=list, blank=True,
                               help_text="What the scoring could not do, and why.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

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
