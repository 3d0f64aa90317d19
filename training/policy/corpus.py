"""The supervised corpus the built-in policy learns from: procedural-painter
sketches as conversations (system prompt, the painter's prompt, the sketch
in a ```javascript reply).

A tiny model on a CPU cannot afford the painter's prose: comments are most
of a painter sketch, so they are stripped (strings kept intact) before the
code becomes a reply. Every quality tier stays in (good, fair and bad all
pass the gate but look different), because GRPO later needs rollouts whose
rewards spread.
"""
from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from sketches.painter import paint

from .chat import assistant_text, chat_render

# Held-out prompts come from seeds this far past the training range, so an
# evaluation never asks for a sketch the policy was trained on.
HELDOUT_OFFSET = 1_000_000


@dataclass(frozen=True)
class Example:
    """One conversation: `completion` is the assistant reply without EOS
    (the chat template and `completion_ids` add it)."""

    prompt: str
    completion: str
    meta: dict = field(default_factory=dict)

    def messages(self, system: str, *, with_reply: bool = True) -> list[dict]:
        chat = [{"role": "system", "content": system}, {"role": "user", "content": self.prompt}]
        if with_reply:
            chat.append({"role": "assistant", "content": self.completion})
        return chat


def code_compact(code: str) -> str:
    """`code` without comments, trailing spaces or runs of blank lines; a
    line that held only a comment goes entirely.

    Strings and template literals are copied verbatim, so a `//` inside a
    colour or URL string survives. Regex literals are not parsed (the painter
    writes none)."""
    gone = "\0"  # marks where a comment was, so comment-only lines can be dropped
    out: list[str] = []
    i, n = 0, len(code)
    while i < n:
        c, nxt = code[i], code[i + 1:i + 2]
        if c == "/" and nxt == "/":
            end = code.find("\n", i)
            i = n if end < 0 else end
            out.append(gone)
        elif c == "/" and nxt == "*":
            end = code.find("*/", i + 2)
            i = n if end < 0 else end + 2
            out.append(gone)
        elif c in "'\"`":
            j = i + 1
            while j < n and code[j] != c:
                j += 2 if code[j] == "\\" else 1
            out.append(code[i:j + 1])
            i = j + 1
        else:
            out.append(c)
            i += 1
    lines: list[str] = []
    for line in "".join(out).split("\n"):
        bare = line.replace(gone, "").rstrip()
        if not bare and gone in line:
            continue
        if bare or (lines and lines[-1]):
            lines.append(bare)
    return "\n".join(lines).strip("\n") + "\n"


def corpus_examples(count: int, *, seed: int = 0, size: int = 400) -> list[Example]:
    """Painter sketches for seeds `seed .. seed+count-1` as conversations.
    The painter balances subjects over any 12 consecutive seeds and draws
    tiers at about 35/35/30 % good/fair/bad."""
    examples = []
    for s in range(seed, seed + count):
        sketch = paint(s, size=size)
        meta = {key: sketch.meta[key] for key in ("seed", "subject", "quality", "flaws", "fills")}
        examples.append(Example(prompt=sketch.prompt,
                                completion=assistant_text(code_compact(sketch.code)), meta=meta))
    return examples


def heldout_prompts(count: int, *, seed: int = 0) -> list[str]:
    """Painter prompts from seeds the corpus never uses, subjects balanced."""
    start = seed + HELDOUT_OFFSET
    return [paint(s).prompt for s in range(start, start + count)]


def chat_texts(examples: Iterable[Example], system: str) -> Iterator[str]:
    """The full chat text of each example: what the tokenizer learns from."""
    for example in examples:
        yield chat_render(example.messages(system))


def prompt_ids(tokenizer, system: str, prompt: str) -> list[int]:
    """Token ids of the conversation up to the assistant's turn, exactly as a
    run hands them to `generate`."""
    messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    return list(tokenizer.apply_chat_template(messages, add_generation_prompt=True,
                                              tokenize=True, return_dict=False))


def completion_ids(tokenizer, completion: str) -> list[int]:
    """Token ids of the reply, ended by EOS so the policy learns to stop."""
    ids = tokenizer(completion, add_special_tokens=False)["input_ids"]
    return [*ids, tokenizer.eos_token_id]


def within_budget(examples: list[Example], tokenizer, max_tokens: int) -> list[Example]:
    """The examples whose reply (with EOS) fits in `max_tokens`."""
    return [e for e in examples if len(completion_ids(tokenizer, e.completion)) <= max_tokens]


def shortest_share(examples: list[Example], tokenizer, share: float) -> list[Example]:
    """Within each (subject, tier) cell, the `share` of examples with the
    shortest replies, in corpus order. A tiny policy sampled at temperature 1
    breaks the syntax about equally often per token, so shorter sketches pass
    the gate more often; cutting per cell keeps every subject and tier in
    the proportions the painter gives them."""
    if not 0 < share <= 1:
        raise ValueError(f"share must be in (0, 1], got {share}")
    cells: dict[tuple, list[tuple[int, int]]] = {}
    for index, example in enumerate(examples):
        key = (example.meta.get("subject"), example.meta.get("quality"))
        length = len(completion_ids(tokenizer, example.completion))
        cells.setdefault(key, []).append((length, index))
    keep: set[int] = set()
    for members in cells.values():
        members.sort()
        keep.update(index for _, index in members[:max(1, round(share * len(members)))])
    return [example for index, example in enumerate(examples) if index in keep]


def corpus_stats(examples: list[Example], tokenizer=None) -> dict:
    """What the corpus holds: tiers, subjects, characters and (with a
    tokenizer) completion tokens, so a policy records what it learnt from."""
    stats: dict = {
        "examples": len(examples),
        "tiers": dict(Counter(e.meta.get("quality", "?") for e in examples)),
        "subjects": dict(Counter(e.meta.get("subject", "?") for e in examples)),
        "completion_chars": _summary([len(e.completion) for e in examples]),
    }
    if tokenizer is not None and examples:
        lengths = [len(completion_ids(tokenizer, e.completion)) for e in examples]
        stats["completion_tokens"] = _summary(lengths)
        by_tier: dict[str, list[int]] = {}
        for example, n in zip(examples, lengths, strict=True):
            by_tier.setdefault(example.meta.get("quality", "?"), []).append(n)
        stats["completion_tokens_by_tier"] = {t: _summary(v) for t, v in sorted(by_tier.items())}
    return stats


def _summary(values: list[int]) -> dict:
    if not values:
        return {"mean": 0, "median": 0, "p90": 0, "min": 0, "max": 0}
    ordered = sorted(values)
    return {"mean": round(statistics.fmean(ordered), 1), "median": statistics.median(ordered),
            "p90": ordered[int(0.9 * (len(ordered) - 1))], "min": ordered[0], "max": ordered[-1]}
