"""External runs: the reward served to a trainer that is not ours (verl,
OpenRLHF, TRL with its own launcher). An external run is set up in the admin
like a run (rubric, snapshot, judges, seed, p5.brush) and opened, which
freezes its signals; it has no trainer of ours. Clients post batches of
(prompt, completion) items to it (training.external); each batch is kept
under the client's key, so a retried batch renders and stores nothing twice,
and each item is a Sketch and Render of origin rollout, which joins the
grading queue."""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.urls import reverse

from pool.models import RewardModel
from sketches.brush_api import DEFAULT_BRUSH
from sketches.models import Render, Sketch

from .base import RewardJudges
from .runs import TrainingRun
from .scoring import Rubric


class ExternalRun(RewardJudges):
    class Status(models.TextChoices):
        DRAFT = "draft", "draft (not serving)"
        OPEN = "open", "open (serving rewards)"
        CLOSED = "closed", "closed"

    name = models.SlugField(
        max_length=80, unique=True,
        help_text="What the client names in its URL: /api/v1/external-runs/<name>/rewards.")
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="+")
    seed = models.IntegerField(
        default=0, help_text="With the client's step and group key, the seed every item of a "
                             "group renders at: one seed per group, a new one each step.")
    brush = models.CharField(
        max_length=4, choices=TrainingRun.Brush.choices, default=DEFAULT_BRUSH,
        verbose_name="p5.brush", help_text="The p5.brush version items render with.")
    yardstick = models.ForeignKey(
        RewardModel, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Scores every item against fixed pool references, for the overoptimisation "
                  "curve: a reward model trained disjoint from the judge's, or the gold judge. "
                  "Optional; it adds a local-model comparison per item and reference.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.DRAFT,
                              db_index=True)
    # Frozen when opened: the rubric's signal list and the signals dropped
    # because the judges could never answer them ({name, kind, weight, reason}).
    signals = models.JSONField(default=list, blank=True, editable=False)
    dropped_signals = models.JSONField(default=list, blank=True, editable=False)
    # Frozen when opened, with a yardstick: {"yardstick": plan.yardstick_launched,
    # "references": [pool member ids]}, the same references for every batch.
    yardstick_plan = models.JSONField(null=True, blank=True, editable=False)
    opened = models.DateTimeField(null=True, blank=True, editable=False)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created"]
        permissions = [("score_externalrun", "Can post batches to an external run for rewards")]

    def __str__(self) -> str:
        return f"external run {self.name}"

    def get_absolute_url(self) -> str:
        return reverse("training:external_run", args=[self.name])


class ExternalBatch(models.Model):
    """One batch a client posted, under its own key: the answer to a retry."""

    class Status(models.TextChoices):
        SCORING = "scoring", "scoring"
        DONE = "done", "done"

    run = models.ForeignKey(ExternalRun, on_delete=models.CASCADE, related_name="batches")
    client_key = models.CharField(max_length=100)
    # What the batch held (its step and items), so a key sent again with
    # other items is refused rather than answered with the first's rewards.
    content_sha256 = models.CharField(max_length=64)
    step = models.IntegerField(null=True, blank=True, help_text="The client's step number.")
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.SCORING)
    size = models.PositiveIntegerField()
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
        constraints = [models.UniqueConstraint(fields=["run", "client_key"],
                                               name="one_external_batch_per_client_key")]


class ExternalItem(models.Model):
    """One scored completion of a batch."""

    batch = models.ForeignKey(ExternalBatch, on_delete=models.CASCADE, related_name="items")
    index = models.PositiveIntegerField()
    group = models.CharField(max_length=200, blank=True)
    prompt = models.TextField()
    sketch = models.ForeignKey(Sketch, null=True, on_delete=models.SET_NULL, related_name="+")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    # Signal name -> value (None: not computed); total None where any weighted
    # signal is missing, as a run's rollouts (training.reward.rubric).
    signals = models.JSONField(default=dict)
    total = models.FloatField(null=True)
    # The run's yardstick on this item (None: no yardstick, or no score).
    yardstick = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["batch", "index"]
        constraints = [models.UniqueConstraint(fields=["batch", "index"],
                                               name="one_external_item_per_index")]
