"""A canned policy: a real checkpoint folder, loaded by policy_load like any
other (the built-in policy's Qwen3 architecture), that can only write one of
a few fixed replies, each a painter sketch the gate passes. The test policy
(tests/policy_data.py) writes sketch-shaped text the gate mostly rejects, so
the paths that need rendered rollouts (a calibration's measuring, a run's
judged rewards, a re-calibration) would go untried on a real worker; this
policy walks them in seconds, with the real tokenizer, generate, TRL and
renders.

How it is built (no training): each reply is one token of its tokenizer, and
the model's layers add nothing to the residual stream (their output
projections are zero), so the next token hangs on the last token alone.
After any other token comes one of the replies, all equally likely (a
group's rollouts still differ, so GRPO has spread to learn from); after a
reply, EOS. Every other token sits LOGIT_MARGIN below, out of reach at
temperature 1 (e^-60 per token)."""
from __future__ import annotations

import json
from pathlib import Path

from sketches.painter import paint

from .build import POLICY_RECORD
from .chat import BOS, CHAT_TEMPLATE, EOS, PAD, SPECIAL_TOKENS, assistant_text
from .corpus import code_compact

UNK = "<|unk|>"  # what every word of a prompt reads as: the policy never looks at it
HIDDEN = 8  # the smallest width Qwen3 takes with one head; two directions are used
LOGIT_MARGIN = 60.0  # a reply's (or EOS's) logit above every other token's
REPLY, END = 0, 1  # the two directions: "a reply may start here", "a reply was written"
# The painter seeds of the default replies: four subjects over the fair and
# bad tiers (a vase, a fruit bowl, a peony, a mountain lake), so rollouts
# differ in what a judge sees, chosen among the first 30 seeds for the
# lightest renders: tests render them within their 8 s deadline on a loaded
# machine, where the good tier's layered watercolours took up to 12 s
# (sketches.rendering.render_text on each of seeds 0-29, one browser).
CANNED_SEEDS = (3, 6, 8, 9)


def canned_replies(seeds: tuple[int, ...] = CANNED_SEEDS, *, size: int = 400) -> list[str]:
    """The painter's sketches for `seeds`, as a reply writes them
    (corpus_examples' form); every tier of the painter passes the gate (a
    test renders each canned reply to hold it)."""
    return [assistant_text(code_compact(paint(seed, size=size).code)) for seed in seeds]


def canned_tokenizer(replies: list[str]):
    """Special tokens, an unknown-word token and one token per reply, with the
    built-in policy's chat template."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate([*SPECIAL_TOKENS, UNK, *replies])}
    if len(vocab) != len(SPECIAL_TOKENS) + 1 + len(replies):
        raise ValueError("the canned replies must differ from each other and the special tokens")
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token=UNK))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.add_special_tokens(SPECIAL_TOKENS)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, bos_token=BOS, eos_token=EOS,
                                        pad_token=PAD, unk_token=UNK)
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def canned_model(tokenizer, replies: list[str]):
    """The Qwen3 model described in the module docstring."""
    import torch
    from transformers import GenerationConfig, Qwen3Config, Qwen3ForCausalLM

    config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=HIDDEN, intermediate_size=HIDDEN,
                         num_hidden_layers=1, num_attention_heads=1, num_key_value_heads=1,
                         head_dim=HIDDEN, max_position_embeddings=2048,
                         tie_word_embeddings=False, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    model = Qwen3ForCausalLM(config)
    reply_ids = tokenizer.convert_tokens_to_ids(replies)
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if name.endswith(("o_proj.weight", "down_proj.weight")):
                parameter.zero_()  # the layers add nothing: the residual is the embedding
        embed = model.model.embed_tokens.weight
        embed.zero_()
        embed[:, REPLY] = 1.0
        embed[reply_ids, REPLY], embed[reply_ids, END] = 0.0, 1.0
        # The final RMSNorm scales a one-hot row to sqrt(HIDDEN) in its direction.
        head = model.lm_head.weight
        head.zero_()
        head[reply_ids, REPLY] = LOGIT_MARGIN / HIDDEN ** 0.5
        head[tokenizer.eos_token_id, END] = LOGIT_MARGIN / HIDDEN ** 0.5
    model.generation_config = GenerationConfig(
        do_sample=True, temperature=1.0, top_k=0, top_p=1.0, max_new_tokens=8,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id)
    return model


def canned_policy_build(out_dir: str | Path, *, replies: list[str] | None = None) -> Path:
    """Write a canned policy writing `replies` (canned_replies() when None) to
    `out_dir`, with a paintrl_policy.json that says what it is."""
    replies = list(replies) if replies is not None else canned_replies()
    if not replies:
        raise ValueError("a canned policy needs at least one reply")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = canned_tokenizer(replies)
    canned_model(tokenizer, replies).save_pretrained(out)
    tokenizer.save_pretrained(out)
    (out / POLICY_RECORD).write_text(json.dumps(
        {"kind": "canned", "replies": len(replies),
         "note": "writes only its fixed replies (training.policy.canned)"}, indent=2) + "\n")
    return out
