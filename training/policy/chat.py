"""The built-in policy's chat format: its special tokens, its chat template,
and the same text written without a tokenizer (the tokenizer is trained on
it before one exists). The corpus and the build both write it."""
from __future__ import annotations

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


def assistant_text(code: str) -> str:
    """How a sketch appears in a reply."""
    return f"```javascript\n{code.rstrip()}\n```"


def chat_render(messages: list[dict], *, add_generation_prompt: bool = False) -> str:
    """CHAT_TEMPLATE's text without a tokenizer (the tokenizer is trained on
    it before one exists); a test holds the two equal."""
    parts = []
    for message in messages:
        end = EOS if message["role"] == "assistant" else ""
        parts.append(f"<|{message['role']}|>\n{message['content']}{end}\n")
    if add_generation_prompt:
        parts.append("<|assistant|>\n")
    return "".join(parts)
