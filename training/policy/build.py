"""Building a policy from nothing: a byte-level BPE tokenizer trained on the
procedural corpus, with a chat template, and a small Qwen2-style causal LM.

The chat template makes the built-in policy conversational like a real chat
checkpoint (a Qwen instruct model), so runs hand both the same messages:
a system prompt, the user's prompt, and the assistant's sketch in a
```javascript block, ended by the end-of-text token.
"""
from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

BOS, EOS, PAD = "<|bos|>", "<|endoftext|>", "<|pad|>"
ROLES = ("system", "user", "assistant")
SPECIAL_TOKENS = [PAD, BOS, EOS, *(f"<|{role}|>" for role in ROLES)]

# One role marker per message; an assistant message ends with EOS so the
# model learns to stop after the sketch.
# (Newlines are written as {{ '\n' }}: transformers renders templates with
# trim_blocks, which eats a newline that follows a block tag.)
CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "<|{{ message['role'] }}|>{{ '\\n' }}{{ message['content'] }}"
    "{% if message['role'] == 'assistant' %}" + EOS + "{% endif %}{{ '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{{ '\\n' }}{% endif %}"
)

# Model sizes: "test" builds in a second for the test suite; "tiny" is the
# built-in policy (about 5M parameters).
SIZES = {
    "test": {"hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
             "num_attention_heads": 2, "num_key_value_heads": 1},
    "tiny": {"hidden_size": 256, "intermediate_size": 768, "num_hidden_layers": 4,
             "num_attention_heads": 4, "num_key_value_heads": 2},
}


def assistant_text(code: str) -> str:
    """How a sketch appears in a reply."""
    return f"```javascript\n{code.rstrip()}\n```"


def tokenizer_train(texts: Iterable[str], *, vocab_size: int = 4096):
    """A byte-level BPE tokenizer (transformers' fast tokenizer) with our
    special tokens and chat template."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL_TOKENS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    core.train_from_iterator(texts, trainer=trainer)
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, bos_token=BOS, eos_token=EOS,
                                        pad_token=PAD)
    tokenizer.chat_template = CHAT_TEMPLATE
    return tokenizer


def model_build(tokenizer, *, size: str = "tiny", max_positions: int = 2048, seed: int = 0):
    """An untrained Qwen2 causal LM for `tokenizer`."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    if size not in SIZES:
        raise ValueError(f"size must be one of {', '.join(SIZES)}")
    torch.manual_seed(seed)
    config = Qwen2Config(vocab_size=len(tokenizer), max_position_embeddings=max_positions,
                         tie_word_embeddings=True, bos_token_id=tokenizer.bos_token_id,
                         eos_token_id=tokenizer.eos_token_id,
                         pad_token_id=tokenizer.pad_token_id, **SIZES[size])
    return Qwen2ForCausalLM(config)


def policy_init(out_dir: str | Path, *, texts: Iterable[str], size: str = "tiny",
                vocab_size: int = 4096, seed: int = 0) -> Path:
    """Write an untrained policy (tokenizer + model) to `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = tokenizer_train(texts, vocab_size=vocab_size)
    model = model_build(tokenizer, size=size, seed=seed)
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return out
