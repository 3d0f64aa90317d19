"""Supervised fine-tuning of a policy on conversations: a plain torch loop
(AdamW, warmup then cosine decay, gradient clipping) whose loss counts only
the assistant's tokens, so the model learns to answer, not to recite the
system prompt. It runs to a step count or a time budget, whichever ends
first; the schedule follows whichever is further along, so a time-boxed run
still decays its learning rate to the end.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

from .corpus import Example, completion_ids, prompt_ids

IGNORE = -100  # label of tokens the loss skips (prompt and padding)
# Batches are padded to a multiple of this: fewer distinct shapes for the
# CPU kernels to plan for, at a few padding tokens per row.
PAD_TO = 16


@dataclass(frozen=True)
class SftConfig:
    """How long and how hard to train.

    Schedule: `warmup_steps` of linear warm-up, then cosine decay from
    `learning_rate` to `learning_rate * min_lr_ratio` over the run (its
    length is `max_steps` or `minutes`, whichever is reached first)."""

    learning_rate: float = 2e-3
    min_lr_ratio: float = 0.1
    warmup_steps: int = 30
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    # Sequences per step; batches are drawn from groups of similar length
    # so padding stays small.
    batch_size: int = 16
    max_steps: int | None = None
    minutes: float | None = None
    seed: int = 0
    # torch threads while training (None: settings.PAINTRL_REWARD_THREADS).
    threads: int | None = None
    # Progress is reported (and the loss curve sampled) every this many steps.
    log_every: int = 10
    # bfloat16 autocast for the forward pass (weights and optimiser stay
    # float32): faster on a CPU with bf16 instructions (docs/benchmarks.md,
    # "Measured constants").
    bf16: bool = True

    def __post_init__(self) -> None:
        if self.max_steps is None and self.minutes is None:
            raise ValueError("give max_steps or minutes (or both)")
        if self.max_steps is not None and self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {self.max_steps}")
        if self.minutes is not None and self.minutes <= 0:
            raise ValueError(f"minutes must be positive, got {self.minutes}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {self.batch_size}")
        if not 0 <= self.min_lr_ratio <= 1:
            raise ValueError(f"min_lr_ratio must be in [0, 1], got {self.min_lr_ratio}")


@dataclass(frozen=True)
class SftProgress:
    step: int
    loss: float            # mean over the steps since the last report
    learning_rate: float
    tokens_per_s: float    # all tokens in the batches (prompt included), per second
    elapsed_s: float
    done: float            # share of the run behind us, 0..1
    epoch: float


def sft_encode(tokenizer, examples: list[Example], system: str) -> list[tuple[list[int], int]]:
    """(token ids, prompt length) per example: the prompt exactly as a run
    hands it to `generate`, then the reply and EOS."""
    encoded = []
    for example in examples:
        prompt = prompt_ids(tokenizer, system, example.prompt)
        encoded.append((prompt + completion_ids(tokenizer, example.completion), len(prompt)))
    return encoded


def sft_train(model, tokenizer, examples: list[Example], *, system: str, config: SftConfig,
              on_progress: Callable[[SftProgress], None] | None = None,
              heldout: list[Example] | None = None) -> dict:
    """Train `model` in place; returns the training record (steps, epochs,
    loss curve, throughput, time, and the loss on `heldout` examples before
    and after, which tells learning from memorising)."""
    import torch

    if not examples:
        raise ValueError("no examples to train on")
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(_threads(config))
    try:
        held = sft_encode(tokenizer, heldout, system) if heldout else []
        before = sft_loss(model, tokenizer, held) if held else None
        record = _train(model, tokenizer, sft_encode(tokenizer, examples, system), config,
                        on_progress)
        if held:
            record["heldout_loss"] = {"examples": len(held), "before": before,
                                      "after": sft_loss(model, tokenizer, held)}
        return record
    finally:
        torch.set_num_threads(previous_threads)


def sft_loss(model, tokenizer, encoded: list[tuple[list[int], int]],
             batch_size: int = 16) -> float:
    """Mean loss per reply token over `encoded` (no gradients)."""
    import torch

    model.eval()
    total = count = 0.0
    with torch.no_grad():
        for start in range(0, len(encoded), batch_size):
            input_ids, labels, mask = _collate(encoded[start:start + batch_size],
                                               tokenizer.pad_token_id,
                                               next(model.parameters()).device)
            tokens = int((labels[:, 1:] != IGNORE).sum())
            total += float(reply_loss(model, input_ids, labels, mask)) * tokens
            count += tokens
    return round(total / max(count, 1), 4)


def reply_loss(model, input_ids, labels, mask):
    """The causal LM loss over the reply's tokens (labels not IGNORE), the
    same value as `model(..., labels=labels).loss`, with the output layer
    applied only where a label is: the logits of the prompt and padding
    positions were computed and thrown away: a faster step, identical losses
    (docs/benchmarks.md, "Measured constants")."""
    import torch

    hidden = model.get_decoder()(input_ids=input_ids, attention_mask=mask).last_hidden_state
    target = labels[:, 1:]
    kept = target != IGNORE
    logits = model.get_output_embeddings()(hidden[:, :-1][kept])
    return torch.nn.functional.cross_entropy(logits.float(), target[kept])


def _train(model, tokenizer, encoded, config: SftConfig, on_progress) -> dict:
    import torch

    torch.manual_seed(config.seed)
    model.train()
    where = next(model.parameters()).device
    device = where.type
    bf16 = config.bf16 and _bf16_ok(device)
    optimizer = torch.optim.AdamW(_param_groups(model, config.weight_decay),
                                  lr=config.learning_rate, betas=(0.9, 0.95))
    batches = _batches(encoded, config.batch_size, random.Random(config.seed))
    budget_s = config.minutes * 60 if config.minutes is not None else None
    started = time.monotonic()
    step = seen = 0
    window_loss, window_steps, window_tokens, window_start = 0.0, 0, 0, started
    curve: list[dict] = []
    first_loss = None
    while True:
        elapsed = time.monotonic() - started
        done = _done(step, elapsed, config.max_steps, budget_s)
        if done >= 1:
            break
        lr = _learning_rate(step, done, config)
        for group in optimizer.param_groups:
            group["lr"] = lr
        input_ids, labels, mask = _collate(next(batches), tokenizer.pad_token_id, where)
        with torch.autocast(device_type=device, dtype=torch.bfloat16, enabled=bf16):
            loss = reply_loss(model, input_ids, labels, mask)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
        optimizer.step()
        step += 1
        seen += len(input_ids)
        value = float(loss.detach())
        first_loss = value if first_loss is None else first_loss
        window_loss += value
        window_steps += 1
        window_tokens += int(mask.sum())
        if step % config.log_every == 0 or step == config.max_steps:
            now = time.monotonic()
            report = SftProgress(
                step=step, loss=round(window_loss / window_steps, 4), learning_rate=lr,
                tokens_per_s=round(window_tokens / max(now - window_start, 1e-9), 1),
                elapsed_s=round(now - started, 1),
                done=min(1.0, _done(step, now - started, config.max_steps, budget_s)),
                epoch=round(seen / len(encoded), 2))
            curve.append({"step": step, "loss": report.loss, "elapsed_s": report.elapsed_s})
            if on_progress is not None:
                on_progress(report)
            window_loss, window_steps, window_tokens, window_start = 0.0, 0, 0, now
    model.eval()
    seconds = time.monotonic() - started
    if window_steps:
        curve.append({"step": step, "loss": round(window_loss / window_steps, 4),
                      "elapsed_s": round(seconds, 1)})
    return {"config": asdict(config), "steps": step, "epochs": round(seen / len(encoded), 2),
            "examples": len(encoded), "first_loss": round(first_loss or 0.0, 4),
            "final_loss": curve[-1]["loss"] if curve else None, "loss_curve": curve,
            "seconds": round(seconds, 1), "threads": _threads(config), "bf16": bf16}


def _bf16_ok(device: str) -> bool:
    """bfloat16 autocast where it is fast: CUDA with bf16 support, or a CPU
    with native bf16 instructions (elsewhere it is emulated, slowly)."""
    import torch

    if device == "cuda":
        return torch.cuda.is_bf16_supported()
    if device != "cpu":
        return False
    try:
        with open("/proc/cpuinfo") as info:
            flags = next((line.split() for line in info if line.startswith("flags")), [])
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


def _threads(config: SftConfig) -> int:
    if config.threads is not None:
        return max(1, config.threads)
    from django.conf import settings

    return max(1, int(getattr(settings, "PAINTRL_REWARD_THREADS", 1)))


def _param_groups(model, weight_decay: float) -> list[dict]:
    """No weight decay on norms and biases (the usual AdamW recipe)."""
    decay, plain = [], []
    for name, param in model.named_parameters():
        if param.requires_grad:
            (plain if param.ndim < 2 or name.endswith("bias") else decay).append(param)
    return [{"params": decay, "weight_decay": weight_decay},
            {"params": plain, "weight_decay": 0.0}]


def _done(step: int, elapsed_s: float, max_steps: int | None, budget_s: float | None) -> float:
    shares = []
    if max_steps is not None:
        shares.append(step / max_steps)
    if budget_s is not None:
        shares.append(elapsed_s / budget_s)
    return max(shares)


def _learning_rate(step: int, done: float, config: SftConfig) -> float:
    if step < config.warmup_steps:
        return config.learning_rate * (step + 1) / config.warmup_steps
    floor = config.learning_rate * config.min_lr_ratio
    return floor + (config.learning_rate - floor) * 0.5 * (1 + math.cos(math.pi * min(done, 1)))


def _batches(encoded, batch_size: int, rng: random.Random):
    """Endless batches: each epoch is shuffled, cut into groups of 8 batches,
    each group sorted by length so a batch holds similar lengths, and the
    batches of the epoch shuffled again."""
    order = list(range(len(encoded)))
    size = min(batch_size, len(order))
    while True:
        rng.shuffle(order)
        batches = []
        group = size * 8
        for start in range(0, len(order), group):
            chunk = sorted(order[start:start + group], key=lambda i: len(encoded[i][0]))
            batches += [chunk[i:i + size] for i in range(0, len(chunk), size)]
        rng.shuffle(batches)
        for batch in batches:
            yield [encoded[i] for i in batch]


def _collate(batch, pad_id: int, device=None):
    """Right-padded ids, labels (prompt and padding ignored) and attention mask."""
    import torch

    width = -(-max(len(ids) for ids, _ in batch) // PAD_TO) * PAD_TO
    input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, (ids, prompt_len) in enumerate(batch):
        input_ids[row, :len(ids)] = torch.tensor(ids)
        labels[row, prompt_len:len(ids)] = torch.tensor(ids[prompt_len:])
        mask[row, :len(ids)] = 1
    return input_ids.to(device), labels.to(device), mask.to(device)
