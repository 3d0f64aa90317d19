"""What several of the app's models share: a name versioned per row
(rubrics, system prompts) and the judges a job scores with. (The settings a
job's row holds are built from its config's declarations:
training.config_base.settings_model.)"""
from __future__ import annotations

from django.db import models
from django.db.models import Max

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
