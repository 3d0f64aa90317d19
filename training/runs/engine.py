"""Building the TRL GRPOTrainer for a run from its launched_config: the
policy, the prompt dataset, TRL's GRPOConfig (from the run's own
config.RunConfig) and the reward function.

One optimizer step is one generation batch: prompts_per_step groups of
num_generations rollouts, generated once and trained on once
(num_iterations=1), split across the processes and, with gradient
accumulation, into micro-batches (steps_per_generation = accumulation).
Everything comes from launched_config, never from the run's live fields, so
editing a run after launch cannot change what a resume trains.

Resuming is transformers' `train(resume_from_checkpoint=...)`: weights (or
the LoRA adapter), optimizer, scheduler and RNG states come back, and the
batches already trained on are skipped, so with the dataset in a fixed order
(prompt_rows, shuffle_dataset=False) step k trains on the same prompts
whether or not the run was interrupted.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path

from trl import GRPOConfig as TrlGRPOConfig
from trl import GRPOTrainer

from ..calibration.recalibrate import Recalibrator
from ..config_base import trl_arguments
from ..models import Judge
from ..policy import FINAL, policy_load, run_dir
from ..reward.inputs import SignalContext
from ..reward.rubric import rubric_specs
from ..reward.scoring import signal_context_for
from ..sampling.device import device_choose, threads_set
from ..sampling.renderers import FleetRenderer, ProcessRenderer
from . import conf, ranks
from .callbacks import RunCallback, RunLease, StepBook
from .config import RunConfig
from .probe.callback import ProbeCallback, run_prober
from .rewards import RubricReward

# TrainingRun.lr_schedule -> transformers' scheduler names (constant gets a warmup
# variant when warmup_steps is set; linear and cosine warm up by themselves).
SCHEDULES = {"constant": "constant", "linear": "linear", "cosine": "cosine"}


class EngineError(RuntimeError):
    """The run cannot be built on this worker; the message says why."""


class TimedGRPOTrainer(GRPOTrainer):
    """GRPOTrainer that adds the time spent generating to the step's clock
    (callbacks.py explains the split). Nothing else is changed.

    TRL 1.16 has no public hook around generation, so this overrides the
    private `_generate`; tests/test_trl_hooks.py fails, naming the version,
    if a TRL upgrade moves or renames it."""

    step_book: StepBook | None = None

    def _generate(self, prompts: list):
        started = time.perf_counter()
        try:
            return super()._generate(prompts)
        finally:
            if self.step_book is not None:
                self.step_book.clock.generate += time.perf_counter() - started


@dataclass
class Engine:
    """A built trainer and the parts the run's service reads after training."""

    trainer: TimedGRPOTrainer
    callback: RunCallback
    book: StepBook
    output_dir: Path
    device: str


def prompt_rows(prompts: list[str], system: str, *, steps: int, per_step: int,
                seed: int) -> list[dict]:
    """steps x per_step rows, in training order: the prompts shuffled by the
    seed, reshuffled at each pass through the list. Step s (from 1) trains on
    rows (s-1)*per_step onwards, so a resumed run sees the same prompts."""
    rng = random.Random(seed)
    order: list[int] = []
    while len(order) < steps * per_step:
        batch = list(range(len(prompts)))
        rng.shuffle(batch)
        order.extend(batch)
    return [{"prompt": [{"role": "system", "content": system},
                        {"role": "user", "content": prompts[i]}],
             "prompt_text": prompts[i]} for i in order[:steps * per_step]]


def grpo_args(grpo: RunConfig, *, output_dir: Path, device: str) -> TrlGRPOConfig:
    """TRL's GRPOConfig from the run's frozen GRPO settings: each setting TRL
    takes as it is, by the name its field declares (config_base.trl_arguments),
    then those TRL's arguments are derived from, and the fixed ones."""
    cpu = device == "cpu"
    schedule = SCHEDULES[grpo.lr_schedule]
    if grpo.warmup_steps and schedule == "constant":
        schedule = "constant_with_warmup"
    return TrlGRPOConfig(
        **trl_arguments(grpo),
        output_dir=str(output_dir),
        # One optimizer step = one generation batch of whole groups, generated
        # at once and split into processes x accumulation micro-batches.
        per_device_train_batch_size=grpo.micro_batch_size,
        steps_per_generation=grpo.gradient_accumulation_steps,
        num_iterations=1,
        shuffle_dataset=False,  # prompt_rows already ordered them by the run's seed
        lr_scheduler_type=schedule,
        save_strategy="steps",
        save_total_limit=conf.keep_checkpoints(),
        logging_steps=1,
        disable_tqdm=True,
        dataloader_num_workers=0,
        use_cpu=cpu,
        # Every parameter gets a gradient each step: DDP's default search for
        # unused ones costs a pass over the graph and a warning every step.
        ddp_find_unused_parameters=False,
        bf16=bf16_on(grpo.bf16, device),
        fp16=False,
    )


def bf16_on(choice: str, device: str) -> bool:
    """The run's bf16 choice on this worker: "auto" only where the GPU has bf16."""
    if choice != "auto":
        return choice == "on"
    import torch

    return device != "cpu" and torch.cuda.is_bf16_supported()


def lora_config(rank: int):
    from peft import LoraConfig  # pinned in requirements.txt; imported only for LoRA runs

    return LoraConfig(r=rank, lora_alpha=2 * rank, lora_dropout=0.0,
                      target_modules="all-linear", task_type="CAUSAL_LM")


def signal_context(config: dict, snapshot, notices: list[str]) -> SignalContext:
    """The judges a run scores with; a judge that cannot answer at all is None,
    and its signals are None (with a notice), never 0."""
    judges = {role: Judge.objects.get(pk=config[role]["id"]) for role in ("judge", "scorer")}
    return signal_context_for(judge=judges["judge"], scorer=judges["scorer"], snapshot=snapshot,
                              seed=RunConfig.from_launched(config).seed, notices=notices)


def engine_build(*, run, lease: RunLease, renderer: ProcessRenderer | FleetRenderer | None,
                 progress_extra: dict | None = None, start_step: int = 0) -> Engine:
    """The trainer for `run` (already claimed by `lease`), rendering with
    `renderer` (training.sampling.renderers.run_renderer); `progress_extra` is kept in every
    progress row the run writes. In a multi-process run every process builds
    one; only the main one renders and scores (ranks.py), so the others pass
    no renderer and load no judges."""
    from datasets import Dataset
    from transformers.trainer_callback import PrinterCallback

    config = run.launched_config
    grpo = RunConfig.from_launched(config)
    device = device_choose(grpo.device)
    if grpo.use_vllm and device == "cpu":
        raise EngineError("the run generates with vLLM, which needs a CUDA GPU, and this worker "
                          "has none (clone the run without use_vllm, or run it on a GPU worker)")
    if missing := grpo.packages_missing():
        raise EngineError(f"on this worker, {'; '.join(missing)}")
    threads_set(device)
    output_dir = run_dir(run.pk)
    output_dir.mkdir(parents=True, exist_ok=True)
    model, tokenizer = policy_load(config["policy_path"], device=device)
    args = grpo_args(grpo, output_dir=output_dir, device=device)  # sets up the processes' state
    book = StepBook(notices=[])
    context = signal_context(config, run.snapshot, book.notices) if ranks.is_main() else None
    prober = run_prober(run=run, renderer=renderer)
    reward = RubricReward(
        run_id=run.pk, specs=rubric_specs(config["rubric"]["signals"], run.dropped_signals),
        context=context,
        num_generations=grpo.num_generations, scale_rewards=grpo.scale_rewards,
        seed=grpo.seed, renderer=renderer, lease=lease, book=book,
        yardstick=prober.yardstick.scores if prober is not None else None,
        recalibrator=Recalibrator.for_run(run=run, config=config, context=context,
                                          start_step=start_step))
    callback = RunCallback(lease=lease, book=book, max_steps=grpo.max_steps,
                           progress_extra=progress_extra)
    dataset = Dataset.from_list(prompt_rows(
        config["prompts"], config["system_prompt"]["text"], steps=grpo.max_steps,
        per_step=grpo.prompts_per_step, seed=grpo.seed))
    trainer = TimedGRPOTrainer(
        model=model, reward_funcs=reward, args=args, train_dataset=dataset,
        processing_class=tokenizer, callbacks=[callback],
        peft_config=lora_config(grpo.lora_rank) if grpo.lora else None)
    trainer.step_book = book
    if prober is not None:
        trainer.add_callback(ProbeCallback(trainer=trainer, prober=prober, lease=lease,
                                           book=book))
    # The step rows are the record; the console printer would repeat every log
    # dict into the worker's output.
    trainer.remove_callback(PrinterCallback)
    return Engine(trainer=trainer, callback=callback, book=book, output_dir=output_dir,
                  device=device)


def final_policy_save(engine: Engine) -> Path:
    """The trained policy as a plain checkpoint folder (LoRA merged into the
    weights), so another run can name it as its base model. Every process of
    a multi-process run calls it; the main one writes and the others wait.
    Right where each process holds the whole model (data parallelism); a
    sharded one (DeepSpeed ZeRO-3, FSDP) would first need its weights gathered."""
    out = engine.output_dir / FINAL
    accelerator = engine.trainer.accelerator
    model = accelerator.unwrap_model(engine.trainer.model)
    if hasattr(model, "merge_and_unload"):  # a peft model
        model = model.merge_and_unload()
    if accelerator.is_main_process:
        model.save_pretrained(out)
        engine.trainer.processing_class.save_pretrained(out)
    accelerator.wait_for_everyone()
    return out
