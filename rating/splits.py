"""Which side of a train / validation / test split a sketch lands on: one
answer for the reward model (pool.reward.data) and the preference export
(rating.preference_export), so a model trained on one and measured on the
other is never tested on code it learned from.

The split is a hash of a group (a sketch's code, so renders of one sketch and
copies of the same code land together), not a shuffle: adding grades later
never moves a render from one side to the other.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass

TRAIN, VALIDATION, TEST = "train", "validation", "test"
SPLITS = (TRAIN, VALIDATION, TEST)


@dataclass(frozen=True)
class SplitConfig:
    """The held-out parts, as fractions of sketches (not renders)."""

    test_fraction: float = 0.2  # reported metrics come from here only
    validation_fraction: float = 0.15  # early stopping watches this
    seed: int = 0

    def __post_init__(self):
        if not (0 < self.test_fraction and 0 < self.validation_fraction
                and self.test_fraction + self.validation_fraction < 1):
            raise ValueError(
                f"test_fraction ({self.test_fraction}) and validation_fraction "
                f"({self.validation_fraction}) must be positive and sum to less than 1")


def split_of(group: str, config: SplitConfig) -> str:
    position = int.from_bytes(
        hashlib.sha256(f"{config.seed}:{group}".encode()).digest()[:8], "big") / 2**64
    if position < config.test_fraction:
        return TEST
    if position < config.test_fraction + config.validation_fraction:
        return VALIDATION
    return TRAIN
