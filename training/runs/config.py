"""A run's GRPO settings as one object: checked once, frozen at launch
(TrainingRun.launched_config["grpo"]), read by the engine on the worker.

Each setting is one field (training.config_base.setting): its admin section
(SECTIONS), the TRL argument it reaches as it is (engine.grpo_args), and for
a setting added after runs were launched without it, what those runs
trained with (LAUNCHED_BEFORE: not necessarily today's default) all follow
from that line. The sampling settings are SamplingConfig's, which this
extends. The stored configs are flat dictionaries, so the object is flat.

No field has a default: TrainingRun's fields hold the defaults a new run
starts from, and a launched config missing a setting is refused rather than
filled in (the learning-rate default has changed twice: filling it in would
change what a resume trains), but for those LAUNCHED_BEFORE holds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..config_base import ConfigError, sections, setting, stored_before
from ..models import TrainingRun
from ..sampling.config import SECTION as SAMPLING
from ..sampling.config import SamplingConfig

GRPO, SCALE = "GRPO", "Scale: GPUs, processes, renders, tracking"
RENDERING = "Rendering"


class RunConfigError(ConfigError):
    """Settings a run cannot train with; `problems` names each, with its values."""


@dataclass(frozen=True, kw_only=True)
class RunConfig(SamplingConfig):
    """One run's GRPO settings (TrainingRun's help texts say what each does).
    trl=None: grpo_args derives TRL's arguments from it, or TRL never sees it."""

    error = RunConfigError
    stored_as = "launched GRPO settings"

    # --- the batch: one optimizer step is one generation batch ----------------
    # rollouts per prompt (a group): GRPO compares them
    num_generations: int = setting(GRPO, trl="num_generations")
    prompts_per_step: int = setting(GRPO)  # groups per step (TRL's batch: micro_batch_size)
    max_steps: int = setting(GRPO, trl="max_steps")
    # --- optimisation ---------------------------------------------------------
    learning_rate: float = setting(GRPO, trl="learning_rate")
    lr_schedule: str = setting(GRPO)  # "constant", "linear" or "cosine" (engine.SCHEDULES)
    warmup_steps: int = setting(GRPO, trl="warmup_steps")
    # --- the objective --------------------------------------------------------
    # "group", "batch" or "none" (Dr. GRPO)
    scale_rewards: str = setting(GRPO, trl="scale_rewards")
    beta: float = setting(GRPO, trl="beta")  # KL penalty; 0 loads no reference model
    # --- what learns ----------------------------------------------------------
    lora: bool = setting(GRPO)  # LoRA adapters, not all weights (engine.lora_config)
    lora_rank: int = setting(GRPO)  # read only when lora
    # --- the run --------------------------------------------------------------
    seed: int = setting(GRPO, trl="seed")
    device: str = setting(GRPO)  # "auto", "cpu" or "cuda" (TRL's use_cpu)
    save_steps: int = setting(GRPO, trl="save_steps")  # a checkpoint every N steps
    # --- rendering --------------------------------------------------------------
    # The p5.brush the rollouts and the probe render with, and whose method
    # list the gate checks: "2", "1" or "auto" (each sketch by its calls).
    # Runs launched before it existed rendered with 2.x.
    brush: str = setting(RENDERING, before="2")
    # --- scale: GPUs, processes, renders, tracking -----------------------------
    # Runs launched before these existed trained in one process with
    # transformers' generate, no checkpointing or accumulation, bf16 where the
    # GPU had it, renders in the train worker's browsers, no tracker.
    use_vllm: bool = setting(SCALE, trl="use_vllm", before=False)  # generate with vLLM
    vllm_mode: str = setting(SCALE, trl="vllm_mode", before="colocate")  # or "server"
    # read only in server mode
    vllm_server_host: str = setting(SCALE, trl="vllm_server_host", before="127.0.0.1")
    vllm_server_port: int = setting(SCALE, trl="vllm_server_port", before=8000)
    # read only in colocate mode
    vllm_gpu_memory_utilization: float = setting(SCALE, trl="vllm_gpu_memory_utilization",
                                                 before=0.3)
    # transformers 5 renamed it activation_checkpointing
    gradient_checkpointing: bool = setting(SCALE, trl="activation_checkpointing", before=False)
    # micro-batches per optimizer step
    gradient_accumulation_steps: int = setting(SCALE, trl="gradient_accumulation_steps",
                                               before=1)
    bf16: str = setting(SCALE, before="auto")  # "auto", "on" or "off" (engine.bf16_on)
    # `accelerate launch --num_processes`; 1: in the worker's process (supervisor.py)
    processes: int = setting(SCALE, before=1)
    # an accelerate config file on the train worker; "": none (supervisor.py)
    accelerate_config: str = setting(SCALE, before="")
    # "process" (the train worker's browsers) or "fleet" (the render queue)
    renders: str = setting(SCALE, before="process")
    report_to: str = setting(SCALE, trl="report_to", before="none")  # "none" or a tracker

    def problems(self) -> list[str]:
        """Every reason these settings cannot train, each naming its values."""
        problems = super().problems()  # the sampling settings'
        if self.num_generations < 2:
            problems.append(f"num_generations is {self.num_generations}: GRPO compares "
                            "rollouts of one prompt, so it needs at least 2")
        for name in ("prompts_per_step", "max_steps", "save_steps"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1, got {getattr(self, name)}")
        if not (math.isfinite(self.learning_rate) and self.learning_rate > 0):
            problems.append(f"learning_rate must be positive, got {self.learning_rate}")
        if not (math.isfinite(self.beta) and self.beta >= 0):
            problems.append(f"beta must be 0 or more, got {self.beta}")
        if self.warmup_steps < 0:
            problems.append(f"warmup_steps must be 0 or more, got {self.warmup_steps}")
        if self.warmup_steps > self.max_steps:
            problems.append(f"warmup_steps ({self.warmup_steps}) exceeds max_steps "
                            f"({self.max_steps})")
        for name in ("gradient_accumulation_steps", "processes"):
            if getattr(self, name) < 1:
                problems.append(f"{name} must be at least 1, got {getattr(self, name)}")
        slices = self.processes * self.gradient_accumulation_steps
        if slices >= 1 and self.batch_size % slices:
            problems.append(
                f"the batch ({self.prompts_per_step} prompts x {self.num_generations} "
                f"generations = {self.batch_size}) must split evenly into processes "
                f"({self.processes}) x gradient_accumulation_steps "
                f"({self.gradient_accumulation_steps}) = {slices} micro-batches")
        if not (0 < self.vllm_gpu_memory_utilization <= 1):
            problems.append("vllm_gpu_memory_utilization is a share of a GPU: more than 0 and "
                            f"at most 1, got {self.vllm_gpu_memory_utilization}")
        if not 1 <= self.vllm_server_port <= 65535:
            problems.append(f"vllm_server_port must be a TCP port, got {self.vllm_server_port}")
        if self.use_vllm and self.vllm_mode == "server" and not self.vllm_server_host.strip():
            problems.append("vLLM server mode needs vllm_server_host")
        if self.use_vllm and self.device == "cpu":
            problems.append("use_vllm needs a CUDA GPU, and device is cpu")
        if self.lora and self.lora_rank < 1:
            problems.append(f"lora_rank must be at least 1 when lora is on, got {self.lora_rank}")
        for name, allowed in (("lr_schedule", TrainingRun.Schedule.values),
                              ("scale_rewards", TrainingRun.ScaleRewards.values),
                              ("device", TrainingRun.Device.values),
                              ("vllm_mode", TrainingRun.VllmMode.values),
                              ("bf16", TrainingRun.Bf16.values),
                              ("renders", TrainingRun.Renders.values),
                              ("brush", TrainingRun.Brush.values),
                              ("report_to", TrainingRun.ReportTo.values)):
            if getattr(self, name) not in allowed:
                problems.append(f"{name} must be one of {', '.join(allowed)}, "
                                f"got {getattr(self, name)!r}")
        return problems

    @property
    def batch_size(self) -> int:
        """Rollouts per step: whole groups, so always a multiple of num_generations."""
        return self.prompts_per_step * self.num_generations

    @classmethod
    def from_run(cls, run: TrainingRun) -> RunConfig:
        """The run's settings as they are now (a draft's, at launch)."""
        return cls.of(run)

    def packages_missing(self) -> list[str]:
        """The settings that need a package this Python cannot import, each
        with how to install it (checked at launch, and again on the worker)."""
        from importlib.util import find_spec

        needs = [("use_vllm", "vllm")] if self.use_vllm else []
        if self.report_to != "none":
            needs.append((f"report_to {self.report_to}", TRACKER_PACKAGES[self.report_to]))
        return [f"{name} needs the {package} package (pip install {package})"
                for name, package in needs if find_spec(package) is None]

    @property
    def micro_batch_size(self) -> int:
        """Rollouts each process computes at once (TRL's per_device_train_batch_size)."""
        return self.batch_size // (self.processes * self.gradient_accumulation_steps)

    @property
    def distributed(self) -> bool:
        """Trained by `accelerate launch` in child processes, not in the worker's own."""
        return self.processes > 1 or bool(self.accelerate_config)

    @classmethod
    def from_launched(cls, launched_config: dict) -> RunConfig:
        """What a launched run trains with: never the run's live fields, so
        editing a run after launch cannot change what a resume trains."""
        return cls.from_dict(launched_config["grpo"])


# What runs launched before a setting existed trained with (the fields' `before`).
LAUNCHED_BEFORE = stored_before(RunConfig)

# report_to's trackers and the package each imports (TRL reports through transformers'
# integrations, which need it installed).
TRACKER_PACKAGES = {"tensorboard": "tensorboard", "trackio": "trackio", "wandb": "wandb"}

# The admin's fieldsets, one a section: the GRPO settings, how the rollouts
# are sampled and rendered, then the scale settings.
SECTIONS = sections(RunConfig, order=(GRPO, SAMPLING, RENDERING, SCALE))
