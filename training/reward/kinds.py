"""The signal kinds: for each, the parameters it takes (defaults and checks),
the question it asks a judge (if any) and how it computes its values for a
batch of rollouts. One registry (`KINDS`), read by the rubric's validation
(rubric.py), by what the judges can never answer (scoring.signal_problem) and
by the computation (scoring.signals_compute): a new kind is one `SignalKind`
here, registered with `kind_register`.

Who is to blame decides between 0 and None. A sketch the gate rejected made
no picture: it scores 0 on every picture signal (it loses every comparison).
A render the browser could not produce ("unavailable") or a question the
judge could not answer this time is None: no opinion, never 0.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from pool.references import references_sample
from sketches import gate
from sketches.rendering import OK, REJECTED, UNAVAILABLE

from .inputs import SignalContext, SignalInput
from .judges.base import COMPARE_Q, CRITERIA, PREFERENCE_Q, RATE_Q
from .spec import RubricError, SignalSpec

GATE = "gate"
COMPILE_GATE = "compile_gate"
BRUSH_GATE = "brush_gate"
LENGTH = "length"
PREFERENCE = "preference"
PAIRWISE = "pairwise"
ABSOLUTE = "absolute"

# What stops a sketch compiling and running, and what says it did not paint
# with p5.brush (v1 checked these separately).
COMPILE_FAILURES = frozenset({gate.NO_CODE, gate.TRUNCATED, gate.SYNTAX_ERROR, gate.NO_SETUP,
                              gate.RUNTIME_ERROR, gate.TIMEOUT, gate.CRASHED})
BRUSH_FAILURES = frozenset({gate.NO_BRUSH_PAINTING, gate.PLAIN_PRIMITIVES_ONLY,
                            gate.UNKNOWN_BRUSH_METHOD, gate.NOT_WEBGL, gate.BLANK_CANVAS,
                            # Paint laid by other routes than p5.brush.
                            gate.PLAIN_PAINTING, gate.DIRECT_PIXELS, gate.EMBEDDED_IMAGE,
                            gate.RAW_WEBGL})

Values = list[float | None]
Compute = Callable[[SignalSpec, Sequence[SignalInput], SignalContext], Values]
# Which backend of a SignalContext answers each question.
ROLE_OF = {PREFERENCE_Q: "scorer", COMPARE_Q: "judge", RATE_Q: "judge"}


def _no_check(params: dict, where: str) -> dict:
    return params


def _no_problem(context: SignalContext) -> str | None:
    return None


@dataclass(frozen=True)
class SignalKind:
    """One kind of signal. `params` are the defaults (and the only names
    accepted); `check(merged, where)` validates the merged parameters and
    returns them as computed (raising RubricError naming `where`); `question`
    is what it asks a judge (judges.base: PREFERENCE_Q, COMPARE_Q, RATE_Q) or
    None; `context_problem(context)` says why a context can never give the
    kind what it needs besides its judge (pairwise: a snapshot with
    references), or None; `compute` gives every rollout's value from 0 to 1,
    or None."""

    name: str
    compute: Compute
    params: Mapping = field(default_factory=dict)
    check: Callable[[dict, str], dict] = _no_check
    question: str | None = None
    context_problem: Callable[[SignalContext], str | None] = _no_problem

    @property
    def role(self) -> str | None:
        """The SignalContext backend asked ("judge" or "scorer"), or None."""
        return ROLE_OF[self.question] if self.question else None


KINDS: dict[str, SignalKind] = {}


def kind_register(kind: SignalKind) -> SignalKind:
    if kind.name in KINDS:
        raise ValueError(f"signal kind {kind.name!r} is registered twice")
    KINDS[kind.name] = kind
    return kind


def kind_get(name: str) -> SignalKind:
    return KINDS[name]


# --- the gates -----------------------------------------------------------------------------

def _gate(failures: frozenset[str] | None) -> Compute:
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


# --- length --------------------------------------------------------------------------------

def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _length_check(merged: dict, where: str) -> dict:
    if merged["mode"] not in ("bound", "ramp"):
        raise RubricError(f"{where}: mode must be 'bound' or 'ramp'")
    for name in ("min_tokens", "max_tokens", "target_tokens"):
        if not _whole(merged[name]) or merged[name] < 1:
            raise RubricError(f"{where}: {name} must be a whole number >= 1")
    if merged["min_tokens"] > merged["max_tokens"]:
        raise RubricError(f"{where}: min_tokens exceeds max_tokens")
    # Keep only what the mode uses, so equal computations share a key.
    keep = ("min_tokens", "max_tokens") if merged["mode"] == "bound" else ("target_tokens",)
    return {"mode": merged["mode"], **{name: merged[name] for name in keep}}


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


# --- a judge asked about each rollout's own picture ------------------------------------------

def _picture_signal(ask: Callable, question: str) -> Compute:
    """0 for a rejected sketch, None for an unavailable render or a missing judge."""
    def compute(spec, rollouts, context):
        backend = getattr(context, ROLE_OF[question])
        values: Values = [0.0 if r.status == REJECTED else None for r in rollouts]
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


def _absolute_check(merged: dict, where: str) -> dict:
    if merged["criterion"] not in CRITERIA:
        raise RubricError(f"{where}: criterion must be one of {', '.join(CRITERIA)}")
    return merged


# --- pairwise against pool references ----------------------------------------------------

def _pairwise_check(merged: dict, where: str) -> dict:
    if not _whole(merged["k"]) or not 1 <= merged["k"] <= 16:
        raise RubricError(f"{where}: k must be a whole number from 1 to 16")
    share = merged["okay_share"]
    if isinstance(share, bool) or not isinstance(share, int | float) or not 0 <= share <= 1:
        raise RubricError(f"{where}: okay_share must be from 0 to 1")
    return {**merged, "okay_share": float(share)}


def _pairwise_problem(context: SignalContext) -> str | None:
    if context.snapshot is None:
        return "no pool snapshot was chosen: choose a pool snapshot"
    if not context.snapshot.members.exists():
        return (f"pool snapshot {context.snapshot.name!r} holds no references: "
                "choose a pool snapshot that has some")
    return None


def _pairwise(spec, rollouts, context):
    """Win fraction against k references drawn from the snapshot for the
    rollout's prompt (seeded by its group, or its key); a comparison the judge
    could not answer is left out of the fraction, and a rollout with none
    answered is None."""
    values: Values = [0.0 if r.status == REJECTED else None for r in rollouts]
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


kind_register(SignalKind(GATE, _gate(None)))
kind_register(SignalKind(COMPILE_GATE, _gate(COMPILE_FAILURES)))
# A sketch that never ran never painted with the brush either.
kind_register(SignalKind(BRUSH_GATE, _gate(BRUSH_FAILURES | COMPILE_FAILURES)))
kind_register(SignalKind(LENGTH, _length, check=_length_check, params={
    "mode": "bound", "min_tokens": 1, "max_tokens": 2000, "target_tokens": 3000}))
kind_register(SignalKind(PREFERENCE, _picture_signal(_ask_preference, PREFERENCE_Q),
                         question=PREFERENCE_Q))
kind_register(SignalKind(PAIRWISE, _pairwise, check=_pairwise_check, question=COMPARE_Q,
                         context_problem=_pairwise_problem,
                         params={"k": 2, "okay_share": 0.0}))
kind_register(SignalKind(ABSOLUTE, _picture_signal(_ask_rate, RATE_Q), check=_absolute_check,
                         question=RATE_Q, params={"criterion": "overall"}))
