"""Training runs: the run, its steps and rollouts, and its probes (the
policy sampled at fixed prompts and seeds, scored by a yardstick)."""
from __future__ import annotations

from django.conf import settings
from django.db import models

from jobs.models import Job, job_statuses
from pool.models import RewardModel
from sketches.brush_api import DEFAULT_BRUSH
from sketches.models import BRUSH_CHOICES, Render, Sketch

from ..sampling.conf import renders_default
from .base import RewardJudges, SamplingSettings
from .prompts import PromptSet, SystemPrompt
from .scoring import Rubric


class TrainingRun(Job, RewardJudges, SamplingSettings):
    """A GRPO run: what it trains, against what, with which settings, and
    where it has got to. Launched, cancelled, resumed and cloned from the
    admin; run by training.runs on the train worker. A run exists as a draft
    before it is queued; its worker holds it by a lease (`worker`, refreshed
    `heartbeat`), and a failed, cancelled or stalled run may be resumed."""

    Status = job_statuses(("DRAFT", "draft", "Draft"), qualname="TrainingRun.Status",
                          module=__name__)

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

    class Renders(models.TextChoices):
        PROCESS = "process", "in the train worker's own browsers"
        FLEET = "fleet", "by the render workers (the render queue)"

    # The p5.brush a run's sketches render with (sketches.models.BRUSH_CHOICES: its pairs).
    Brush = models.TextChoices("Brush", [(value, (value, label)) for value, label in BRUSH_CHOICES])

    class ReportTo(models.TextChoices):
        NONE = "none", "none (the run page only)"
        TENSORBOARD = "tensorboard", "TensorBoard"
        TRACKIO = "trackio", "trackio"
        WANDB = "wandb", "Weights & Biases"

    name = models.CharField(max_length=120)
    base_model = models.CharField(
        max_length=500, blank=True,
        help_text="A local Hugging Face checkpoint folder; blank: the built-in tiny policy "
                  "(manage.py bootstrap_policy).")
    prompt_set = models.ForeignKey(PromptSet, on_delete=models.PROTECT, related_name="runs")
    system_prompt = models.ForeignKey(SystemPrompt, on_delete=models.PROTECT,
                                      related_name="runs")
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="runs")
    # Evaluation: a fixed probe scored by an independent yardstick (runs/probe)
    probe_every = models.PositiveIntegerField(
        default=0,
        help_text="Sample the policy on fixed prompts at fixed seeds at step 0 and every N "
                  "steps, scored by the yardstick against fixed pool references; 0: no probe. "
                  "A probe costs about one default step's generation and renders: every 5 "
                  "steps adds at most a fifth (proposed when a yardstick exists).")
    # References that still teach (pool.band; training.calibration.recalibrate)
    recalibrate_every = models.PositiveIntegerField(
        default=0,
        help_text="Every N steps, measure how often the step's rollouts beat each member of the "
                  "snapshot (the run's judge) and draw the next steps' pairwise references "
                  "only from those in the band; 0: off, every member is drawn. With a hosted "
                  "judge it costs members x 8 requests each time.")
    calibration_band_low = models.FloatField(
        default=0.25, help_text="The band's low end: a member the rollouts beat less often "
                                "than this is left out (they nearly never win against it).")
    calibration_band_high = models.FloatField(
        default=0.75, help_text="The band's high end: a member beaten more often is left out.")
    yardstick = models.ForeignKey(
        RewardModel, null=True, blank=True, on_delete=models.PROTECT, related_name="+",
        help_text="Scores the probe: a reward model trained disjoint from the judge's (Reward "
                  "models: the action \"Train a yardstick disjoint from the selected model\").")
    # GRPO settings
    num_generations = models.PositiveSmallIntegerField(
        default=8, help_text="Rollouts per prompt (a group).")
    prompts_per_step = models.PositiveSmallIntegerField(
        default=1, help_text="Groups per step: the batch is this times num_generations.")
    max_steps = models.PositiveIntegerField(default=30)
    learning_rate = models.FloatField(
        default=3e-4, help_text="3e-4 suits the built-in tiny policy (benchmarks/grpo_bench.py); "
                                "a full-size checkpoint wants about 1e-6 to 1e-5.")
    lr_schedule = models.CharField(max_length=10, choices=Schedule.choices,
                                   default=Schedule.CONSTANT)
    warmup_steps = models.PositiveIntegerField(default=0)
    scale_rewards = models.CharField(max_length=10, choices=ScaleRewards.choices,
                                     default=ScaleRewards.GROUP)
    beta = models.FloatField(default=0.0, help_text="KL penalty; 0 loads no reference model.")
    lora = models.BooleanField(default=False, help_text="Train LoRA adapters, not all weights.")
    lora_rank = models.PositiveSmallIntegerField(default=16)
    seed = models.IntegerField(default=0)
    device = models.CharField(max_length=10, choices=Device.choices, default=Device.AUTO)
    save_steps = models.PositiveIntegerField(default=5, help_text="Checkpoint every N steps.")
    # Rendering (config.RunConfig's "Rendering" section)
    brush = models.CharField(
        max_length=4, choices=Brush.choices, default=DEFAULT_BRUSH, verbose_name="p5.brush",
        help_text="The p5.brush version the rollouts and the probe render with, and whose "
                  "methods the gate allows: 2 (the default, what the system prompts teach), "
                  "1 (bleed, setHatch, push...), or auto (each sketch by the calls it makes).")
    # Scale: GPUs, processes, renders (config.RunConfig's "scale" section)
    use_vllm = models.BooleanField(
        default=False, verbose_name="use vLLM",
        help_text="Generate with vLLM (a CUDA GPU and the vllm package on the train worker).")
    vllm_mode = models.CharField(max_length=10, choices=VllmMode.choices,
                                 default=VllmMode.COLOCATE, verbose_name="vLLM mode")
    vllm_server_host = models.CharField(
        max_length=200, default="127.0.0.1", verbose_name="vLLM server host",
        help_text="Server mode: where `trl vllm-serve --model <the policy>` listens.")
    vllm_server_port = models.PositiveIntegerField(default=8000, verbose_name="vLLM server port")
    vllm_gpu_memory_utilization = models.FloatField(
        default=0.3, verbose_name="vLLM GPU memory share",
        help_text="Colocate mode: the share of each GPU vLLM takes (server mode: the server's "
                  "own --gpu-memory-utilization).")
    gradient_checkpointing = models.BooleanField(
        default=False, help_text="Recompute activations in the backward pass: less GPU memory, "
                                 "about a third more compute.")
    gradient_accumulation_steps = models.PositiveSmallIntegerField(
        default=1, help_text="Micro-batches per optimizer step: each process computes "
                             "batch / (processes x this) rollouts at a time.")
    bf16 = models.CharField(max_length=4, choices=Bf16.choices, default=Bf16.AUTO,
                            verbose_name="bf16")
    processes = models.PositiveSmallIntegerField(
        default=1, help_text="Training processes (`accelerate launch`, one per GPU); 1 trains in "
                             "the train worker's own process.")
    accelerate_config = models.CharField(
        max_length=500, blank=True,
        help_text="An accelerate config file on the train worker (DeepSpeed, FSDP); blank: "
                  "plain data parallel.")
    renders = models.CharField(
        max_length=10, choices=Renders.choices, default=renders_default,
        help_text="Where the rollouts render. The default comes from PAINTRL_RUN_RENDERS.")
    report_to = models.CharField(
        max_length=12, choices=ReportTo.choices, default=ReportTo.NONE,
        help_text="A tracker that also receives the run's metrics (its package installed on "
                  "the train worker); the run page stays the record.")
    # State
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT,
                              db_index=True)
    launched_config = models.JSONField(
        default=dict, blank=True,
        help_text="What the run used, copied at launch: rubric signals, system prompt text, "
                  "prompts, policy path.")
    dropped_signals = models.JSONField(
        default=list, blank=True,
        help_text="Signals dropped at launch because the judges could never answer them: "
                  "[{name, kind, weight, reason}]. Totals are computed without them.")
    checkpoint_step = models.PositiveIntegerField(
        default=0, help_text="The last step with a saved checkpoint (0: none).")
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="clones", help_text="The run this was cloned from.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

    def __str__(self) -> str:
        return self.name or f"run {self.pk}"


class TrainingStep(models.Model):
    """What one GRPO step did, stored as it happens."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="steps")
    step = models.PositiveIntegerField()
    reward_mean = models.FloatField(null=True)
    reward_std = models.FloatField(null=True)
    zero_spread_groups = models.FloatField(
        null=True, help_text="Share of groups whose rollouts all got the same total.")
    no_total = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="Rollouts with no total (a weighted signal missing), left out of their "
                  "group; null for steps stored before it was counted.")
    signals = models.JSONField(default=dict,
                               help_text="Per signal name: mean, std, missing (None count).")
    completion_tokens = models.JSONField(default=dict, help_text="mean, min, max.")
    gate_pass = models.FloatField(null=True, help_text="Share of rollouts the gate passed.")
    yardstick_mean = models.FloatField(
        null=True, blank=True,
        help_text="The probe's yardstick on this step's rollouts: their mean win rate against "
                  "the probe's references, a rejected one 0 (runs with a probe).")
    unknown_method_rate = models.FloatField(
        null=True, help_text="Share of rollouts calling a brush method that does not exist.")
    metrics = models.JSONField(default=dict, help_text="The trainer's log: loss, kl, entropy...")
    times = models.JSONField(default=dict,
                             help_text="Seconds: generate, render, judge, update, total.")
    render_workers = models.JSONField(
        default=dict, blank=True,
        help_text="Which render workers rendered this step's rollouts: {worker: rollouts}.")
    calibration = models.JSONField(
        default=dict, blank=True,
        help_text="A re-calibrating run: the calibration its references came from, how many "
                  "it drew from, and whether this step measured a new one.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"],
                                               name="training_step_unique")]


class Rollout(models.Model):
    """One completion of one step: its sketch and render (which join the
    grading queue as origin "rollout"), its signal values and reward."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="rollouts")
    step = models.PositiveIntegerField()
    group = models.PositiveSmallIntegerField(help_text="Which prompt of the step.")
    index = models.PositiveSmallIntegerField(help_text="Which generation of the group.")
    prompt = models.TextField()
    sketch = models.ForeignKey(Sketch, null=True, on_delete=models.SET_NULL, related_name="+")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    values = models.JSONField(default=dict, help_text="Signal values by signal key.")
    total = models.FloatField(null=True)
    advantage = models.FloatField(null=True)
    tokens = models.PositiveIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "step", "group", "index"]
        constraints = [models.UniqueConstraint(fields=["run", "step", "group", "index"],
                                               name="rollout_unique")]


class Probe(models.Model):
    """The policy sampled at one step on the run's fixed probe prompts and
    seeds (launched_config["probe"]), each sample rendered and scored by the
    run's yardstick: the "is it learning" curve that does not hang on the
    prompts a step drew, nor on the judge the policy optimises."""

    run = models.ForeignKey(TrainingRun, on_delete=models.CASCADE, related_name="probes")
    step = models.PositiveIntegerField(help_text="Optimizer steps taken before it (0: none).")
    times = models.JSONField(default=dict,
                             help_text="Seconds: generate, render, score, store, total.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["run", "step"]
        constraints = [models.UniqueConstraint(fields=["run", "step"], name="probe_unique")]


class ProbeSample(models.Model):
    """One sample of one probe prompt: its sketch and render (stored as a
    rollout's are) and the yardstick's score."""

    probe = models.ForeignKey(Probe, on_delete=models.CASCADE, related_name="samples")
    prompt_index = models.PositiveSmallIntegerField(help_text="Which of the probe's prompts.")
    index = models.PositiveSmallIntegerField(help_text="Which sample of the prompt.")
    prompt = models.TextField()
    sketch = models.ForeignKey(Sketch, null=True, on_delete=models.SET_NULL, related_name="+")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    score = models.FloatField(
        null=True, help_text="Mean win probability against the probe's references; 0 for a "
                             "sketch the gate rejected; null where the render was unavailable.")
    tokens = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["probe", "prompt_index", "index"]
        constraints = [models.UniqueConstraint(fields=["probe", "prompt_index", "index"],
                                               name="probe_sample_unique")]
