"""A run's GRPO settings as one object: checked once, frozen at launch
(TrainingRun.launched_config["grpo"]), read by the engine on the worker.

One flat dataclass (the stored launched configs are flat dictionaries, so a
flat object reads and writes them as they are), its fields in SECTIONS'
order: the admin shows one fieldset a section.

No field has a default: TrainingRun's fields hold the defaults a new run
starts from, and a launched config missing a setting is refused rather than
filled in (the learning-rate default has changed twice: filling it in would
change what a resume trains). The one exception is a setting added after
runs were launched without it: LAUNCHED_BEFORE holds what those runs trained
with, which is not necessarily today's default.
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
    # --- scale: GPUs, processes, renders, tracking -----------------------------
    use_vllm: bool  # generate with vLLM (TRL's use_vllm)
    vllm_mode: str  # "colocate" or "server"
    vllm_server_host: str  # read only in server mode
    vllm_server_port: int
    vllm_gpu_memory_utilization: float  # read only in colocate mode
    gradient_checkpointing: bool
    gradient_accumulation_steps: int  # micro-batches per optimizer step
    bf16: str  # "auto", "on" or "off"
    chat_template_kwargs: dict  # e.g. {"enable_thinking": False} for Qwen3
    processes: int  # `accelerate launch --num_processes`; 1: in the worker's process
    accelerate_config: str  # an accelerate config file on the train worker; "": none
    renders: str  # "process" (the train worker's browsers) or "fleet" (the render queue)
    report_to: str  # "none" or a tracker TRL reports to

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
        if not isinstance(self.chat_template_kwargs, dict) or not all(
                isinstance(key, str) for key in self.chat_template_kwargs):
            problems.append("chat_template_kwargs must be a JSON object, e.g. "
                            f'{{"enable_thinking": false}}, got {self.chat_template_kwargs!r}')
        if self.lora and self.lora_rank < 1:
            problems.append(f"lora_rank must be at least 1 when lora is on, got {self.lora_rank}")
        for name, allowed in (("lr_schedule", TrainingRun.Schedule.values),
                              ("scale_rewards", TrainingRun.ScaleRewards.values),
                              ("device", TrainingRun.Device.values),
                              ("vllm_mode", TrainingRun.VllmMode.values),
                              ("bf16", TrainingRun.Bf16.values),
                              ("renders", TrainingRun.Renders.values),
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
    def names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_run(cls, run: TrainingRun) -> GRPOConfig:
        """The run's settings as they are now (a draft's, at launch)."""
        return cls(**{name: getattr(run, name) for name in cls.names()})

    def packages_missing(self) -> list[str]:
        """The settings that need a package this Python cannot import, each
        with how to install it (checked at launch, and again on the worker)."""
        from importlib.util import find_spec

        needs = [("use_vllm", "vllm")] if self.use_vllm else []
        if self.report_to != "none":
            needs.append((f"report_to {self.report_to}", TRACKER_PACKAGES[self.report_to]))
        return [f"{setting} needs the {package} package (pip install {package})"
                for setting, package in needs if find_spec(package) is None]

    @property
    def micro_batch_size(self) -> int:
        """Rollouts each process computes at once (TRL's per_device_train_batch_size)."""
        return self.batch_size // (self.processes * self.gradient_accumulation_steps)

    @property
    def distributed(self) -> bool:
        """Trained by `accelerate launch` in child processes, not in the worker's own."""
        return self.processes > 1 or bool(self.accelerate_config)

    @classmethod
    def from_dict(cls, values: dict) -> GRPOConfig:
        """Settings as launched_config["grpo"] stores them; unknown or missing
        keys are refused, but for those LAUNCHED_BEFORE fills in."""
        known = set(cls.names())
        values = {**{k: v for k, v in LAUNCHED_BEFORE.items() if k not in values}, **values}
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


# What runs launched before the scale settings existed trained with: one
# process, transformers' generate, no checkpointing or accumulation, bf16
# where the GPU had it, the chat template as it was, renders in the train
# worker's browsers, no tracker. Resuming such a run trains it the same way.
LAUNCHED_BEFORE = {
    "use_vllm": False, "vllm_mode": "colocate", "vllm_server_host": "127.0.0.1",
    "vllm_server_port": 8000, "vllm_gpu_memory_utilization": 0.3,
    "gradient_checkpointing": False, "gradient_accumulation_steps": 1, "bf16": "auto",
    "chat_template_kwargs": {}, "processes": 1, "accelerate_config": "", "renders": "process",
    "report_to": "none",
}

# report_to's trackers and the package each imports (TRL reports through transformers'
# integrations, which need it installed).
TRACKER_PACKAGES = {"tensorboard": "tensorboard", "trackio": "trackio", "wandb": "wandb"}

# The admin's fieldsets, one a section, in the dataclass's order.
SECTIONS = (
    ("GRPO", GRPOConfig.names()[:GRPOConfig.names().index("use_vllm")]),
    ("Scale: GPUs, processes, renders, tracking",
     GRPOConfig.names()[GRPOConfig.names().index("use_vllm"):]),
)
