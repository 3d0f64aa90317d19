"""Building a policy from nothing: a byte-level BPE tokenizer trained on the
procedural corpus, with a chat template, and a small Qwen3-style causal LM;
`policy_bootstrap` runs the whole recipe (corpus, tokenizer, model, SFT,
gate evaluation) and saves a folder `policy_load` reads like any checkpoint.

The chat template makes the built-in policy conversational like a real chat
checkpoint (a Qwen instruct model), so runs hand both the same messages:
a system prompt, the user's prompt, and the assistant's sketch in a
```javascript block, ended by the end-of-text token.
"""
from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterable
from pathlib import Path

from training.presets import SYSTEM_PROMPT

from .chat import BOS, CHAT_TEMPLATE, EOS, PAD, SPECIAL_TOKENS
from .corpus import (
    HELDOUT_OFFSET,
    chat_texts,
    corpus_examples,
    corpus_stats,
    heldout_prompts,
    shortest_share,
    within_budget,
)
from .sample import gate_evaluate

# Model sizes: "test" builds in a second for the test suite; "tiny" is the
# built-in policy (5.2M parameters with 8,192 tokens, 2.1M of them the tied
# embedding), wider and shallower than a variant that trained at the same
# speed to a worse held-out loss (docs/benchmarks.md, "Measured constants").
SIZES = {
    "test": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 2, "num_key_value_heads": 1},
    "tiny": {"hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 4,
             "num_attention_heads": 4, "num_key_value_heads": 2},
}

# What `bootstrap_policy` trains each size with, unless told otherwise: a
# number of steps or a time budget. Tiny trains a fixed number of steps (what
# a 10-minute budget gave with the machine to itself), so the policy learns as
# much on a busy machine, where a time budget gets far fewer. Its corpus is
# large enough that SFT sees each sketch about once (fewer seeds, seen more
# often, are memorised), at the learning rate that beat twice it; the
# shortest 70 % of each subject and tier, and logits scaled by 1.5, because
# the rendered gate pass at temperature 1 grows as the sketches shorten and
# the policy sharpens, while 8 samples per prompt stay all different (GRPO
# needs that spread). The figures behind each choice: docs/benchmarks.md,
# "Measured constants"; the build's own: `manage.py bootstrap_policy` (its
# paintrl_policy.json).
RECIPES = {
    "test": {"steps": None, "minutes": 0.1, "count": 200, "vocab_size": 4096,
             "learning_rate": 3e-3, "batch_size": 8, "shortest": 1.0, "logit_scale": 1.0},
    "tiny": {"steps": 1150, "minutes": None, "count": 20000, "vocab_size": 8192,
             "learning_rate": 5e-3, "batch_size": 16, "shortest": 0.7, "logit_scale": 1.5},
}
POLICY_RECORD = "paintrl_policy.json"  # what the policy learnt from and how it did
# The tokenizer is fitted to this many sketches of the corpus: BPE training
# time grows with the text, and 3,000 sketches already hold every statement
# the painter writes many times over.
TOKENIZER_EXAMPLES = 3000
# Held-out painter sketches whose loss is measured before and after SFT.
HELDOUT_EXAMPLES = 48


# How far a token may reach: across lines ("text"), within a line ("line"),
# or within a word or number ("word", GPT-2's rule). Measured on 2,000
# comment-free painter sketches (median reply tokens, 4096 / 8192 tokens):
# word ~930 / ~930 (merges run out), line 184 / 135, text capped at 96
# characters 142 / 82. Fewer tokens make SFT cheaper and give temperature-1
# sampling fewer chances to break the syntax.
SPANS = ("text", "line", "word")
MAX_TOKEN_CHARS = 96


def tokenizer_train(texts: Iterable[str], *, vocab_size: int = 8192, span: str = "text",
                    max_token_chars: int | None = MAX_TOKEN_CHARS):
    """A byte-level BPE tokenizer (transformers' fast tokenizer) with our
    special tokens and chat template, fitted to `texts`.

    With span "text" a token may cover a whole statement and the indent of
    the next (`);\n  brush.`), up to `max_token_chars`, so what the corpus
    repeats costs one token. Every byte stays a token, so any code can still
    be written."""
    from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    if span not in SPANS:
        raise ValueError(f"span must be one of {', '.join(SPANS)}, got {span!r}")
    core = Tokenizer(models.BPE())
    byte_level = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=span == "word")
    if span == "line":
        core.pre_tokenizer = pre_tokenizers.Sequence([
            pre_tokenizers.Split(Regex("\n"), "merged_with_previous"), byte_level])
    else:
        core.pre_tokenizer = byte_level
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  min_frequency=2, max_token_length=max_token_chars,
                                  show_progress=False)
    core.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, bos_token=BOS, eos_token=EOS,
                                        pad_token=PAD)
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def model_build(tokenizer, *, size: str = "tiny", max_positions: int = 2048, seed: int = 0):
    """An untrained Qwen3 causal LM for `tokenizer`, whose default sampling
    is plain temperature-1 sampling (no top-k), as GRPO samples.

    Qwen3, not Qwen2: transformers 5's AutoTokenizer rebuilds the tokenizer
    of any "qwen2" checkpoint with Qwen2's own pre-tokenizer (model types it
    lists as having a wrong hub tokenizer class), which silently re-splits our
    text and wrecks a trained policy; a "qwen3" folder loads tokenizer.json
    as saved."""
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, got {size!r}")
    torch.manual_seed(seed)
    shape = SIZES[size]
    config = Qwen3Config(vocab_size=len(tokenizer), max_position_embeddings=max_positions,
                         head_dim=shape["hidden_size"] // shape["num_attention_heads"],
                         tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, **shape)
    model = Qwen3ForCausalLM(config)
    model.generation_config = GenerationConfig(
        do_sample=True, temperature=1.0, top_k=0, top_p=1.0, max_new_tokens=512,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id)
    return model


def policy_exists(out_dir: str | Path) -> bool:
    return (Path(out_dir) / "config.json").exists()


def policy_record(out_dir: str | Path) -> dict:
    """What the policy's build recorded (POLICY_RECORD): {} for a policy built
    elsewhere, or a record that cannot be read."""
    try:
        record = json.loads((Path(out_dir) / POLICY_RECORD).read_text())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def _check_target(out: Path, force: bool) -> None:
    """Refuse to replace a policy without `force`, and never replace a folder
    that holds something other than a policy."""
    if policy_exists(out):
        if not force:
            raise FileExistsError(f"a policy already exists at {out}; pass force (--force) "
                                  "to replace it")
    elif out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise FileExistsError(f"{out} exists and is not a policy folder; choose another")


def policy_bootstrap(out_dir: str | Path, *, size: str = "tiny", count: int = 2000,
                     seed: int = 0, vocab_size: int = 8192, max_completion_tokens: int = 512,
                     shortest: float = 1.0, sft=None, logit_scale: float = 1.0,
                     evaluate: int = 24,
                     render: bool = False, force: bool = False, system: str | None = None,
                     on_progress: Callable | None = None,
                     log: Callable[[str], None] = lambda text: None) -> dict:
    """Build the built-in policy in `out_dir`: painter corpus (the `shortest`
    share of each subject and tier) -> tokenizer -> Qwen3 model -> SFT
    (`sft`, an SftConfig) -> logits scaled by `logit_scale` -> gate
    evaluation on held-out prompts (`evaluate` samples at temperature 1;
    rendered when `render`).

    The folder appears whole or not at all: everything is written to a
    hidden sibling and renamed into place. Returns what paintrl_policy.json
    records. Raises FileExistsError when a policy is there and not `force`."""
    import time

    from .sft import SftConfig, sft_train  # torch: build.py is the web's (policy_exists)

    out = Path(out_dir)
    _check_target(out, force)
    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}, got {size!r}")
    if logit_scale <= 0:
        raise ValueError(f"logit_scale must be positive, got {logit_scale}")
    system = SYSTEM_PROMPT if system is None else system
    sft = sft or SftConfig(seed=seed)
    started = time.monotonic()
    examples, tokenizer, corpus = _corpus_prepare(count, seed, system, vocab_size,
                                                  max_completion_tokens, shortest, log)
    model = model_build(tokenizer, size=size, seed=seed)
    parameters = sum(p.numel() for p in model.parameters())
    log(f"model: Qwen3 size {size!r}, {parameters:,} parameters")
    heldout = within_budget(corpus_examples(HELDOUT_EXAMPLES, seed=seed + HELDOUT_OFFSET),
                            tokenizer, max_completion_tokens)
    training = sft_train(model, tokenizer, examples, system=system, config=sft,
                         on_progress=on_progress, heldout=heldout)
    record = {"size": size, "parameters": parameters, "system_prompt": system,
              "corpus": corpus, "training": training, "logit_scale": logit_scale}
    if evaluate and logit_scale != 1:
        # What plain SFT gives, so the effect of the scaling stays on record.
        record["evaluation_unscaled"] = _evaluate(model, tokenizer, evaluate, seed, system,
                                                  render, max_completion_tokens, log)
    logits_scale(model, logit_scale)
    record["evaluation"] = (_evaluate(model, tokenizer, evaluate, seed, system, render,
                                      max_completion_tokens, log) if evaluate else None)
    record["seconds"] = round(time.monotonic() - started, 1)
    _policy_save(out, model, tokenizer, record)
    return record


def logits_scale(model, scale: float) -> None:
    """Multiply the policy's logits by `scale` for good, by scaling the final
    norm's weights (logits are linear in them): sampling the result at
    temperature 1 is sampling the original at temperature 1/scale. The
    weights stay trainable, so GRPO can move the sharpness either way."""
    import torch

    if scale == 1:
        return
    with torch.no_grad():
        model.get_decoder().norm.weight.mul_(scale)


def _corpus_prepare(count, seed, system, vocab_size, max_completion_tokens, shortest, log):
    """The corpus examples, a tokenizer fitted to them, and the corpus stats."""
    examples = corpus_examples(count, seed=seed)
    log(f"corpus: {len(examples)} painter sketches (seeds {seed}..{seed + count - 1})")
    tokenizer = tokenizer_train(chat_texts(examples[:TOKENIZER_EXAMPLES], system),
                                vocab_size=vocab_size)
    within = within_budget(examples, tokenizer, max_completion_tokens)
    examples = shortest_share(within, tokenizer, shortest) if shortest < 1 else within
    corpus = corpus_stats(examples, tokenizer)
    corpus.update(painter_seeds=[seed, seed + count - 1], dropped_over_budget=count - len(within),
                  shortest_share=shortest, max_completion_tokens=max_completion_tokens,
                  vocab_size=len(tokenizer))
    log(f"tokenizer: {len(tokenizer)} tokens; completion tokens {corpus['completion_tokens']}")
    return examples, tokenizer, corpus


def _evaluate(model, tokenizer, count, seed, system, render, max_new_tokens, log) -> dict:
    log(f"evaluating: {count} samples at temperature 1.0" + (" with renders" if render else ""))
    return gate_evaluate(model, tokenizer, heldout_prompts(count, seed=seed), system=system,
                         render=render, seed=seed, max_new_tokens=max_new_tokens)


def _policy_save(out: Path, model, tokenizer, record: dict) -> None:
    """Write the policy to a hidden sibling of `out`, then rename it into place."""
    staging = out.parent / f".{out.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        model.save_pretrained(staging)
        tokenizer.save_pretrained(staging)
        (staging / POLICY_RECORD).write_text(json.dumps(record, indent=2) + "\n")
        for path in staging.iterdir():
            # transformers writes the weights owner-only; the web process and
            # the workers may run as other users.
            path.chmod(0o644)
        _swap_into_place(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_into_place(staging: Path, out: Path) -> None:
    """Rename `staging` to `out`, moving an old `out` aside first (a rename
    within one folder is atomic; the old policy is removed only afterwards)."""
    old = out.parent / f".{out.name}.old-{os.getpid()}"
    if out.exists():
        out.rename(old)
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
