"""Which reward signal carries information? Diagnostics of a rubric over scored rollouts.

GRPO turns rewards into advantages within a group (the rollouts of one prompt), so a signal
teaches only through its spread *within* groups. The article's first rubric stalled for two
reasons this module makes visible: five judges that measured one thing (they correlate, so they
are flagged "redundant"), and a length ramp that every rollout of a prompt maxed out (no spread
within groups: "saturated", and its effective share of the total's variance is ~0 although its
nominal weight was a third).

Everything here is computed on what GRPO sees: correlations and effective shares use
group-centred values (each value minus its group's mean). None is "no opinion"
(training.reward.rubric): it is counted as missing and left out, never read as 0, and a rollout
with a weighted signal missing has no total. The result is JSON-safe: an undefined
number (a constant column's correlation, the std of nothing) is None, never NaN.
"""
from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from .reward.advantages import SCALE_REWARDS, SPREAD_EPS, grpo_advantages
from .reward.advantages import as_array as _array
from .reward.advantages import finite as _num
from .reward.advantages import group_members as _group_members
from .reward.rubric import rubric_total
from .reward.spec import SignalSpec

# The article's five judges correlated 0.85-0.95: at this level two signals measure one thing.
REDUNDANT_AT = 0.85
# Saturated: no spread within at least this share of groups (the ramp at step ~30 was 1.0 for
# every rollout of almost every prompt) ...
SATURATED_GROUP_SHARE = 0.9
# ... or a mean within-group std under 2% of the 0-1 range (a reward this flat within a group
# is drowned by the judges' noise).
SATURATED_WITHIN_STD = 0.02
HISTOGRAM_BINS = 20


def rubric_diagnostics(specs: Sequence[SignalSpec], values: Sequence[Mapping[str, float | None]],
                       groups: Sequence[Hashable], *, redundant_at: float = REDUNDANT_AT,
                       scale_rewards: str = "group") -> dict:
    """Per-signal spread, correlation, effective share and the GRPO advantages of the totals.

    `values` holds one mapping spec.key -> value (or None) per rollout and `groups` the group
    label of each rollout. Specs that share a key share a column (they correlate 1.0).
    """
    specs = list(specs)
    if not specs:
        raise ValueError("a rubric needs at least one signal")
    if len(values) != len(groups):
        raise ValueError(f"{len(values)} value rows but {len(groups)} group labels")
    if scale_rewards not in SCALE_REWARDS:
        raise ValueError(f"scale_rewards must be one of {', '.join(SCALE_REWARDS)}, "
                         f"got {scale_rewards!r}")
    rows = [_clean_row(row) for row in values]
    members = _group_members(groups)
    columns = np.full((len(specs), len(rows)), np.nan)
    for j, spec in enumerate(specs):
        columns[j] = [_nan(row.get(spec.key)) for row in rows]
    totals = np.array([_nan(rubric_total(row, specs)) for row in rows], dtype=float)

    names = [spec.name for spec in specs]
    matrix = _correlation_matrix(np.array([_centre(col, members) for col in columns]))
    shares, effective_rows = _effective_shares(specs, columns, members)
    signals = _signal_reports(specs, columns, members, matrix, shares, redundant_at)
    advantages = grpo_advantages(totals, groups, scale_rewards=scale_rewards)
    return {
        "rollouts": len(rows),
        "groups": len(members),
        "group_sizes": _group_sizes(members),
        "thresholds": {"redundant_at": redundant_at, "spread_eps": SPREAD_EPS,
                       "saturated_group_share": SATURATED_GROUP_SHARE,
                       "saturated_within_std": SATURATED_WITHIN_STD},
        "signals": signals,
        "correlation": {"names": names, "matrix": matrix, "centred": "group"},
        "redundant": _redundant_pairs(names, matrix, redundant_at),
        "effective_share": shares,
        "effective_rows": effective_rows,
        "total": _column_stats(totals, members),
        "advantages": _advantage_summary(advantages, members, scale_rewards),
    }


def pearson(x: Sequence[float | None], y: Sequence[float | None]) -> float | None:
    """Pearson's r on the rows where both have a value; None where it is undefined (fewer
    than two such rows, or either side constant on them)."""
    a, b = _array(x), _array(y)
    if a.shape != b.shape:
        raise ValueError(f"pearson needs equal lengths, got {a.size} and {b.size}")
    both = ~(np.isnan(a) | np.isnan(b))
    if both.sum() < 2:
        return None
    a, b = a[both] - a[both].mean(), b[both] - b[both].mean()
    norm_a, norm_b = math.sqrt(a @ a), math.sqrt(b @ b)
    if min(norm_a, norm_b) <= SPREAD_EPS * math.sqrt(a.size):
        return None
    return float(np.clip((a @ b) / (norm_a * norm_b), -1.0, 1.0))


# --- columns and groups ---------------------------------------------------------------------

def _clean_row(row: Mapping[str, float | None]) -> dict[str, float | None]:
    """Non-finite values count as missing, like None (a NaN would poison every mean)."""
    return {key: _num(value) for key, value in row.items()}


def _group_sizes(members: list[np.ndarray]) -> dict:
    sizes = [index.size for index in members]
    if not sizes:
        return {"min": None, "median": None, "max": None}
    return {"min": min(sizes), "median": _num(np.median(sizes)), "max": max(sizes)}


def _centre(column: np.ndarray, members: list[np.ndarray]) -> np.ndarray:
    """Each value minus its group's mean (of the values present): what GRPO sees. Rows of a
    group with fewer than two values carry no within-group information and become NaN."""
    centred = np.full(column.size, np.nan)
    for index in members:
        index = index[~np.isnan(column[index])]
        if index.size < 2:
            continue
        group = column[index]
        centred[index] = 0.0 if np.ptp(group) <= SPREAD_EPS else group - group.mean()
    return centred


def _within_spread(column: np.ndarray, members: list[np.ndarray]) -> tuple[float | None, ...]:
    """Mean population std within groups, and the share of groups with no spread, over the
    groups with at least two values."""
    stds, flat = [], []
    for index in members:
        group = column[index]
        group = group[~np.isnan(group)]
        if group.size < 2:
            continue
        no_spread = np.ptp(group) <= SPREAD_EPS
        flat.append(no_spread)
        stds.append(0.0 if no_spread else float(group.std()))
    if not stds:
        return None, None
    return _num(np.mean(stds)), _num(np.mean(flat))


def _column_stats(column: np.ndarray, members: list[np.ndarray]) -> dict:
    present = column[~np.isnan(column)]
    missing = int(column.size - present.size)
    within_std, zero_spread = _within_spread(column, members)
    return {
        "n": int(present.size),
        "missing": missing,
        "missing_share": _num(missing / column.size) if column.size else None,
        "mean": _num(present.mean()) if present.size else None,
        "std": _num(present.std()) if present.size else None,
        "within_std": within_std,
        "zero_spread_groups": zero_spread,
    }


# --- per-signal reports, correlation, effective share -----------------------------------

def _signal_reports(specs: list[SignalSpec], columns: np.ndarray, members: list[np.ndarray],
                    matrix: list[list[float | None]], shares: list[float | None],
                    redundant_at: float) -> list[dict]:
    names = [spec.name for spec in specs]
    weight_sum = sum(spec.weight for spec in specs)
    reports = []
    for j, spec in enumerate(specs):
        stats = _column_stats(columns[j], members)
        partners = [names[i] for i in range(len(specs))
                    if i != j and matrix[j][i] is not None and abs(matrix[j][i]) >= redundant_at]
        reports.append({"name": spec.name, "kind": spec.kind, "key": spec.key,
                        "weight": spec.weight,
                        "weight_share": _num(spec.weight / weight_sum) if weight_sum else None,
                        **stats, "effective_share": shares[j],
                        "flags": _flags(stats, partners), "redundant_with": partners})
    return reports


def _flags(stats: dict, redundant_with: list[str]) -> list[str]:
    flags = []
    if stats["missing"]:
        flags.append("missing")
    dead = stats["n"] == 0 or stats["std"] <= SPREAD_EPS
    if dead:
        flags.append("dead")
    elif stats["within_std"] is not None and (
            stats["zero_spread_groups"] >= SATURATED_GROUP_SHARE
            or stats["within_std"] < SATURATED_WITHIN_STD):
        flags.append("saturated")
    if redundant_with:
        flags.append("redundant")
    return flags


def _correlation_matrix(centred: np.ndarray) -> list[list[float | None]]:
    """Pearson r of group-centred columns, pairwise-complete rows; the diagonal is 1.0 where
    a column has spread, None where it is constant."""
    size = len(centred)
    matrix: list[list[float | None]] = [[None] * size for _ in range(size)]
    for i in range(size):
        for j in range(i, size):
            r = pearson(centred[i], centred[j])
            if i == j and r is not None:
                r = 1.0
            matrix[i][j] = matrix[j][i] = r
    return matrix


def _redundant_pairs(names: list[str], matrix: list[list[float | None]],
                     redundant_at: float) -> list[dict]:
    return [{"a": names[i], "b": names[j], "r": matrix[i][j]}
            for i in range(len(names)) for j in range(i + 1, len(names))
            if matrix[i][j] is not None and abs(matrix[i][j]) >= redundant_at]


def _effective_shares(specs: list[SignalSpec], columns: np.ndarray,
                      members: list[np.ndarray]) -> tuple[list[float | None], int]:
    """Each signal's share of the (group-centred) variance of the total.

    A rollout has a total only when every weighted signal has a value (rubric_total), and then
    signal j contributes c_j = w_j s_j / W, W the rubric's weight, and T = sum_j c_j exactly.
    share_j = Cov(c_j, T) / Var(T), group-centred, over the rollouts with a total: the shares
    add up to 1 and a weight-0 signal gets 0. All None when the total has no spread within
    groups (or no rollout has one). Returns (shares, rows used: rollouts with a total in groups
    with at least two of them)."""
    weights = np.array([spec.weight for spec in specs], dtype=float)
    weighted = weights > 0
    has_total = ~np.isnan(columns[weighted]).any(axis=0) & bool(weighted.any())
    contributions = weights[:, None] * np.nan_to_num(columns) / (weights.sum() or 1.0)
    contributions = np.where(has_total, contributions, np.nan)
    centred = np.array([_centre(part, members) for part in contributions])
    used = ~np.isnan(centred).any(axis=0)
    rows = int(used.sum())
    total = centred[:, used].sum(axis=0)
    variance = float(total @ total) / rows if rows else 0.0
    if variance <= SPREAD_EPS ** 2:
        return [None] * len(specs), rows
    return [_num(float(centred[j, used] @ total) / rows / variance)
            for j in range(len(specs))], rows


def _advantage_summary(advantages: list[float | None], members: list[np.ndarray],
                       scale_rewards: str) -> dict:
    present = np.array([a for a in advantages if a is not None], dtype=float)
    scored = [[advantages[i] for i in index if advantages[i] is not None] for index in members]
    scored = [group for group in scored if group]
    zero = [all(a == 0.0 for a in group) for group in scored]
    if present.size:
        counts, edges = np.histogram(present, bins=HISTOGRAM_BINS)
        histogram = {"edges": [_num(e) for e in edges], "counts": [int(c) for c in counts]}
    else:
        histogram = {"edges": [], "counts": []}
    return {
        "scale_rewards": scale_rewards,
        "values": advantages,
        # Over the groups with at least one total: all-zero advantages teach nothing.
        "zero_groups": _num(np.mean(zero)) if zero else None,
        "mean_abs": _num(np.abs(present).mean()) if present.size else None,
        "histogram": histogram,
    }


# --- numbers ---------------------------------------------------------------------------------

def _nan(value) -> float:
    return np.nan if value is None else float(value)


def reward_trend(values: Sequence[float]) -> dict | None:
    """How a per-step curve moved, as peers report it: first-third and
    last-third means, and the least-squares slope per step with its t
    statistic (None when undefined). None for fewer than 3 values."""
    n = len(values)
    if n < 3:
        return None
    third = max(1, n // 3)
    ys = np.asarray(values, dtype=float)
    return {"first": float(ys[:third].mean()), "last": float(ys[-third:].mean()),
            **least_squares(range(n), values), "third": third, "n": n}


def least_squares(xs: Sequence[float], ys: Sequence[float]) -> dict:
    """The least-squares slope of ys on xs and its t statistic (None when the
    fit is exact); xs may repeat (several values a step). Needs 3 points and
    two different xs."""
    x, y = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
    sxx = float(((x - x.mean()) ** 2).sum())
    slope = float(((x - x.mean()) * (y - y.mean())).sum() / sxx)
    residuals = y - (y.mean() + slope * (x - x.mean()))
    se = math.sqrt(float((residuals ** 2).sum()) / (len(x) - 2) / sxx)
    return {"slope": slope, "t": slope / se if se > 0 else None}


def smoothed(values: Sequence[float], window: int = 3) -> list[float]:
    """Each value averaged with its neighbours, `window` wide and centred (at
    the ends, what exists of it): one lucky point of a noisy curve, such as
    a probe of 8 samples, no longer reads as the curve reaching a level, and
    unlike a trailing mean it does not lag every curve by half a window."""
    if window < 1:
        raise ValueError(f"window must be at least 1, got {window}")
    half = (window - 1) // 2
    rest = window - 1 - half
    return [float(np.mean(values[max(0, i - half):i + rest + 1])) for i in range(len(values))]


def first_reaching(steps: Sequence[int], values: Sequence[float], level: float, *,
                   window: int = 3) -> int | None:
    """The first of `steps` at which the smoothed curve of `values` is at
    least `level`, or None when it never is: how the rubric race reads "v2
    reached v1's ceiling at step N"."""
    if len(steps) != len(values):
        raise ValueError(f"{len(steps)} steps but {len(values)} values")
    return next((step for step, value in zip(steps, smoothed(values, window), strict=True)
                 if value >= level), None)
