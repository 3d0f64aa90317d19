"""A run's GRPO settings as one object: checked once, frozen at launch
(TrainingRun.launched_config["grpo"]), read by the engine on the worker.

Each setting is one field (training.config_base.setting): the run's model
field (type, default, help, choices: TrainingRun inherits RunSettings, built
from these), its admin section (SECTIONS), its name on the compare page and
the run page's summary, the TRL argument it reaches as it is
(engine.grpo_args), and for a setting added after runs were launched
without it, what those runs trained with (LAUNCHED_BEFORE: not necessarily
today's default) all follow from that line. The sampling settings are
SamplingConfig's, which this extends. The stored configs are flat
dictionaries, so the object is flat.

No dataclass field has a default: the model fields hold the defaults a new
run starts from, and a launched config missing a setting is refused rather
than filled in (the learning-rate default has changed twice: filling it in
would change what a resume trains), but for those LAUNCHED_BEFORE holds.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from django.db import models

from sketches.brush_api import DEFAULT_BRUSH
from sketches.models import BRUSH_CHOICES

from ..config_base import ConfigError, sections, setting, settings_model, stored_before
from ..sampling.conf import Renders, renders_default
from ..sampling.config import SECTION as SAMPLING
from ..sampling.config import SamplingConfig

GRPO, SCALE = "GRPO", "Scale: GPUs, processes, renders, tracking"
RENDERING = "Rendering"


class Schedule(models.TextChoices):
    CONSTANT = "constant", "constant"
    LINEAR = "linear", "linear decay"
    COSINE = "cosine", "cosine"


class ScaleRewards(models.TextChoices):
    GROUP = "group", "by the group's std (GRPO)"
    BATCH = "batch", "by the batch's std"
    NONE = "none", "not scaled (Dr. GRPO)"


class Device(models.TextChoices):
    AUTO = "auto", "auto (GPU when there is one)"
    CPU = "cpu", "CPU"
    CUDA = "cuda", "CUDA GPU"


class VllmMode(models.TextChoices):
    COLOCATE = "colocate", "colocate (vLLM shares the training GPUs)"
    SERVER = "server", "server (`trl vllm-serve` on other GPUs)"


class Bf16(models.TextChoices):
    AUTO = "auto", "auto (bf16 where the GPU supports it)"
    ON = "on", "bf16"
    OFF = "off", "float32"


# The p5.brush a run's sketches render with (sketches.models.BRUSH_CHOICES: its pairs).
Brush = models.TextChoices("Brush", [(value, (value, label)) for value, label in BRUSH_CHOICES])


class ReportTo(models.TextChoices):
    NONE = "none", "none (the run page only)"
    TENSORBOARD = "tensorboard", "TensorBoard"
    TRACKIO = "trackio", "trackio"
    WANDB = "wandb", "Weights & Biases"


class RunConfigError(ConfigError):
    """Settings a run cannot train with; `problems` names each, with its values."""


@dataclass(frozen=True, kw_only=True)
class RunConfig(SamplingConfig):
    """One run's GRPO settings (each field's help text says what it does).
    trl=None: grpo_args derives TRL's arguments from it, or TRL never sees it."""

    error = RunConfigError
    stored_as = "launched GRPO settings"

    # --- the batch: one optimizer step is one generation batch ----------------
    num_generations: int = setting(GRPO, models.PositiveSmallIntegerField(
        default=8, help_text="Rollouts per prompt (a group)."),
        trl="num_generations", label="generations")
    # TRL's batch is derived from it (micro_batch_size)
    prompts_per_step: int = setting(GRPO, models.PositiveSmallIntegerField(
        default=1, help_text="Groups per step: the batch is this times num_generations."))
    max_steps: int = setting(GRPO, models.PositiveIntegerField(default=30), trl="max_steps",
                             label="steps")
    # --- optimisation ---------------------------------------------------------
    learning_rate: float = setting(GRPO, models.FloatField(
        default=3e-4, help_text="3e-4 suits the built-in tiny policy (benchmarks/grpo_bench.py); "
                                "a full-size checkpoint wants about 1e-6 to 1e-5."),
        trl="learning_rate")
    # TRL's lr_scheduler_type is derived from it (engine.SCHEDULES)
    lr_schedule: str = setting(GRPO, models.CharField(
        max_length=10, choices=Schedule.choices, default=Schedule.CONSTANT),
        label="schedule")
    warmup_steps: int = setting(GRPO, models.PositiveIntegerField(default=0),
                                trl="warmup_steps", label="warmup")
    # --- the objective --------------------------------------------------------
    scale_rewards: str = setting(GRPO, models.CharField(
        max_length=10, choices=ScaleRewards.choices, default=ScaleRewards.GROUP),
        trl="scale_rewards")
    beta: float = setting(GRPO, models.FloatField(
        default=0.0, help_text="KL penalty; 0 loads no reference model."), trl="beta")
    # --- what learns ----------------------------------------------------------
    lora: bool = setting(GRPO, models.BooleanField(
        default=False, help_text="Train LoRA adapters, not all weights."),
        label="LoRA")  # engine.lora_config
    lora_rank: int = setting(GRPO, models.PositiveSmallIntegerField(default=16),
                             label="LoRA rank")  # read only when lora
    # --- the run --------------------------------------------------------------
    seed: int = setting(GRPO, models.IntegerField(default=0), trl="seed")
    # TRL's use_cpu is derived from it
    device: str = setting(GRPO, models.CharField(max_length=10, choices=Device.choices,
                                                 default=Device.AUTO))
    save_steps: int = setting(GRPO, models.PositiveIntegerField(
        default=5, help_text="Checkpoint every N steps."), trl="save_steps",
        label="checkpoint every")
    # --- rendering --------------------------------------------------------------
    # Runs launched before it existed rendered with 2.x.
    brush: str = setting(RENDERING, models.CharField(
        max_length=4, choices=Brush.choices, default=DEFAULT_BRUSH, verbose_name="p5.brush",
        help_text="The p5.brush version the rollouts and the probe render with, and whose "
                  "methods the gate allows: 2 (the default, what the system prompts teach), "
                  "1 (bleed, setHatch, push...), or auto (each sketch by the calls it makes)."),
        before="2")
    # --- scale: GPUs, processes, renders, tracking -----------------------------
    # Runs launched before these existed trained in one process with
    # transformers' generate, no checkpointing or accumulation, bf16 where the
    # GPU had it, renders in the train worker's browsers, no tracker.
    use_vllm: bool = setting(SCALE, models.BooleanField(
        default=False, verbose_name="use vLLM",
        help_text="Generate with vLLM (a CUDA GPU and the vllm package on the train worker)."),
        trl="use_vllm", before=False)
    vllm_mode: str = setting(SCALE, models.CharField(
        max_length=10, choices=VllmMode.choices, default=VllmMode.COLOCATE,
        verbose_name="vLLM mode"), trl="vllm_mode", before="colocate")
    vllm_server_host: str = setting(SCALE, models.CharField(
        max_length=200, default="127.0.0.1", verbose_name="vLLM server host",
        help_text="Server mode: where `trl vllm-serve --model <the policy>` listens."),
        trl="vllm_server_host", before="127.0.0.1")
    vllm_server_port: int = setting(SCALE, models.PositiveIntegerField(
        default=8000, verbose_name="vLLM server port"),
        trl="vllm_server_port", before=8000)
    vllm_gpu_memory_utilization: float = setting(SCALE, models.FloatField(
        default=0.3, verbose_name="vLLM GPU memory share",
        help_text="Colocate mode: the share of each GPU vLLM takes (server mode: the server's "
                  "own --gpu-memory-utilization)."),
        trl="vllm_gpu_memory_utilization", before=0.3)
    # transformers 5 renamed it activation_checkpointing
    gradient_checkpointing: bool = setting(SCALE, models.BooleanField(
        default=False, help_text="Recompute activations in the backward pass: less GPU memory, "
                                 "about a third more compute."),
        trl="activation_checkpointing", before=False)
    gradient_accumulation_steps: int = setting(SCALE, models.PositiveSmallIntegerField(
        default=1, help_text="Micro-batches per optimizer step: each process computes "
                             "batch / (processes x this) rollouts at a time."),
        trl="gradient_accumulation_steps", before=1, label="micro-batches a step")
    # engine.bf16_on reads it
    bf16: str = setting(SCALE, models.CharField(max_length=4, choices=Bf16.choices,
                                                default=Bf16.AUTO, verbose_name="bf16"),
                        before="auto")
    # `accelerate launch --num_processes`; 1: in the worker's process (supervisor.py)
    processes: int = setting(SCALE, models.PositiveSmallIntegerField(
        default=1, help_text="Training processes (`accelerate launch`, one per GPU); 1 trains in "
                             "the train worker's own process."), before=1)
    # "": none (supervisor.py)
    accelerate_config: str = setting(SCALE, models.CharField(
        max_length=500, blank=True,
        help_text="An accelerate config file on the train worker (DeepSpeed, FSDP); blank: "
                  "plain data parallel."), before="")
    renders: str = setting(SCALE, models.CharField(
        max_length=10, choices=Renders.choices, default=renders_default,
        help_text="Where the rollouts render. The default comes from PAINTRL_RUN_RENDERS."),
        before="process")
    report_to: str = setting(SCALE, models.CharField(
        max_length=12, choices=ReportTo.choices, default=ReportTo.NONE,
        help_text="A tracker that also receives the run's metrics (its package installed on "
                  "the train worker); the run page stays the record."),
        trl="report_to", before="none")

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
        return problems

    @property
    def batch_size(self) -> int:
        """Rollouts per step: whole groups, so always a multiple of num_generations."""
        return self.prompts_per_step * self.num_generations

    @classmethod
    def from_run(cls, run) -> RunConfig:
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

# The fields a run's row inherits, one a setting (training.models.TrainingRun).
RunSettings = settings_model(RunConfig, name="RunSettings", module=__name__,
                             doc="A run's GRPO and sampling settings (RunConfig), on its row.")

# The admin's fieldsets, one a section: the GRPO settings, how the rollouts
# are sampled and rendered, then the scale settings.
SECTIONS = sections(RunConfig, order=(GRPO, SAMPLING, RENDERING, SCALE))
