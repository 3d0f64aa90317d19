"""One training job's settings, apart from the training code so that pages
and services can check and store a config without importing torch."""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields

from rating.sources import SOURCE_CHOICES

from .data import SplitConfig

CNN, BACKBONE = "cnn", "backbone"
KINDS = (CNN, BACKBONE)


@dataclass(frozen=True)
class TrainConfig:
    """One training job's settings (stored as RewardModel.config)."""

    # --- what learns -------------------------------------------------------
    model: str = CNN  # "cnn" (from scratch) or "backbone" (head on PAINTRL_REWARD_BACKBONE)
    # 64 px: held-out pairwise accuracy nearly that of 96 px in half the
    # training time, so 40 epochs over the benchmark corpus fit the 120 s
    # target (benchmarks/reward_eval.py, reward_speed.py; docs/benchmarks.md).
    image_size: int = 64
    width: int = 24  # CNN channels in the first layer
    # Join the CNN's features with whole-picture colour and edge statistics
    # (model.global_statistics): better held-out accuracy with few training
    # renders, even with more (benchmarks/reward_eval.py; docs/benchmarks.md).
    statistics: bool = True
    # --- data --------------------------------------------------------------
    sources: str = "auto"  # "human", "simulated", or "auto" (human when there are any)
    test_fraction: float = 0.2
    validation_fraction: float = 0.15
    split_seed: int = 0
    # A yardstick: the version of another reward model whose `train` split (and
    # every render sharing a sketch code with it) this one must never learn
    # from (disjoint.py). None: an ordinary model, trained on every grade.
    disjoint_from: int | None = None
    # --- optimisation ------------------------------------------------------
    seed: int = 0
    max_epochs: int = 40
    batch_size: int = 64  # 64 renders give ~1,300 graded pairs per step
    learning_rate: float = 2e-3
    weight_decay: float = 1e-4
    # Mirror and shift (CNN only): better held-out accuracy than without
    # (benchmarks/reward_eval.py; docs/benchmarks.md).
    augment: bool = True
    # Stop when validation pairwise accuracy has not improved for this many
    # epochs (0: never stop early). The best epoch's weights are kept.
    patience: int = 8

    def __post_init__(self):
        if self.model not in KINDS:
            raise ValueError(f"model must be one of {', '.join(KINDS)}, got {self.model!r}")
        if self.sources not in SOURCE_CHOICES:
            raise ValueError(f"sources must be one of {', '.join(SOURCE_CHOICES)}, "
                             f"got {self.sources!r}")
        if not 16 <= self.image_size <= 512:
            raise ValueError(f"image_size must be from 16 to 512, got {self.image_size}")
        if self.max_epochs < 1 or self.batch_size < 2:
            raise ValueError(f"max_epochs ({self.max_epochs}) must be at least 1 and "
                             f"batch_size ({self.batch_size}) at least 2")
        if self.disjoint_from is not None and (
                isinstance(self.disjoint_from, bool) or not isinstance(self.disjoint_from, int)
                or self.disjoint_from < 1):
            raise ValueError("disjoint_from must be a reward model version (1 or more) or "
                             f"None, got {self.disjoint_from!r}")
        if self.patience < 0:
            raise ValueError(f"patience must be 0 (off) or more, got {self.patience}")
        self.split_config()  # checks the fractions

    def split_config(self) -> SplitConfig:
        return SplitConfig(test_fraction=self.test_fraction,
                           validation_fraction=self.validation_fraction, seed=self.split_seed)

    @classmethod
    def from_dict(cls, values: dict) -> TrainConfig:
        known = {f.name for f in fields(cls)}
        unknown = set(values) - known
        if unknown:
            raise ValueError(f"unknown training settings {sorted(unknown)}; "
                             f"known: {', '.join(sorted(known))}")
        return cls(**values)

    def to_dict(self) -> dict:
        return asdict(self)
