"""How good a taste score is, measured on held-out renders:
- pairwise accuracy: of two renders with different grades, how often the
  better-graded one scores higher (0.5 is chance; ties count half);
- comparison accuracy: of the curators' comparisons (one render preferred to
  another of the same prompt), how often the preferred one scores higher;
- per-grade score distributions: where nope, okay and love land on the scale;
- probability calibration: the Bradley-Terry probability sigmoid(s_a - s_b)
  that a beats b, against how often a's grade really is higher, in bins
  (stored under "calibration"; not training's reference calibration);
- grade boundaries: the scores that best separate nope from okay and okay
  from love (the queue's "most informative first" order puts renders nearest
  a boundary first);
- the evidence: the accuracy's 95 % interval, and whether the split was too
  small to tell the model from chance (`evidence_warning`).
"""
from __future__ import annotations

import math

import numpy as np

from .data import GRADE_NAMES, TEST, TRAIN, VALIDATION, ordered_pairs

QUANTILES = {"q10": 0.1, "q25": 0.25, "median": 0.5, "q75": 0.75, "q90": 0.9}
# The interval is a bootstrap over renders, not pairs: pairs that share a
# render are not independent (4 renders give 6 pairs, but only 4 pictures'
# worth of evidence). 400 draws put the 2.5 and 97.5 % points within about
# 0.01 of those from 10,000 on a 150-render split here.
BOOTSTRAP_DRAWS = 400
CONFIDENCE = 0.95
# Below this many held-out renders or pairs an accuracy is not reported as
# known, whatever its interval says (a model trained on 39 grades was shown
# "1.000" on 4 pairs): a bootstrap over a dozen renders is too narrow (12 toy
# renders gave 0.90-1.00).
MIN_RENDERS = 30
MIN_PAIRS = 30
# An interval this wide, or one reaching down to chance, says too little.
MAX_INTERVAL_WIDTH = 0.2
CHANCE = 0.5


def pairwise_accuracy(scores: np.ndarray, grades: np.ndarray) -> float:
    pairs = ordered_pairs(grades)
    if len(pairs) == 0:
        return math.nan
    margin = np.asarray(scores)[pairs[:, 0]] - np.asarray(scores)[pairs[:, 1]]
    return float(((margin > 0) + 0.5 * (margin == 0)).mean())


def comparison_accuracy(scores: np.ndarray, pairs: np.ndarray) -> float:
    """Share of (winner, loser) index pairs the scores order the same way
    (equal scores count half); NaN without pairs."""
    if len(pairs) == 0:
        return math.nan
    margin = np.asarray(scores)[pairs[:, 0]] - np.asarray(scores)[pairs[:, 1]]
    return float(((margin > 0) + 0.5 * (margin == 0)).mean())


def accuracy_interval(scores: np.ndarray, grades: np.ndarray, *, seed: int = 0,
                      draws: int = BOOTSTRAP_DRAWS) -> list[float] | None:
    """The CONFIDENCE interval of pairwise_accuracy, resampling renders with
    replacement; None where the split has no pair to measure."""
    scores, grades = np.asarray(scores, dtype=np.float64), np.asarray(grades)
    if len(ordered_pairs(grades)) == 0:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(draws):
        chosen = rng.integers(0, len(scores), len(scores))
        value = pairwise_accuracy(scores[chosen], grades[chosen])
        if not math.isnan(value):
            values.append(value)
    if not values:
        return None
    tail = (1 - CONFIDENCE) / 2
    return [float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))]


def interval_text(test: dict) -> str:
    """A split's accuracy interval as "0.77-0.87", or "" where its record has
    none (older models)."""
    interval = test.get("pairwise_accuracy_interval")
    return "" if interval is None else f"{interval[0]:.2f}-{interval[1]:.2f}"


def evidence_warning(test: dict | None) -> str | None:
    """Why a held-out split's accuracy cannot be relied on, or None: too few
    renders or pairs, an interval wider than MAX_INTERVAL_WIDTH, or one that reaches
    chance. `test` is a split's evaluate() record (older records have no
    interval and are judged by their pair count alone)."""
    if not test:
        return "it has no held-out measurement"
    pairs, renders = test.get("pairs", 0), test.get("renders", 0)
    interval = test.get("pairwise_accuracy_interval")
    sample = f"{pairs} held-out pairs of {renders} renders"
    if interval is not None:
        sample += f", 95 % interval {interval_text(test)}"
    if renders < MIN_RENDERS or pairs < MIN_PAIRS:
        return (f"too little to measure: {sample} (at least {MIN_RENDERS} renders and "
                f"{MIN_PAIRS} pairs are needed)")
    if interval is not None and interval[0] <= CHANCE:
        return f"not distinguishable from chance: {sample}"
    if interval is not None and interval[1] - interval[0] > MAX_INTERVAL_WIDTH:
        return f"too imprecise: {sample}"
    return None


def grade_names(grades: np.ndarray) -> list[str]:
    return [GRADE_NAMES[int(np.clip(np.floor(g + 0.5), 0, 2))] for g in grades]


def grade_distributions(scores: np.ndarray, grades: np.ndarray) -> dict[str, dict]:
    names = np.array(grade_names(grades))
    out = {}
    for name in GRADE_NAMES:
        chosen = np.asarray(scores)[names == name]
        if len(chosen) == 0:
            continue
        out[name] = {"n": int(len(chosen)), "mean": float(chosen.mean()),
                     **{key: float(np.quantile(chosen, q)) for key, q in QUANTILES.items()}}
    return out


def probability_calibration(scores: np.ndarray, grades: np.ndarray, bins: int = 10) -> dict:
    """Bins of predicted P(first beats second) over every pair with different
    grades, each with its observed win rate; `ece` is the pair-weighted mean
    gap between the two (0 is perfectly calibrated)."""
    scores, grades = np.asarray(scores, dtype=np.float64), np.asarray(grades)
    first, second = np.triu_indices(len(scores), k=1)
    differ = grades[first] != grades[second]
    first, second = first[differ], second[differ]
    if len(first) == 0:
        return {"bins": [], "ece": math.nan, "pairs": 0}
    predicted = 1.0 / (1.0 + np.exp(-(scores[first] - scores[second])))
    observed = (grades[first] > grades[second]).astype(np.float64)
    index = np.minimum((predicted * bins).astype(int), bins - 1)
    rows, gap = [], 0.0
    for b in range(bins):
        chosen = index == b
        count = int(chosen.sum())
        if count == 0:
            continue
        mean_p, rate = float(predicted[chosen].mean()), float(observed[chosen].mean())
        rows.append({"from": b / bins, "to": (b + 1) / bins, "pairs": count,
                     "predicted": mean_p, "observed": rate})
        gap += count * abs(mean_p - rate)
    return {"bins": rows, "ece": gap / len(first), "pairs": int(len(first))}


def grade_boundaries(scores: np.ndarray, grades: np.ndarray) -> dict[str, float]:
    """For each pair of neighbouring grades present, the score threshold that
    best separates them (highest balanced accuracy, midway between the two
    scores it falls between)."""
    names = np.array(grade_names(grades))
    scores = np.asarray(scores, dtype=np.float64)
    out = {}
    for low, high in zip(GRADE_NAMES, GRADE_NAMES[1:], strict=False):
        lows, highs = np.sort(scores[names == low]), np.sort(scores[names == high])
        if len(lows) == 0 or len(highs) == 0:
            continue
        candidates = np.unique(np.concatenate([lows, highs]))
        cuts = np.concatenate([[candidates[0] - 1.0], (candidates[:-1] + candidates[1:]) / 2,
                               [candidates[-1] + 1.0]])
        # Balanced accuracy of "above the cut means the higher grade".
        below_low = np.searchsorted(lows, cuts, side="left") / len(lows)
        above_high = 1.0 - np.searchsorted(highs, cuts, side="left") / len(highs)
        best = int(np.argmax(below_low + above_high))
        out[f"{low}|{high}"] = float(cuts[best])
    return out


def evaluate(scores: np.ndarray, grades: np.ndarray) -> dict:
    """The metrics a RewardModel records for one split."""
    return {"pairwise_accuracy": pairwise_accuracy(scores, grades),
            "pairwise_accuracy_interval": accuracy_interval(scores, grades),
            "renders": int(len(scores)),
            "pairs": int(len(ordered_pairs(grades))),
            "by_grade": grade_distributions(scores, grades),
            # The key predates the name: stored models' metrics read it.
            "calibration": probability_calibration(scores, grades)}


def split_metrics(scores, grades, split: dict) -> dict:
    """How well the scores order the grades, per split (`split`: indices per
    split name); and the grade boundaries the queue's order uses."""
    train, validation, test = split[TRAIN], split[VALIDATION], split[TEST]
    seen = np.concatenate([train, validation])
    return {
        "heldout_pairwise_accuracy": pairwise_accuracy(scores[test], grades[test]),
        "test": evaluate(scores[test], grades[test]),
        "validation_pairwise_accuracy": pairwise_accuracy(scores[validation],
                                                          grades[validation]),
        "train_pairwise_accuracy": pairwise_accuracy(scores[train], grades[train]),
        # From the renders it learnt from, not the test split: the queue's order uses them.
        "boundaries": grade_boundaries(scores[seen], grades[seen]),
    }


def json_safe(value):
    """NaN (a split with no pairs) as None: JSON has no NaN, and PostgreSQL refuses it."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value
