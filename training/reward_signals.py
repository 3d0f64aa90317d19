"""Reward signals: the values of a rubric's signals (training.rubrics) for a
batch of rollouts, each distinct computation done once and in batches, so a
judge scores or compares a whole batch at once.

Who is to blame decides between 0 and None. A sketch the gate rejected made
no picture: it scores 0 on every picture signal (it loses every comparison).
A render the browser could not produce ("unavailable") or a question the
judge could not answer this time is None: no opinion, counted and shown,
never 0. One None among a rollout's weighted signals leaves the rollout with
no total (training.rubrics.rubric_total): GRPO optimises what is paid for,
and a total of whatever happened to answer would pay a rollout for failing.

A question the configured judges can NEVER answer (`signal_problem`: the
local reward model asked about adherence to a prompt it never sees, no
active reward model at all, pairwise with no pool snapshot) would make every
total None: it is found before scoring, and the launch and the replay lab
refuse it or drop the signal openly.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pool.references import references_sample
from sketches import gate
from sketches.rendering import OK, REJECTED, UNAVAILABLE

from .judges import JudgeBackend, JudgeUnavailable, Picture, judge_backend
from .rubrics import (
    ABSOLUTE,
    BRUSH_GATE,
    COMPILE_GATE,
    GATE,
    LENGTH,
    PAIRWISE,
    PREFERENCE,
    SignalSpec,
)

# What stops a sketch compiling and running, and what says it did not paint
# with p5.brush (v1 checked these separately).
COMPILE_FAILURES = frozenset({gate.NO_CODE, gate.TRUNCATED, gate.SYNTAX_ERROR, gate.NO_SETUP,
                              gate.RUNTIME_ERROR, gate.TIMEOUT, gate.CRASHED})
BRUSH_FAILURES = frozenset({gate.NO_BRUSH_PAINTING, gate.PLAIN_PRIMITIVES_ONLY,
                            gate.UNKNOWN_BRUSH_METHOD, gate.NOT_WEBGL, gate.BLANK_CANVAS,
                            # Paint laid by other routes than p5.brush.
                            gate.PLAIN_PAINTING, gate.DIRECT_PIXELS, gate.EMBEDDED_IMAGE,
                            gate.RAW_WEBGL})

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


def signal_context_for(*, judge, scorer, snapshot=None, seed: int | str = 0,
                       notices: list[str] | None = None) -> SignalContext:
    """The context two `training.models.Judge` rows configure. A backend that
    cannot answer anything (JudgeUnavailable) is None; why is kept in
    `missing` and noticed."""
    notices = [] if notices is None else notices
    backends: dict[str, JudgeBackend | None] = {}
    missing: dict[str, str] = {}
    for role, row in (("judge", judge), ("scorer", scorer)):
        try:
            backends[role] = judge_backend(row)
        except JudgeUnavailable as unavailable:
            backends[role] = None
            missing[role] = f"{role} {row.name}: {unavailable}"
            if missing[role] not in notices:
                notices.append(missing[role])
    return SignalContext(judge=backends["judge"], scorer=backends["scorer"], snapshot=snapshot,
                         seed=seed, notices=notices, missing=missing)


# Which backend of a context answers each judged kind (the others need none).
ASKED_OF = {PREFERENCE: "scorer", PAIRWISE: "judge", ABSOLUTE: "judge"}


def signal_problem(spec: SignalSpec, context: SignalContext) -> str | None:
    """Why `spec` can never be computed in `context`, with the way out where
    it is known; None when it can be (module docstring)."""
    role = ASKED_OF.get(spec.kind)
    if role is None:
        return None
    reasons = []
    backend = getattr(context, role)
    if backend is None:
        reasons.append(context.missing.get(role) or f"no {role} is configured")
    elif (reason := backend.cannot_answer(spec)) is not None:
        reasons.append(reason)
    if spec.kind == PAIRWISE:
        if context.snapshot is None:
            reasons.append("no pool snapshot was chosen: choose a pool snapshot")
        elif not context.snapshot.members.exists():
            reasons.append(f"pool snapshot {context.snapshot.name!r} holds no references: "
                           "choose a pool snapshot that has some")
    return "; ".join(reasons) or None


def signals_unanswerable(specs: Sequence[SignalSpec], context: SignalContext) -> list[dict]:
    """The weighted signals `context` can never compute, as the records a
    drop stores: {name, kind, weight, reason}."""
    found = []
    for spec in specs:
        reason = signal_problem(spec, context) if spec.weight > 0 else None
        if reason is not None:
            found.append({"name": spec.name, "kind": spec.kind, "weight": spec.weight,
                          "reason": reason})
    return found


def unanswerable_text(found: Sequence[dict], *, how_to_drop: str) -> str:
    """The refusal for `found` (signals_unanswerable): each signal, its weight
    and why (with the way out), then the other way out: dropping them."""
    each = "; ".join(f"{entry['name']} (weight {entry['weight']:g}): {entry['reason']}"
                     for entry in found)
    return (f"the judges can never answer {each}. Fix the configuration, or drop "
            f"{'it' if len(found) == 1 else 'them'} openly ({how_to_drop}): a dropped "
            "signal is shown with its weight, and the others' shares grow")


def signals_compute(specs: Sequence[SignalSpec], rollouts: Sequence[SignalInput],
                    context: SignalContext) -> list[dict[str, float | None]]:
    """Each rollout's values, keyed by SignalSpec.key (specs that share a key
    are computed once)."""
    out: list[dict[str, float | None]] = [{} for _ in rollouts]
    done = set()
    for spec in specs:
        if spec.key in done:
            continue
        done.add(spec.key)
        values = COMPUTE[spec.kind](spec, rollouts, context)
        for row, value in zip(out, values, strict=True):
            row[spec.key] = None if value is None else float(min(1.0, max(0.0, value)))
    for backend in (context.judge, context.scorer):
        for text in getattr(backend, "notices", ()):
            context.notice(text)
    return out


def _gate(failures: frozenset[str] | None) -> Callable:
    def compute(spec, rollouts, context):
        values = []
        for rollout in rollouts:
            if rollout.status == UNAVAILABLE:
                values.append(None)
            elif failures is None:
                values.append(1.0 if rollout.status == OK else 0.0)
            else:
                values.append(0.0 if failures & set(rollout.violations) else 1.0)
        return values
    return compute


def _length(spec, rollouts, context):
    params = spec.params
    values = []
    for rollout in rollouts:
        tokens = rollout.token_count
        if params["mode"] == "bound":
            values.append(1.0 if params["min_tokens"] <= tokens <= params["max_tokens"] else 0.0)
        else:
            values.append(min(tokens / params["target_tokens"], 1.0))
    return values


def _picture_signal(ask: Callable, backend_of: Callable) -> Callable:
    """A signal that asks a judge about each rollout's own picture: 0 for a
    rejected sketch, None for an unavailable render or a missing judge."""
    def compute(spec, rollouts, context):
        backend = backend_of(context)
        values: list[float | None] = [0.0 if r.status == REJECTED else None for r in rollouts]
        chosen = [i for i, r in enumerate(rollouts) if r.status == OK and r.picture is not None]
        if backend is None:
            if chosen:
                context.notice(f"{spec.name}: no judge is available, so it is None")
            return values
        if chosen:
            answers = ask(backend, spec, [rollouts[i] for i in chosen])
            for i, value in zip(chosen, answers, strict=True):
                values[i] = value
        return values
    return compute


def _ask_preference(backend, spec, rollouts):
    return backend.preference([r.picture for r in rollouts], [r.prompt for r in rollouts])


def _ask_rate(backend, spec, rollouts):
    return backend.rate([r.picture for r in rollouts], [r.prompt for r in rollouts],
                        spec.params["criterion"])


def _pairwise(spec, rollouts, context):
    """Win fraction against k references drawn from the snapshot for the
    rollout's prompt (seeded by its group, or its key); a comparison the judge
    could not answer is left out of the fraction, and a rollout with none
    answered is None."""
    values: list[float | None] = [0.0 if r.status == REJECTED else None for r in rollouts]
    chosen = [i for i, r in enumerate(rollouts) if r.status == OK and r.picture is not None]
    if not chosen:
        return values
    if context.snapshot is None:
        context.notice(f"{spec.name}: no pool snapshot was chosen, so it is None")
        return values
    if context.judge is None:
        context.notice(f"{spec.name}: no judge is available, so it is None")
        return values
    pairs, prompts, owners = [], [], []
    for i in chosen:
        rollout = rollouts[i]
        references = references_sample(context.snapshot, prompt=rollout.prompt,
                                       k=spec.params["k"], okay_share=spec.params["okay_share"],
                                       seed=f"{context.seed}:{rollout.group or rollout.key}",
                                       among=context.references_among)
        for member in references:
            pairs.append((rollout.picture, context.reference_picture(member)))
            prompts.append(rollout.prompt)
            owners.append(i)
    answers = context.judge.compare(pairs, prompts)
    wins: dict[int, list[float]] = {}
    for owner, answer in zip(owners, answers, strict=True):
        if answer is not None:
            wins.setdefault(owner, []).append(answer)
    for i in chosen:
        won = wins.get(i)
        values[i] = sum(won) / len(won) if won else None
    return values


COMPUTE: dict[str, Callable] = {
    GATE: _gate(None),
    COMPILE_GATE: _gate(COMPILE_FAILURES),
    # A sketch that never ran never painted with the brush either.
    BRUSH_GATE: _gate(BRUSH_FAILURES | COMPILE_FAILURES),
    LENGTH: _length,
    PREFERENCE: _picture_signal(_ask_preference, lambda context: context.scorer),
    ABSOLUTE: _picture_signal(_ask_rate, lambda context: context.judge),
    PAIRWISE: _pairwise,
}
