"""How far does a judge agree with the curators?

On renders curators graded (the grades rating.sources counts: people's, or
the simulated curator's only while no person has graded anything, and then
it says so), each render's grade is the mean of its grades (nope 0, okay 1,
love 2). Two figures:
- pairwise accuracy: over pairs of renders with different grades, how often
  the judge's compare() prefers the better-graded one (ties count half);
  chance is 0.5;
- preference rank correlation: Spearman's rho between preference() and the
  grade, over renders.
The local judge is measured only on its reward model's held-out test renders:
on the renders it learnt from it would be marking its own homework.
Samples are bounded (renders and pairs) so a paid judge costs a known amount.
"""
from __future__ import annotations

import random

import numpy as np
from django.utils import timezone

from rating.models import Grade
from rating.sources import SIMULATED_SOURCES, grade_sources

from ..models import Judge
from ..reward.judges import JudgeUnavailable, Picture, judge_backend

MAX_RENDERS = 200
MAX_PAIRS = 200


def judge_agreement_measure(*, judge: Judge, max_renders: int = MAX_RENDERS,
                            max_pairs: int = MAX_PAIRS, seed: int = 0) -> dict:
    """Measure, store on the judge (agreement, agreement_measured) and return."""
    try:
        backend = judge_backend(judge)
    except JudgeUnavailable as unavailable:
        result = {"error": str(unavailable)}
        _store(judge, result)
        return result
    graded, source = _graded_renders(_held_out_ids(backend))
    rng = random.Random(f"judge-agreement:{seed}")
    items = sorted(graded.items())
    rng.shuffle(items)
    items = items[:max_renders]
    result: dict = {"grades": source, "renders": len(items), "judge_key": backend.key}
    if len(items) < 2:
        result["error"] = "fewer than two graded renders to measure on"
        _store(judge, result)
        return result
    pictures = [Picture.stored(png) for _, (_, png, _) in items]
    prompts = [prompt for _, (_, _, prompt) in items]
    grades = np.array([grade for _, (grade, _, _) in items])

    preference = backend.preference(pictures, prompts)
    answered = [(p, g) for p, g in zip(preference, grades, strict=True) if p is not None]
    result["preference_answered"] = len(answered)
    result["preference_spearman"] = spearman([p for p, _ in answered], [g for _, g in answered])

    pairs = [(a, b) for a in range(len(items)) for b in range(a + 1, len(items))
             if grades[a] != grades[b]]
    rng.shuffle(pairs)
    pairs = pairs[:max_pairs]
    verdicts = backend.compare([(pictures[a], pictures[b]) for a, b in pairs],
                               [prompts[a] for a, _ in pairs])
    scored = [(v, grades[a] > grades[b]) for v, (a, b) in zip(verdicts, pairs, strict=True)
              if v is not None]
    result["pairs"] = len(pairs)
    result["pairs_answered"] = len(scored)
    result["pairwise_accuracy"] = (
        sum(0.5 if v == 0.5 else float((v > 0.5) == first_better) for v, first_better in scored)
        / len(scored)) if scored else None
    result["notices"] = list(backend.notices)
    _store(judge, result)
    return result


def _held_out_ids(backend) -> set[int] | None:
    reward_model = getattr(backend, "reward_model", None)
    if reward_model is None:
        return None
    return set((reward_model.training_data or {}).get("render_ids", {}).get("test", []))


def _graded_renders(only: set[int] | None) -> tuple[dict[int, tuple[float, str, str]], str]:
    """render id -> (mean grade, png path, prompt) from the grades that count,
    and whose they are ("people", "simulated", or "none" when no render has
    any). Which grades count is decided over every grade, not only these
    renders: once a person has graded, the simulated curator's never stand in
    (rating.sources)."""
    sources = grade_sources()
    grades = Grade.objects.filter(source__in=sources, render__status="ok").exclude(render__png="")
    if only is not None:
        grades = grades.filter(render_id__in=only)
    rows = grades.values_list("render_id", "value", "render__png", "render__sketch__prompt")
    collected: dict[int, list] = {}
    for render_id, value, png, prompt in rows:
        entry = collected.setdefault(render_id, [[], png, prompt])
        entry[0].append(Grade.ORDINAL[value])
    if not collected:
        return {}, "none"
    label = "simulated" if sources == SIMULATED_SOURCES else "people"
    return {pk: (sum(v) / len(v), png, prompt) for pk, (v, png, prompt) in collected.items()}, label


def spearman(x, y) -> float | None:
    """Spearman's rho with average ranks for ties; None when undefined."""
    if len(x) < 2:
        return None
    rx, ry = _ranks(np.asarray(x, float)), _ranks(np.asarray(y, float))
    if rx.std() == 0 or ry.std() == 0:
        return None
    return float(np.corrcoef(rx, ry)[0, 1])


def _ranks(values: np.ndarray) -> np.ndarray:
    order = values.argsort(kind="mergesort")
    ranks = np.empty(len(values))
    ranks[order] = np.arange(len(values), dtype=float)
    for value in np.unique(values):  # ties share their mean rank
        tied = values == value
        ranks[tied] = ranks[tied].mean()
    return ranks


def _store(judge: Judge, result: dict) -> None:
    Judge.objects.filter(pk=judge.pk).update(agreement=result,
                                             agreement_measured=timezone.now())
