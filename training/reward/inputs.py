"""What a signal reads of one rollout (`SignalInput`: code, verdict,
picture, group) and what a batch is scored against (`SignalContext`: the
judges, the pool snapshot, the seed of the references' draw)."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sketches.rendering import OK, REJECTED, UNAVAILABLE

from .judges import JudgeBackend, Picture

# Rough code tokens where no tokenizer counted them: identifiers, numbers and
# single punctuation marks, which tracks a BPE tokenizer on JavaScript within
# about a quarter.
TOKEN = re.compile(r"[A-Za-z_$][\w$]*|\d+(?:\.\d+)?|\S")


def approx_tokens(code: str) -> int:
    return len(TOKEN.findall(code))


@dataclass
class SignalInput:
    """What a signal needs to know about one rollout."""

    key: str  # stable: seeds the draw of references when there is no group
    prompt: str
    code: str
    status: str  # sketches.rendering OK / REJECTED / UNAVAILABLE
    violations: Sequence[str] = ()
    picture: Picture | None = None
    tokens: int | None = None  # the policy's own count, when there is one
    # The GRPO group's key: rollouts that share it face the same references, so
    # identical code in a group earns an identical reward, and a draw's luck
    # (an easy reference) cancels in the advantage: shared draws hold the
    # expected advantages far more closely than draws per rollout
    # (benchmarks/reference_noise.py; its figures in docs/benchmarks.md).
    # "" for one alone.
    group: str = ""

    @property
    def token_count(self) -> int:
        return self.tokens if self.tokens is not None else approx_tokens(self.code)


def rollout_from_render(render) -> SignalInput:
    """A stored Render (status ok or rejected; anything else counts as unavailable)."""
    status = {render.Status.OK: OK, render.Status.REJECTED: REJECTED}.get(render.status,
                                                                          UNAVAILABLE)
    picture = None
    if status == OK and render.png:
        picture = Picture.stored(render.png.name)
    return SignalInput(key=f"render:{render.pk}", prompt=render.sketch.prompt,
                       code=render.sketch.code, status=status,
                       violations=tuple(render.violations or ()), picture=picture)


def rollout_from_outcome(*, key: str, prompt: str, text: str, outcome,
                         tokens: int | None = None, group: str = "") -> SignalInput:
    """A rollout rendered just now (sketches.rendering.RenderOutcome), not stored."""
    picture = Picture(data=outcome.png) if outcome.status == OK and outcome.png else None
    return SignalInput(key=key, prompt=prompt, code=text, status=outcome.status,
                       violations=tuple(outcome.violations), picture=picture, tokens=tokens,
                       group=group)


@dataclass
class SignalContext:
    """The judges and the pool a batch is scored against."""

    judge: JudgeBackend | None  # pairwise and absolute questions
    scorer: JudgeBackend | None  # the preference score
    snapshot: object | None = None  # pool.models.PoolSnapshot, for pairwise
    seed: int | str = 0
    notices: list[str] = field(default_factory=list)
    # Why a role's backend is None ("judge", "scorer" -> the reason).
    missing: dict[str, str] = field(default_factory=dict)
    # The members pairwise references are drawn from; None: all of the
    # snapshot's (a re-calibrating run narrows it: training.calibration.recalibrate).
    references_among: frozenset[int] | None = None
    _reference_pictures: dict = field(default_factory=dict)

    def notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    def reference_picture(self, member) -> Picture:
        if member.pk not in self._reference_pictures:
            self._reference_pictures[member.pk] = Picture.stored(member.png)
        return self._reference_pictures[member.pk]
