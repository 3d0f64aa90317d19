"""Training runs: the run, its steps and rollouts, and its probes (the
policy sampled at fixed prompts and seeds, scored by a yardstick)."""
from __future__ import annotations

from django.db import models

from pool.models import RewardModel
from sketches.models import Render, Sketch

from ..runs.config import (
    Bf16,
    Brush,
    Device,
    Renders,
    ReportTo,
    RunSettings,
    ScaleRewards,
    Schedule,
    VllmMode,
)
from .base import LaunchedJob
from .prompts import PromptSet, SystemPrompt
from .scoring import Rubric


class TrainingRun(LaunchedJob, RunSettings):
    """A GRPO run: what it trains, against what, with which settings (its
    GRPO and sampling settings' fields come from RunConfig's declarations,
    through RunSettings), and where it has got to. Launched, cancelled, resumed and cloned from the
    admin; run by training.runs on the train worker. A run exists as a draft
    before it is queued; its worker holds it by a lease (`worker`, refreshed
    `heartbeat`), and a failed, cancelled or stalled run may be resumed."""

    # The settings' choices, declared with RunConfig (training.runs.config).
    Schedule, ScaleRewards, Device, VllmMode = Schedule, ScaleRewards, Device, VllmMode
    Bf16, Renders, Brush, ReportTo = Bf16, Renders, Brush, ReportTo

    prompt_set = models.ForeignKey(PromptSet, on_delete=models.PROTECT, related_name="runs")
    system_prompt = models.ForeignKey(SystemPrompt, on_delete=models.PROTECT,
                                      related_name="runs")
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="runs")
    # Evaluation: a fixed probe scored by an independent yardstick (runs/probe)
    probe_every = models.PositiveIntegerField(
        default=0,
        help_text="Sample the policy on fixed prompts at fixed seeds at step 0 and every N "
                  "steps, scored by the yardstick against fixed pool references; 0: no probe. "
                  "A probe costs about one default step's generation and renders: every 5 "
                  "steps adds at most a fifth (proposed when a yardstick exists).")
    # References that still teach (pool.band; training.calibration.recalibrate)
    recalibrate_every = models.PositiveIntegerField(
        default=0,
        help_text="Every N steps, measure how often the step's rollouts beat each member of the "
                  "snapshot (the run's judge) and draw the next steps' pairwise references "
                  "only from those in the band; 0: off, every member is drawn. With a hosted "
                  "judge it costs members x 8 requests each time.")
    calibration_band_low = models.FloatField(
        default=0.25, help_text="The band's low end: a member the rollouts beat less often "
                                "than this is left out (they nearly never win against it).")
    calibration_band_high = models.FloatField(
        default=0.75, help_text="The band's high end: a member beaten more often is left out.")
    yardstick = models.ForeignKey(
        RewardModel, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Scores the probe: a reward model trained disjoint from the judge's (Reward "
                  "models: the action \"Train a yardstick disjoint from the selected model\").")
    # State (and LaunchedJob's)
    checkpoint_step = models.PositiveIntegerField(
        default=0, help_text="The last step with a saved checkpoint (0: none).")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="clones", help_text="The run this was cloned from.")

    def __str__(self) -> str:
        return self.name or f"run {self.pk}"


class TrainingStep(models.Model):
    """What one GRPO step did, stored as it happens."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="steps")
    step = models.PositiveIntegerField()
    reward_mean = models.FloatField(null=True)
    reward_std = models.FloatField(null=True)
    zero_spread_groups = models.FloatField(
        null=True, help_text="Share of groups whose rollouts all got the same total.")
    no_total = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="Rollouts with no total (a weighted signal missing), left out of their "
                  "group; null for steps stored before it was counted.")
    signals = models.JSONField(default=dict,
                               help_text="Per signal name: mean, std, missing (None count).")
    completion_tokens = models.JSONField(default=dict, help_text="mean, min, max.")
    gate_pass = models.FloatField(null=True, help_text="Share of rollouts the gate passed.")
    yardstick_mean = models.FloatField(
        null=True, blank=True,
        help_text="The probe's yardstick on this step's rollouts: their mean win rate against "
                  "the probe's references, a rejected one 0 (runs with a probe).")
    unknown_method_rate = models.FloatField(
        null=True, help_text="Share of rollouts calling a brush method that does not exist.")
    metrics = models.JSONField(default=dict, help_text="The trainer's log: loss, kl, entropy...")
    times = models.JSONField(default=dict,
                             help_text="Seconds: generate, render, judge, update, total.")
    render_workers = models.JSONField(
        default=dict, blank=True,
        help_text="Which render workers rendered this step's rollouts: {worker: rollouts}.")
    calibration = models.JSONField(
        default=dict, blank=True,
        help_text="A re-calibrating run: the calibration its references came from, how many "
                  "it drew from, and whether this step measured a new one.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"],
                                               name="training_step_unique")]


class Rollout(models.Model):
    """One completion of one step: its sketch and render (which join the
    grading queue as origin "rollout"), its signal values and reward."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="rollouts")
    step = models.PositiveIntegerField()
    group = models.PositiveSmallIntegerField(help_text="Which prompt of the step.")
    index = models.PositiveSmallIntegerField(help_text="Which generation of the group.")
    prompt = models.TextField()
    sketch = models.ForeignKey(Sketch, null=True, on_delete=models.SET_NULL, related_name="+")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    values = models.JSONField(default=dict, help_text="Signal values by signal key.")
    total = models.FloatField(null=True)
    advantage = models.FloatField(null=True)
    tokens = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "step", "group", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "step", "group", "index"],
                                               name="rollout_unique")]


class Probe(models.Model):
    """The policy sampled at one step on the run's fixed probe prompts and
    seeds (launched_config["probe"]), each sample rendered and scored by the
    run's yardstick: the "is it learning" curve that does not hang on the
    prompts a step drew, nor on the judge the policy optimises."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="probes")
    step = models.PositiveIntegerField(help_text="Optimizer steps taken before it (0: none).")
    times = models.JSONField(default=dict,
                             help_text="Seconds: generate, render, score, store, total.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="probe_unique")]


class ProbeSample(models.Model):
    """One sample of one probe prompt: its sketch and render (stored as a
    rollout's are) and the yardstick's score."""

    probe = models.ForeignKey(Probe, on_delete=models.CASCADE, related_name="samples")
    prompt_index = models.PositiveSmallIntegerField(help_text="Which of the probe's prompts.")
    index = models.PositiveSmallIntegerField(help_text="Which sample of the prompt.")
    prompt = models.TextField()
    sketch = models.ForeignKey(Sketch, null=True, on_delete=models.SET_NULL, related_name="+")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    score = models.FloatField(
        null=True, help_text="Mean win probability against the probe's references; 0 for a "
                             "sketch the gate rejected; null where the render was unavailable.")
    tokens = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["probe", "prompt_index", "index"]
        constraints = [models.UniqueConstraint(fields=["probe", "prompt_index", "index"],
                                               name="probe_sample_unique")]
