"""Reference calibrations: how often a policy's rollouts beat each member
of a pool snapshot (training.calibration measures them; the pool keeps
the band rule and the derive)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from jobs.models import Job
from pool.models import PoolMember, PoolSnapshot

from .runs import TrainingRun


class Calibration(Job):
    """How often a policy's rollouts beat each member of a snapshot, as a
    judge sees it (pool.band says why it matters, and keeps the band
    rule and the derive). Measured by a job on the train worker
    (training.calibration), or by a run that re-calibrates as it trains (its
    `run` and `step`); `config` records the policy, judge and sampling it
    used by value, so the pool's pages show it through the snapshot's
    `calibrations` without reading the training app's other rows. The table
    is the one the pool app created (db_table): moving the model here moved
    no data (migration 0017)."""

    snapshot = models.ForeignKey(PoolSnapshot, on_delete=models.CASCADE,
                                 related_name="calibrations")
    run = models.ForeignKey(
        TrainingRun, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="calibrations",
        help_text="The run whose policy it measured: a re-calibration's, or the run whose "
                  "trained policy a job sampled.")
    step = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="A run's re-calibration: the step whose rollouts it measured.")
    config = models.JSONField(
        default=dict, blank=True,
        help_text="The policy, judge, prompts and sampling it measured with; a run's "
                  "re-calibration also its band and the references it kept.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

    class Meta(Job.Meta):
        verbose_name = "reference calibration"
        db_table = "pool_calibration"

    @property
    def label(self) -> str:
        """The policy and judge, as the pages name the calibration."""
        config = self.config or {}
        policy = (config.get("policy") or {}).get("label", "a policy")
        judge = (config.get("judge") or {}).get("name", "a judge")
        return f"{policy}, judged by {judge}"

    def __str__(self) -> str:
        return f"Calibration {self.pk} of {self.snapshot}"


class MemberWinRate(models.Model):
    """One member's result in a calibration: how many comparisons with the
    policy's rollouts were asked and answered, and the rollouts' summed win
    probability (a judge answers 0 to 1; 0.5 is a tie)."""

    calibration = models.ForeignKey(Calibration, on_delete=models.CASCADE,
                                    related_name="win_rates")
    member = models.ForeignKey(PoolMember, on_delete=models.CASCADE, related_name="win_rates")
    asked = models.PositiveIntegerField(help_text="Comparisons asked of the judge.")
    answered = models.PositiveIntegerField(help_text="Comparisons the judge answered.")
    wins = models.FloatField(help_text="The rollouts' summed win probability.")
    win_rate = models.FloatField(
        null=True, help_text="How often the policy beats this member: wins / answered; "
                             "None when the judge answered nothing.")

    class Meta:
        db_table = "pool_memberwinrate"
        ordering = ["calibration", "member"]
        constraints = [models.UniqueConstraint(fields=["calibration", "member"],
                                               name="win_rate_once_per_member")]

    def __str__(self) -> str:
        rate = "-" if self.win_rate is None else f"{self.win_rate:.2f}"
        return f"member {self.member_id}: {rate} over {self.answered}"
