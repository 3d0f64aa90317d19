"""What several of the app's models share: a name versioned per row
(rubrics, system prompts), the judges a job scores with, and a job launched
from a draft (a run, a prompt optimisation). (The settings a job's row
holds are built from its config's declarations:
training.config_base.settings_model.)"""
from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Max

from jobs.models import Job, job_statuses
from pool.models import PoolSnapshot


class NextVersion:
    """For models versioned per name (rubrics, system prompts): saved with no
    version, a row takes the next version of its name. Two saves racing for
    the same number are stopped by the (name, version) unique constraint."""

    def save(self, *args, **kwargs):
        if self.version is None:
            latest = type(self)._default_manager.filter(name=self.name).aggregate(
                v=Max("version"))["v"]
            self.version = (latest or 0) + 1
        super().save(*args, **kwargs)

    def __str__(self) -> str:
        # "rev." so the rubric preset named v2 does not read "v2 v1".
        return f"{self.name} (rev. {self.version})"


class RewardJudges(models.Model):
    """Who scores a job's samples against its rubric: a run's, a prompt
    optimisation's (training.runs.services.choice_problems checks them)."""

    snapshot = models.ForeignKey(PoolSnapshot, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+", help_text="References for pairwise signals.")
    judge = models.ForeignKey("training.Judge", on_delete=models.PROTECT, related_name="+",
                              help_text="Answers pairwise and absolute questions.")
    scorer = models.ForeignKey("training.Judge", on_delete=models.PROTECT, related_name="+",
                               help_text="Gives the preference score.")
    drop_unanswerable = models.BooleanField(
        default=False, verbose_name="drop signals the judges cannot answer",
        help_text="Otherwise a rubric asking the judges a question they can never answer (the "
                  "local reward model: adherence, or anything without an active model) is "
                  "refused at launch. Dropped signals are shown on the run page with their "
                  "weight; the others' shares grow.")

    class Meta:
        abstract = True


class LaunchedJob(Job, RewardJudges):
    """A job that exists as a draft before it is launched: a run, a prompt
    optimisation. It is edited while a draft; its launch
    (training.launch.draft_launch) checks it, freezes what it will use into
    `launched_config` and queues it; its worker reads that, never the row's
    live fields. (A calibration has no draft: its launch creates its row,
    training.launch.job_launch.)"""

    Status = job_statuses(("DRAFT", "draft", "Draft"), qualname="LaunchedJob.Status",
                          module=__name__)

    name = models.CharField(max_length=120)
    base_model = models.CharField(
        max_length=500, blank=True,
        help_text="A local Hugging Face checkpoint folder; blank: the built-in tiny policy "
                  "(manage.py bootstrap_policy).")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT,
                              db_index=True)
    launched_config = models.JSONField(
        default=dict, blank=True,
        help_text="What the job used, copied at launch: rubric signals, prompts, policy path, "
                  "its settings; what else its kind needs (a run's system prompt, a prompt "
                  "optimisation's seed prompt and reflection endpoint).")
    dropped_signals = models.JSONField(
        default=list, blank=True,
        help_text="Signals dropped at launch because the judges could never answer them: "
                  "[{name, kind, weight, reason}]. Totals are computed without them.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

    class Meta(Job.Meta):
        abstract = True
