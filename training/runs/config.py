"""A run's GRPO settings as one object: checked once, frozen at launch
(TrainingRun.launched_config["grpo"]), read by the engine on the worker.

One flat dataclass, its sections in the order of the admin's GRPO fieldset
(one fieldset holds them all): the stored launched configs are flat
dictionaries, so a flat object reads and writes them as they are.

No field has a default: TrainingRun's fields hold the defaults a new run
starts from, and a launched config missing a setting is refused rather than
filled in (the learning-rate default has changed twice: filling it in would
change what a resume trains).
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from ..models import TrainingRun


class GRPOConfigError(ValueError):
    """Settings a run cannot train with; `problems` names each, with its values."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class GRPOConfig:
    """One run's GRPO settings (TrainingRun's help texts say what each does)."""

    # --- the batch: one optimizer step is one generation batch ----------------
    num_generations: int  # rollouts per prompt (a group): GRPO compares them
    prompts_per_step: int  # groups per step
    max_steps: int
    # --- optimisation ---------------------------------------------------------
    learning_rate: float
    lr_schedule: str  # "constant", "linear" or "cosine"
    warmup_steps: int
    # --- sampling -------------------------------------------------------------
    max_completion_length: int  # tokens
    temperature: float
    # --- the objective --------------------------------------------------------
    scale_rewards: str  # "group", "batch" or "none" (Dr. GRPO)
    beta: float  # KL penalty; 0 loads no reference model
    # --- what learns ----------------------------------------------------------
    lora: bool  # LoRA adapters, not all weights
    lora_rank: int  # read only when lora
    # --- the run --------------------------------------------------------------
    seed: int
    device: str  # "auto", "cpu" or "cuda"
    save_steps: int  # a checkpoint every N steps

    def __post_init__(self):
        problems = self.problems()
        if problems:
            raise GRPOConfigError(problems)

    def problems(self) -> list[str]:
        """Every reason these settings cannot train, each naming its values."""
        problems = []
        if self.num_generations < 2:
            problems.append(f"num_generations is {self.num_generations}: GRPO compares "
                            "rollouts of one prompt, so it needs at least 2")
        for name in ("prompts_per_step", "max_steps", "save_steps", "max_completion_length"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1, got {getattr(self, name)}")
        for name in ("learning_rate", "temperature"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value > 0):
                problems.append(f"{name} must be positive, got {value}")
        if not (math.isfinite(self.beta) and self.beta >= 0):
            problems.append(f"beta must be 0 or more, got {self.beta}")
        if self.warmup_steps < 0:
            problems.append(f"warmup_steps must be 0 or more, got {self.warmup_steps}")
        if self.warmup_steps > self.max_steps:
            problems.append(f"warmup_steps ({self.warmup_steps}) exceeds max_steps "
                            f"({self.max_steps})")
        if self.lora and self.lora_rank < 1:
            problems.append(f"lora_rank must be at least 1 when lora is on, got {self.lora_rank}")
        for name, allowed in (("lr_schedule", TrainingRun.Schedule.values),
                              ("scale_rewards", TrainingRun.ScaleRewards.values),
                              ("device", TrainingRun.Device.values)):
            if getattr(self, name) not in allowed:
                problems.append(f"{name} must be one of {', '.join(allowed)}, "
                                f"got {getattr(self, name)!r}")
        return problems

    @property
    def batch_size(self) -> int:
        """Rollouts per step: whole groups, so always a multiple of num_generations."""
        return self.prompts_per_step * self.num_generations

    @classmethod
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_run(cls, run: TrainingRun) -> GRPOConfig:
        """The run's settings as they are now (a draft's, at launch)."""
        return cls(**{name: getattr(run, name) for name in cls.names()})

    @classmethod
    def from_dict(cls, values: dict) -> GRPOConfig:
        """Settings as launched_config["grpo"] stores them; unknown or missing
        keys are refused."""
        known = set(cls.names())
        unknown, missing = set(values) - known, known - set(values)
        if unknown or missing:
            raise GRPOConfigError([f"launched GRPO settings: unknown {sorted(unknown)}, "
                                   f"missing {sorted(missing)}"])
        return cls(**values)

    @classmethod
    def from_launched(cls, launched_config: dict) -> GRPOConfig:
        """What a launched run trains with: never the run's live fields, so
        editing a run after launch cannot change what a resume trains."""
        return cls.from_dict(launched_config["grpo"])

    def to_dict(self) -> dict:
        return asdict(self)
