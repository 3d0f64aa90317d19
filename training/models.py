"""Rubrics (what a rollout is rewarded for), judges (who compares and rates
pictures), the judges' cache of verdicts, and replays: a rubric re-scored
offline on chosen renders, with the diagnostics that show which signal
carries information."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Max

from jobs.models import Job, job_statuses
from pool.models import PoolSnapshot, RewardModel
from sketches.models import Render, Sketch

from .judge_keys import api_key_env_problem
from .judges.registry import DEFAULT_BACKEND, backend_choices
from .rubrics import RubricError, signal_specs
from .runs.conf import renders_default


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


class Rubric(NextVersion, models.Model):
    """A named, versioned list of weighted signals. The signal list is data
    (see training.rubrics for the kinds and their parameters); replays keep
    a copy of the list they used, so editing a rubric never rewrites what
    was measured with it."""

    name = models.CharField(max_length=80)
    version = models.PositiveIntegerField(
        blank=True, help_text="Left blank, a new rubric gets the next version of its name.")
    description = models.TextField(blank=True)
    signals = models.JSONField(
        default=list,
        help_text='A list of {"name", "kind", "weight", "params"}: kinds gate, compile_gate, '
                  "brush_gate, length, preference, pairwise, absolute (see the README).")
    preset = models.BooleanField(default=False, help_text="Installed by paintrl (v1, v2).")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"],
                                               name="rubric_name_version_unique")]

    def clean(self):
        try:
            signal_specs(self.signals)
        except RubricError as error:
            raise ValidationError({"signals": str(error)}) from error

    def specs(self):
        return signal_specs(self.signals)


class Judge(models.Model):
    """A backend that compares two pictures, rates one, or scores its
    preference: `backend` is a key of PAINTRL_JUDGE_BACKENDS (settings), the
    fields below configure it. Keys are never stored: `api_key_env` names the
    environment variable that holds one."""

    name = models.CharField(max_length=80, unique=True)
    # Callable choices: the select lists the configured backends, and the
    # migration stores the function's path, not the keys of the day.
    backend = models.CharField(max_length=40, choices=backend_choices, default=DEFAULT_BACKEND,
                               help_text="A key of PAINTRL_JUDGE_BACKENDS (settings).")
    base_url = models.CharField(
        max_length=300, blank=True,
        help_text="Blank: PAINTRL_JUDGE_BASE_URL (openai) or PAINTRL_HPSV3_URL (hpsv3).")
    model = models.CharField(max_length=200, blank=True,
                             help_text="Blank: PAINTRL_JUDGE_MODEL (openai).")
    api_key_env = models.CharField(
        max_length=100, blank=True, default="PAINTRL_JUDGE_API_KEY",
        help_text="Name of the environment variable that holds the API key (never the key).")
    max_concurrency = models.PositiveSmallIntegerField(default=4)
    timeout_s = models.FloatField(default=60.0)
    retries = models.PositiveSmallIntegerField(default=2)
    agreement = models.JSONField(default=dict, blank=True,
                                 help_text="Agreement with curators' grades, last measured.")
    agreement_measured = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        problem = api_key_env_problem(self.api_key_env)
        if problem:
            raise ValidationError({"api_key_env": problem})

    def __str__(self) -> str:
        return f"{self.name} ({self.get_backend_display()})"


class JudgeVerdict(models.Model):
    """A judge's answer, cached by what was asked about which pictures (by
    the SHA-256 of their PNG bytes: the same picture gets the same answer
    whichever render holds it). Only answers are cached, never failures."""

    judge_key = models.CharField(max_length=200)
    question = models.CharField(max_length=60,
                                help_text='"compare", "preference" or "rate:<criterion>".')
    image = models.CharField(max_length=64)
    reference = models.CharField(max_length=64, blank=True)
    value = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(
            fields=["judge_key", "question", "image", "reference"], name="judge_verdict_unique")]


class Replay(Job):
    """One or two rubrics re-scored on chosen renders, offline, on a worker."""

    class GroupBy(models.TextChoices):
        PROMPT = "prompt", "Prompt (a GRPO group: rollouts of one prompt)"
        SUBJECT = "subject", "Subject"
        NONE = "none", "No groups (one group of everything)"

    name = models.CharField(max_length=120, blank=True)
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="replays")
    compare_rubric = models.ForeignKey(Rubric, null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="+", help_text="Scored side by side.")
    rubric_signals = models.JSONField(
        default=list, help_text="The rubrics as scored: [{label, signals}], one or two.")
    snapshot = models.ForeignKey(PoolSnapshot, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+", help_text="References for pairwise signals.")
    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="+",
                              help_text="Answers pairwise and absolute questions.")
    scorer = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="+",
                               help_text="Gives the preference score.")
    selection = models.JSONField(default=dict, help_text="How the renders were chosen.")
    group_by = models.CharField(max_length=10, choices=GroupBy.choices, default=GroupBy.PROMPT)
    seed = models.IntegerField(default=0, help_text="Seeds the draw of pool references.")
    results = models.JSONField(default=dict, blank=True)
    notices = models.JSONField(default=list, blank=True,
                               help_text="What the scoring could not do, and why.")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

    def __str__(self) -> str:
        return self.name or f"replay {self.pk}"


class ReplayItem(models.Model):
    """One render in a replay: its group and every signal's value (None
    where it could not be computed), keyed by signal key."""

    replay = models.ForeignKey(Replay, on_delete=models.CASCADE, related_name="items")
    render = models.ForeignKey(Render, null=True, on_delete=models.SET_NULL, related_name="+")
    group = models.CharField(max_length=300, blank=True)
    values = models.JSONField(default=dict)

    class Meta:
        ordering = ["pk"]
        constraints = [models.UniqueConstraint(fields=["replay", "render"],
                                               name="replay_item_unique")]


class SystemPrompt(NextVersion, models.Model):
    """The instructions a policy is given before each prompt; versioned like
    rubrics, and copied into a run at launch."""

    name = models.CharField(max_length=80)
    version = models.PositiveIntegerField(blank=True)
    text = models.TextField()
    preset = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"],
                                               name="system_prompt_name_version_unique")]


class PromptSet(models.Model):
    """The prompts a run trains on, one per GRPO group."""

    name = models.CharField(max_length=120, unique=True)
    prompts = models.JSONField(default=list, help_text="A list of prompt strings.")
    description = models.TextField(blank=True)
    preset = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        if not isinstance(self.prompts, list) or not self.prompts or not all(
                isinstance(p, str) and p.strip() for p in self.prompts):
            raise ValidationError({"prompts": "a non-empty list of non-empty strings"})

    def __str__(self) -> str:
        return f"{self.name} ({len(self.prompts)} prompts)"


class RewardJudges(models.Model):
    """Who scores a job's samples against its rubric: a run's, a prompt
    optimisation's (training.runs.services.choice_problems checks them)."""

    snapshot = models.ForeignKey(PoolSnapshot, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+", help_text="References for pairwise signals.")
    judge = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="+",
                              help_text="Answers pairwise and absolute questions.")
    scorer = models.ForeignKey(Judge, on_delete=models.PROTECT, related_name="+",
                               help_text="Gives the preference score.")
    drop_unanswerable = models.BooleanField(
        default=False, verbose_name="drop signals the judges cannot answer",
        help_text="Otherwise a rubric asking the judges a question they can never answer (the "
                  "local reward model: adherence, or anything without an active model) is "
                  "refused at launch. Dropped signals are shown on the run page with their "
                  "weight; the others' shares grow.")

    class Meta:
        abstract = True


class TrainingRun(Job, RewardJudges):
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
    # References that still teach (pool.calibration; training.calibration.recalibrate)
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
    max_completion_length = models.PositiveIntegerField(default=512,
                                                        help_text="In tokens.")
    temperature = models.FloatField(default=1.0)
    scale_rewards = models.CharField(max_length=10, choices=ScaleRewards.choices,
                                     default=ScaleRewards.GROUP)
    beta = models.FloatField(default=0.0, help_text="KL penalty; 0 loads no reference model.")
    lora = models.BooleanField(default=False, help_text="Train LoRA adapters, not all weights.")
    lora_rank = models.PositiveSmallIntegerField(default=16)
    seed = models.IntegerField(default=0)
    device = models.CharField(max_length=10, choices=Device.choices, default=Device.AUTO)
    save_steps = models.PositiveIntegerField(default=5, help_text="Checkpoint every N steps.")
    # Scale: GPUs, processes, renders (config.GRPOConfig's "scale" section)
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
    chat_template_kwargs = models.JSONField(
        default=dict, blank=True,
        help_text='Passed to the chat template, e.g. {"enable_thinking": false} for a Qwen3 '
                  "checkpoint (its thinking would eat the completion budget).")
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


class PromptOptimisation(Job, RewardJudges):
    """A system prompt evolved by GEPA (the `gepa` package) against a rubric:
    each candidate prompt is scored by sampling the policy with it on the
    prompt set, rendering and scoring the samples; a reflection model (an
    OpenAI-compatible chat endpoint) reads the scores, the gate's violations
    and the unknown brush methods, and writes the next candidate. A draft
    until launched; run by training.gepa on the train worker."""

    Status = job_statuses(("DRAFT", "draft", "Draft"), qualname="PromptOptimisation.Status",
                          module=__name__)

    name = models.CharField(max_length=120)
    base_model = models.CharField(
        max_length=500, blank=True,
        help_text="A local Hugging Face checkpoint folder; blank: the built-in tiny policy.")
    prompt_set = models.ForeignKey(PromptSet, on_delete=models.PROTECT, related_name="+",
                                   help_text="Each prompt is one example GEPA scores.")
    seed_prompt = models.ForeignKey(SystemPrompt, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="seed system prompt",
                                    help_text="The candidate GEPA starts from.")
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="+")
    reflection = models.ForeignKey(
        Judge, on_delete=models.PROTECT, related_name="+", verbose_name="reflection model",
        help_text="An openai judge row: its base URL, model, key variable, timeout and retries "
                  "are the reflection model's (blank ones fall back to PAINTRL_JUDGE_*).")
    # Budget and sampling
    max_metric_calls = models.PositiveIntegerField(
        default=60, help_text="GEPA's budget: one metric call scores one prompt (its samples) "
                              "for one candidate. The seed alone takes one per prompt.")
    minibatch_size = models.PositiveSmallIntegerField(
        default=3, help_text="Prompts GEPA reflects on, and tries a new candidate on, each "
                             "iteration.")
    samples_per_prompt = models.PositiveSmallIntegerField(
        default=2, help_text="Samples of each prompt a candidate is scored on (their mean).")
    max_completion_length = models.PositiveIntegerField(default=512, help_text="In tokens.")
    temperature = models.FloatField(default=1.0)
    chat_template_kwargs = models.JSONField(
        default=dict, blank=True,
        help_text='Passed to the chat template, e.g. {"enable_thinking": false} for a Qwen3 '
                  "checkpoint.")
    seed = models.IntegerField(
        default=0, help_text="Seeds GEPA's choices and each prompt's samples and render: every "
                             "candidate is sampled at the same seeds.")
    # State
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT,
                              db_index=True)
    launched_config = models.JSONField(
        default=dict, blank=True,
        help_text="What the job used, copied at launch: rubric signals, seed prompt text, "
                  "prompts, policy path, reflection endpoint.")
    dropped_signals = models.JSONField(default=list, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+")

    class Meta(Job.Meta):
        verbose_name = "system prompt optimisation"

    def __str__(self) -> str:
        return self.name or f"prompt optimisation {self.pk}"


class PromptCandidateQuerySet(models.QuerySet):
    """Accepted candidates and rejected proposals: a rejected one has no index
    (PromptCandidate), the one mark of which is which."""

    def accepted(self) -> PromptCandidateQuerySet:
        return self.filter(index__isnull=False)

    def rejected(self) -> PromptCandidateQuerySet:
        return self.filter(index__isnull=True)


class PromptCandidate(models.Model):
    """One of GEPA's proposals. An accepted one is a candidate GEPA keeps (its
    program index `index`; 0 is the seed): its per-prompt results are on the
    whole prompt set, and it may be on GEPA's Pareto front (best on at least
    one prompt). A rejected one was no better than its parent on the
    minibatch both were scored on, so GEPA dropped it without an index or a
    score on the whole prompt set: its results and mean are on that minibatch
    only, beside its parent's mean there (parent_minibatch_score)."""

    optimisation = models.ForeignKey(PromptOptimisation, on_delete=models.CASCADE,
                                     related_name="candidates")
    index = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="GEPA's candidate index (0: the seed); none for a proposal GEPA rejected.")
    text = models.TextField()
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="children")
    iteration = models.PositiveIntegerField(help_text="GEPA's iteration that found it.")
    metric_calls = models.PositiveIntegerField(
        default=0, help_text="Metric calls spent when it was found.")
    results = models.JSONField(
        default=list, help_text="Per prompt (for a rejected proposal, per prompt of its "
                                "minibatch): score, samples judged, gate passes, unknown "
                                "methods, violations.")
    mean_score = models.FloatField(help_text="The mean of its per-prompt scores.")
    parent_minibatch_score = models.FloatField(
        null=True, blank=True,
        help_text="A rejected proposal's parent's mean score on the same minibatch.")
    gate_pass = models.FloatField(null=True, help_text="Share of its samples the gate passed.")
    unknown_method_rate = models.FloatField(
        null=True, help_text="Share of its samples calling a brush method that does not exist.")
    on_front = models.BooleanField(default=False, help_text="On GEPA's Pareto front.")
    system_prompt = models.ForeignKey(
        SystemPrompt, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The system prompt revision it was saved as.")
    created = models.DateTimeField(auto_now_add=True)

    objects = PromptCandidateQuerySet.as_manager()

    class Meta:
        ordering = ["optimisation", "index"]
        constraints = [models.UniqueConstraint(fields=["optimisation", "index"],
                                               condition=models.Q(index__isnull=False),
                                               name="prompt_candidate_unique")]

    @property
    def accepted(self) -> bool:
        return self.index is not None

    def __str__(self) -> str:
        if not self.accepted:
            return f"proposal rejected at iteration {self.iteration} of {self.optimisation}"
        return f"candidate {self.index} of {self.optimisation}"
