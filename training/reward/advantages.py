"""GRPO's advantages from a batch's totals, as TRL computes them, and the
share of groups that teach nothing: what a run stores with each rollout and
shows per step, and what the replay lab's diagnostics read."""
from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np

# Signal values are 0-1; differences below this are floating-point noise, not spread.
SPREAD_EPS = 1e-9
# TRL's GRPOTrainer adds this to the std before dividing (trl 1.16, sum_then_normalize).
ADVANTAGE_EPS = 1e-4
SCALE_REWARDS = ("group", "batch", "none")


def grpo_advantages(totals: Sequence[float | None], groups: Sequence[Hashable], *,
                    scale_rewards: str = "group") -> list[float | None]:
    """Advantages as TRL's GRPOTrainer computes them from the rewards (trl 1.16):
    A = r - mean(group), divided by (std + 1e-4) of the group ("group") or of the whole batch
    ("batch"), or not divided ("none"); std is unbiased (n - 1) as torch.std.

    A rollout without a total gets None and is left out of its group's mean and std (TRL marks
    it NaN and gives it advantage 0). A group with one total, or totals equal within
    SPREAD_EPS, gets exactly 0 (TRL: NaN turned into 0, or ~1e-12 of rounding).
    """
    if scale_rewards not in SCALE_REWARDS:
        raise ValueError(f"scale_rewards must be one of {', '.join(SCALE_REWARDS)}")
    rewards = as_array(totals)
    if rewards.size != len(groups):
        raise ValueError(f"{rewards.size} totals but {len(groups)} group labels")
    present = rewards[~np.isnan(rewards)]
    batch_std = float(present.std(ddof=1)) if present.size > 1 else 0.0
    advantages = np.full(rewards.size, np.nan)
    for index in group_members(groups):
        index = index[~np.isnan(rewards[index])]
        group = rewards[index]
        if group.size == 0:
            continue
        if np.ptp(group) <= SPREAD_EPS:
            advantages[index] = 0.0
            continue
        centred = group - group.mean()
        if scale_rewards == "group":
            centred = centred / (group.std(ddof=1) + ADVANTAGE_EPS)
        elif scale_rewards == "batch":
            centred = centred / (batch_std + ADVANTAGE_EPS)
        advantages[index] = centred
    return [finite(value) for value in advantages]


def zero_spread_share(totals: Sequence[float | None], groups: Sequence[Hashable]) -> float | None:
    """Share of groups that teach nothing: fewer than two totals, or all equal."""
    members: dict[Hashable, list[float]] = {}
    for total, group in zip(totals, groups, strict=True):
        members.setdefault(group, [])
        if total is not None:
            members[group].append(total)
    if not members:
        return None
    flat = sum(len(v) < 2 or max(v) - min(v) <= SPREAD_EPS for v in members.values())
    return flat / len(members)


def group_members(groups: Sequence[Hashable]) -> list[np.ndarray]:
    """Row indices of each group, groups in order of first appearance."""
    members: dict[Hashable, list[int]] = {}
    for index, label in enumerate(groups):
        members.setdefault(label, []).append(index)
    return [np.array(index, dtype=int) for index in members.values()]


def finite(value) -> float | None:
    """A finite Python float, or None (None, NaN and infinities: JSON has no NaN)."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def as_array(values) -> np.ndarray:
    return np.array([np.nan if v is None else float(v) for v in values], dtype=float)
