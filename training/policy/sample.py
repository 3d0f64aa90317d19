"""Sampling a policy and asking the gate about what it wrote: the measure of
"writes sketches that mostly pass the gate". Samples are drawn the way GRPO
draws them (temperature 1, no top-k or top-p), since greedy replies say
little about the rollouts a run will score.
"""
from __future__ import annotations

import statistics
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from sketches.code_text import extract_code
from sketches.conf import renderer_config
from sketches.gate import NO_CODE, static_violations
from sketches.renderer import RendererUnavailable, RenderPool
from sketches.rendering import OK, UNAVAILABLE, render_text

from .corpus import prompt_ids


@dataclass(frozen=True)
class Completion:
    prompt: str
    text: str
    tokens: int
    finished: bool   # ended with EOS (not cut off at max_new_tokens)


def completions_sample(model, tokenizer, prompts: list[str], *, system: str,
                       temperature: float = 1.0, max_new_tokens: int = 512,
                       batch_size: int = 8, seed: int = 0) -> list[Completion]:
    """One sampled reply per prompt."""
    import torch

    torch.manual_seed(seed)
    model.eval()
    device = next(model.parameters()).device
    out: list[Completion] = []
    for start in range(0, len(prompts), batch_size):
        chunk = prompts[start:start + batch_size]
        encoded = [prompt_ids(tokenizer, system, p) for p in chunk]
        width = max(len(ids) for ids in encoded)
        # Left padding: every reply starts right after its own prompt.
        input_ids = torch.tensor([[tokenizer.pad_token_id] * (width - len(ids)) + ids
                                  for ids in encoded], device=device)
        mask = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in encoded],
                            device=device)
        with torch.no_grad():
            generated = model.generate(
                input_ids=input_ids, attention_mask=mask, do_sample=True,
                temperature=temperature, top_k=0, top_p=1.0, max_new_tokens=max_new_tokens,
                eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
        for prompt, row in zip(chunk, generated[:, width:].tolist(), strict=True):
            finished = tokenizer.eos_token_id in row
            if finished:
                row = row[:row.index(tokenizer.eos_token_id)]
            out.append(Completion(prompt=prompt, text=tokenizer.decode(row),
                                  tokens=len(row) + int(finished), finished=finished))
    return out


def gate_evaluate(model, tokenizer, prompts: list[str], *, system: str, render: bool = False,
                  seed: int = 0, max_new_tokens: int = 512, temperature: float = 1.0,
                  pool=None) -> dict:
    """Sample one reply per prompt and judge each with the static gate and,
    with `render`, the full gate in the sandboxed renderer (`pool`, or a pool
    from the renderer settings for the call). Pass rates count only the
    verdicts the gate could give: an unavailable render is not a failure."""
    completions = completions_sample(model, tokenizer, prompts, system=system,
                                     temperature=temperature, max_new_tokens=max_new_tokens,
                                     seed=seed)
    samples = []
    for c in completions:
        code = extract_code(c.text)
        static = sorted(static_violations(code)) if code is not None else [NO_CODE]
        samples.append({"prompt": c.prompt, "tokens": c.tokens, "finished": c.finished,
                        "static": static})
    report = {
        "samples": len(samples), "temperature": temperature, "max_new_tokens": max_new_tokens,
        "finished": _share(s["finished"] for s in samples),
        "completion_tokens": _tokens(completions),
        "static_pass": _share(not s["static"] for s in samples),
        "static_violations": dict(Counter(v for s in samples for v in s["static"])),
    }
    if render:
        report.update(_rendered(completions, samples, seed, pool))
    report["per_sample"] = samples
    report["examples"] = [c.text for c in completions[:3]]
    return report


def _rendered(completions: list[Completion], samples: list[dict], seed: int, pool) -> dict:
    if pool is None:
        try:
            with RenderPool(renderer_config()) as own_pool:
                return _rendered(completions, samples, seed, own_pool)
        except RendererUnavailable as exc:
            return {"rendered_pass": None, "render_error": str(exc)}
    workers = max(1, pool.config.browsers)
    with ThreadPoolExecutor(max_workers=workers) as executor:
        outcomes = list(executor.map(lambda c: render_text(pool, c.text, seed), completions))
    for sample, outcome in zip(samples, outcomes, strict=True):
        sample["render"] = outcome.status
        sample["violations"] = outcome.violations
        sample["elapsed_ms"] = outcome.elapsed_ms
    judged = [o for o in outcomes if o.status != UNAVAILABLE]
    return {
        "rendered_pass": _share(o.status == OK for o in judged) if judged else None,
        "render_unavailable": len(outcomes) - len(judged),
        "render_violations": dict(Counter(v for o in judged for v in o.violations)),
        "render_seconds": _summary_s([o.elapsed_ms / 1000 for o in outcomes]),
    }


def _share(flags) -> float:
    flags = list(flags)
    return round(sum(map(bool, flags)) / len(flags), 4) if flags else 0.0


def _tokens(completions: list[Completion]) -> dict:
    lengths = [c.tokens for c in completions] or [0]
    return {"mean": round(statistics.fmean(lengths), 1), "median": statistics.median(lengths),
            "max": max(lengths)}


def _summary_s(values: list[float]) -> dict:
    values = values or [0.0]
    return {"mean": round(statistics.fmean(values), 2), "max": round(max(values), 2)}
