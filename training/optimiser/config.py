"""A prompt optimisation's settings as one object: checked at launch, frozen
into PromptOptimisation.launched_config["settings"] as a run's GRPO settings
are, and read by the worker (job.py), so a row edited after its launch
changes nothing about the job. Its candidates are sampled with
SamplingConfig's settings, which this extends."""
from __future__ import annotations

from dataclasses import dataclass

from django.db import models

from ..config_base import ConfigError, setting, settings_model
from ..sampling.config import SamplingConfig

BUDGET = "Reflection and budget"


class OptimisationConfigError(ConfigError):
    """Settings a prompt optimisation cannot run with; `problems` names each."""


@dataclass(frozen=True, kw_only=True)
class OptimisationConfig(SamplingConfig):
    error = OptimisationConfigError
    stored_as = "stored prompt optimisation settings"

    max_metric_calls: int = setting(BUDGET, models.PositiveIntegerField(
        default=60, help_text="GEPA's budget: one metric call scores one prompt (its samples) "
                              "for one candidate. The seed alone takes one per prompt."))
    minibatch_size: int = setting(BUDGET, models.PositiveSmallIntegerField(
        default=3, help_text="Prompts GEPA reflects on, and tries a new candidate on, each "
                             "iteration."))
    samples_per_prompt: int = setting(BUDGET, models.PositiveSmallIntegerField(
        default=2, help_text="Samples of each prompt a candidate is scored on (their mean)."))
    seed: int = setting(BUDGET, models.IntegerField(
        default=0, help_text="Seeds GEPA's choices and each prompt's samples and render: every "
                             "candidate is sampled at the same seeds."))

    def problems(self) -> list[str]:
        problems = super().problems()  # the sampling settings'
        if self.samples_per_prompt < 1:
            problems.append("samples_per_prompt must be at least 1")
        if self.minibatch_size < 1:
            problems.append(f"minibatch_size must be at least 1, got {self.minibatch_size}")
        return problems

    def budget_problems(self, prompts: int) -> list[str]:
        """What the prompt set's size makes of the budget."""
        problems = []
        if prompts and self.minibatch_size > prompts:
            problems.append(f"minibatch_size {self.minibatch_size} must be between 1 and the "
                            f"prompt set's {prompts} prompts")
        # The seed is scored on every prompt before the first iteration; an
        # iteration then scores the parent and the new candidate on a minibatch.
        least = prompts + 2 * self.minibatch_size
        if prompts and self.max_metric_calls < least:
            problems.append(
                f"max_metric_calls {self.max_metric_calls} leaves no iteration: scoring the "
                f"seed takes {prompts} (one per prompt) and an iteration "
                f"{2 * self.minibatch_size} (twice minibatch_size {self.minibatch_size}); "
                f"give at least {least}")
        return problems

    @classmethod
    def launched(cls, job) -> OptimisationConfig:
        """What `job` runs with: the settings frozen at its launch, or for a job
        launched before they were, its row's (what its worker read then)."""
        stored = (job.launched_config or {}).get("settings")
        return cls.of(job) if stored is None else cls.from_dict(stored)


# The fields a prompt optimisation's row inherits, one a setting.
OptimisationSettings = settings_model(
    OptimisationConfig, name="OptimisationSettings", module=__name__,
    doc="A prompt optimisation's budget and sampling settings (OptimisationConfig).")
