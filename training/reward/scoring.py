"""Scoring a batch: the values of a rubric's signals (rubric.py) for a batch
of rollouts, each distinct computation done once and in batches, so a judge
scores or compares a whole batch at once (each kind's computation is its
SignalKind's, kinds.py), and each rollout's total.

Who is to blame decides between 0 and None. A sketch the gate rejected made
no picture: it scores 0 on every picture signal (it loses every comparison).
A render the browser could not produce ("unavailable") or a question the
judge could not answer this time is None: no opinion, counted and shown,
never 0. One None among a rollout's weighted signals leaves the rollout with
no total (rubric.rubric_total): GRPO optimises what is paid for,
and a total of whatever happened to answer would pay a rollout for failing.

A question the configured judges can NEVER answer (`signal_problem`: the
local reward model asked about adherence to a prompt it never sees, no
active reward model at all, pairwise with no pool snapshot) would make every
total None: it is found before scoring, and the launch and the replay lab
refuse it or drop the signal openly.
"""
from __future__ import annotations

from collections.abc import Sequence

from .inputs import SignalContext, SignalInput
from .judges import JudgeBackend, JudgeUnavailable, judge_backend
from .kinds import KINDS
from .rubric import rubric_total
from .spec import SignalSpec


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


def signal_problem(spec: SignalSpec, context: SignalContext) -> str | None:
    """Why `spec` can never be computed in `context`, with the way out where
    it is known; None when it can be (module docstring)."""
    kind = KINDS[spec.kind]
    if kind.role is None:
        return None
    reasons = []
    backend = getattr(context, kind.role)
    if backend is None:
        reasons.append(context.missing.get(kind.role) or f"no {kind.role} is configured")
    elif (reason := backend.cannot_answer(kind.question, spec.params)) is not None:
        reasons.append(reason)
    if (reason := kind.context_problem(context)) is not None:
        reasons.append(reason)
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
        values = KINDS[spec.kind].compute(spec, rollouts, context)
        for row, value in zip(out, values, strict=True):
            row[spec.key] = None if value is None else float(min(1.0, max(0.0, value)))
    for backend in (context.judge, context.scorer):
        for text in getattr(backend, "notices", ()):
            context.notice(text)
    return out


def totals_compute(specs: Sequence[SignalSpec], rollouts: Sequence[SignalInput],
                context: SignalContext) -> tuple[list[dict[str, float | None]],
                                                 list[float | None]]:
    """Each rollout's signal values (signals_compute) and its total
    (rubric_total: None where any weighted signal is missing): what a run's
    step, the replay lab and the reward service ask of the one reward path."""
    values = signals_compute(specs, rollouts, context)
    return values, [rubric_total(row, specs) for row in values]
