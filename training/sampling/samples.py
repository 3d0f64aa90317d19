"""Completions of prompts at fixed seeds: a run's probe, a prompt
optimisation's candidates and a calibration's rollouts all draw them here,
with their SamplingConfig.

Sampling must leave a training run as it found it: it runs inside
torch.random.fork_rng (so the step after a probe draws the same random
numbers as without one, and a resume trains the same), in eval mode (then
back), without gradients."""
from __future__ import annotations

from dataclasses import dataclass

from .config import SamplingConfig

SEED_RANGE = 2**31  # Render.seed is a 32-bit integer on PostgreSQL

# Per-prompt seeds for a job that samples a prompt set (the prompt
# optimiser's candidates, a calibration's rollouts): the job's seed plus the
# prompt's index times this, so each prompt has its own seed and no two
# prompts of a job share one.
SEEDS_PER_PROMPT = 1000


def prompt_seed(job_seed: int, index: int) -> int:
    return (job_seed + index * SEEDS_PER_PROMPT) % SEED_RANGE


@dataclass(frozen=True)
class Sample:
    """One completion of a prompt."""

    text: str
    tokens: int  # as TRL counts a completion: up to and including EOS


@dataclass(frozen=True)
class Sampling:
    """What samples_generate draws: `samples` completions of each prompt, the
    prompt's seed set before its batch, with `config`'s settings."""

    prompts: list[str]
    samples: int
    seeds: list[int]
    system: str
    config: SamplingConfig


def samples_generate(model, tokenizer, plan: Sampling) -> list[Sample]:
    """plan.samples completions of each prompt, in order, the prompt's seed set
    before its batch (module docstring: the RNG, the mode and gradients are
    given back as they were)."""
    import torch

    device = next(model.parameters()).device
    was_training = model.training
    model.eval()
    pad = tokenizer.pad_token_id if tokenizer.pad_token_id is not None else \
        tokenizer.eos_token_id
    config = plan.config
    out: list[Sample] = []
    try:
        with torch.random.fork_rng(devices=[device] if device.type == "cuda" else []), \
                torch.no_grad():
            for prompt, seed in zip(plan.prompts, plan.seeds, strict=True):
                torch.manual_seed(seed)
                encoded = tokenizer.apply_chat_template(
                    [{"role": "system", "content": plan.system},
                     {"role": "user", "content": prompt}],
                    add_generation_prompt=True, tokenize=True, return_dict=True,
                    return_tensors="pt", **config.chat_template_kwargs).to(device)
                width = encoded["input_ids"].shape[1]
                generated = model.generate(
                    input_ids=encoded["input_ids"], attention_mask=encoded["attention_mask"],
                    do_sample=True, temperature=config.temperature, top_k=0, top_p=1.0,
                    max_new_tokens=config.max_completion_length,
                    num_return_sequences=plan.samples,
                    eos_token_id=tokenizer.eos_token_id, pad_token_id=pad)
                out.extend(_completion(tokenizer, row) for row in generated[:, width:].tolist())
    finally:
        model.train(was_training)
    return out


def _completion(tokenizer, row: list[int]) -> Sample:
    """A generated row cut at its first EOS (the padding after it dropped)."""
    if tokenizer.eos_token_id in row:
        row = row[:row.index(tokenizer.eos_token_id) + 1]
    return Sample(text=tokenizer.decode(row, skip_special_tokens=True), tokens=len(row))
