"""How a policy's completions are drawn, as one object shared by every job
that samples one: a run's rollouts (training.runs.config.RunConfig extends
it), its probe, a prompt optimisation's candidates and a calibration's
rollouts. Each setting is declared here once, with the row's field that
holds the default a new job starts from (the jobs' rows inherit those
fields through their config's settings_model), so a config built from a
row is what that job samples with."""
from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import models

from ..config_base import Config, ConfigError, setting

SECTION = "Sampling"


class SamplingConfigError(ConfigError):
    """Sampling settings a job cannot draw with."""


@dataclass(frozen=True, kw_only=True)
class SamplingConfig(Config):
    """The sampling settings (module docstring). Completions are drawn as
    GRPO draws them: plain sampling at `temperature`, no top-k or top-p
    (samples.samples_generate; TRL's defaults for a run)."""

    error = SamplingConfigError
    stored_as = "stored sampling settings"

    # A completion is cut off at this many tokens (EOS included); a cut-off
    # sketch is unfinished code, which the gate then rejects.
    max_completion_length: int = setting(
        SECTION, models.PositiveIntegerField(default=512, help_text="In tokens."),
        trl="max_completion_length", label="max tokens")
    # Must be above 0: GRPO learns from the spread between a group's rollouts,
    # and greedy decoding (0) would draw the same one every time.
    temperature: float = setting(SECTION, models.FloatField(default=1.0), trl="temperature")
    # Keyword arguments for the tokenizer's chat template, e.g.
    # {"enable_thinking": false} for a Qwen3 checkpoint (its thinking would
    # eat the completion budget). Runs launched before it existed used none.
    chat_template_kwargs: dict = setting(
        SECTION, models.JSONField(
            default=dict, blank=True,
            help_text='Passed to the chat template, e.g. {"enable_thinking": false} for a Qwen3 '
                      "checkpoint (its thinking would eat the completion budget)."),
        trl="chat_template_kwargs", before={}, label="chat template")

    def problems(self) -> list[str]:
        problems = super().problems()
        if self.max_completion_length < 1:
            problems.append(f"max_completion_length must be at least 1, got "
                            f"{self.max_completion_length}")
        if not (math.isfinite(self.temperature) and self.temperature > 0):
            problems.append(f"temperature must be positive, got {self.temperature}")
        if not isinstance(self.chat_template_kwargs, dict) or not all(
                isinstance(key, str) for key in self.chat_template_kwargs):
            problems.append("chat_template_kwargs must be a JSON object, e.g. "
                            f'{{"enable_thinking": false}}, got {self.chat_template_kwargs!r}')
        return problems
