"""Builds of a policy from the painter corpus (training.policy.job): a job
of the one runner, so a build is listed, cancelled and timed as every job
is, and its row is the record of how it went."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from jobs.models import LIVE, Job


class PolicyBuild(Job):
    """One build of a policy into folder `out` (`manage.py bootstrap_policy`,
    here or, with --queue, on the train worker). Its progress holds the
    phase in words (`message`), SFT's share done, step, loss and its own
    seconds (`sft_elapsed_s`: the time left is measured at SFT's pace, not
    from the build's start, which spends minutes on the corpus)."""

    out = models.CharField(max_length=500, help_text="The policy folder it writes.")
    options = models.JSONField(
        default=dict, blank=True,
        help_text="The options it was asked for (bootstrap_policy's; the rest are the "
                  "size's recipe).")
    record = models.JSONField(
        default=dict, blank=True,
        help_text="What the build measured (paintrl_policy.json's summary): steps, loss, "
                  "parameters, the gate's evaluation.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

    class Meta(Job.Meta):
        verbose_name = "policy build"
        constraints = [
            # Two builds writing one folder would race for its final rename.
            models.UniqueConstraint(fields=["out"], condition=models.Q(status__in=LIVE),
                                    name="policy_build_one_live_per_folder")]

    def __str__(self) -> str:
        return f"policy build {self.pk} ({self.out})"
