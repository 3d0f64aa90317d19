"""A calibration job's settings as one object: checked once at launch, frozen
into training.models.Calibration.config, read by the worker (job.py). Its
rollouts are sampled with SamplingConfig's settings, which this extends.

The policy and judge are recorded by value (label, path; id, name,
backend): the pool shows a calibration without reading the training app's
rows, and the worker refuses a judge row deleted since the launch."""
from __future__ import annotations

from dataclasses import dataclass

from django.core.validators import MaxValueValidator
from django.db import models

from pool.band import PER_MEMBER

from ..config_base import ConfigError, setting
from ..sampling.conf import Renders
from ..sampling.config import SamplingConfig

JOB = "Calibration"

# The calibration's own settings a person chooses at launch (its form's, and
# calibration_launch's keywords beside sampling's); the rest the launch derives.
CHOSEN = ("samples_per_prompt", "per_member", "seed")

# What the launch stores beside the settings in Calibration.config (the
# prompt set's name, the package versions, when): read by the pages, not here.
RECORDED = ("prompt_set", "versions", "launched")


class CalibrationConfigError(ConfigError):
    """Settings a calibration cannot run with; `problems` names each, with its values."""


@dataclass(frozen=True, kw_only=True)
class CalibrationConfig(SamplingConfig):
    error = CalibrationConfigError
    stored_as = "stored calibration settings"

    # --- what is measured ---------------------------------------------------
    # {"label", "path", "run"}: the folder training.policy.policy_load reads
    policy: dict = setting(JOB)
    judge: dict = setting(JOB)  # {"id", "name", "backend"}: a Judge row that compares
    # --- the policy's rollouts (and SamplingConfig's settings) --------------
    prompts: list[str] = setting(JOB)
    system_prompt: dict = setting(JOB)  # {"id", "label", "text"}
    # The upper bounds keep one calibration to minutes on the train worker.
    samples_per_prompt: int = setting(JOB, models.PositiveSmallIntegerField(
        validators=[MaxValueValidator(64)],
        help_text="Rollouts of each prompt, drawn at the prompt's seed."), default=4)
    # the worker's browsers, or "fleet" (PAINTRL_RUN_RENDERS)
    renders: str = setting(JOB, models.CharField(max_length=10, choices=Renders.choices),
                           before="process")
    # --- the comparisons ----------------------------------------------------
    per_member: int = setting(JOB, models.PositiveSmallIntegerField(
        validators=[MaxValueValidator(256)],
        help_text="Rollouts each reference meets, its own subject's first. A hosted judge is "
                  "asked members x this many times."),
        default=PER_MEMBER, label="comparisons per member")
    seed: int = setting(JOB, models.IntegerField(
        help_text="The prompts' sampling and render seeds, and who meets whom."), default=0)

    def problems(self) -> list[str]:
        problems = super().problems()  # the sampling settings'
        if not self.prompts or not all(isinstance(p, str) and p.strip() for p in self.prompts):
            problems.append("the prompt set needs a non-empty list of non-empty prompts")
        if self.samples_per_prompt < 1:
            problems.append(f"samples_per_prompt must be at least 1, got "
                            f"{self.samples_per_prompt}")
        if self.per_member < 1:
            problems.append(f"comparisons per member must be at least 1, got {self.per_member}")
        return problems

    @property
    def rollouts(self) -> int:
        return len(self.prompts) * self.samples_per_prompt

    @classmethod
    def from_stored(cls, data: dict) -> CalibrationConfig:
        """The settings in Calibration.config, without what the launch recorded beside them."""
        return cls.from_dict({key: value for key, value in data.items() if key not in RECORDED})
