"""A yardstick's data: the graded renders another reward model never learnt
from (TrainConfig.disjoint_from).

A run's judge is the policy's target: scoring the policy's progress with the
same model measures how well the policy pleases it, not whether its pictures
got better in the curators' eyes. A yardstick is a second model trained on
grades disjoint from the judge's: every render of the judge's `train` split
is left out, and so is every render sharing a sketch code with one (the
split's unit: a sketch's renders differ by seed only). What is left is the
judge's held-out renders (validation and test) and whatever was graded
since: the curators' taste on pictures the judge never fitted.

The yardstick splits its own data with another seed than the judge's: with
the same seed, every render the judge held out would hash into the
yardstick's held-out splits again (data.split_of), leaving it nothing to
train on. yardstick_config takes the next seed.
"""
from __future__ import annotations

from dataclasses import fields

from pool.models import RewardModel
from sketches.models import Render

from .config import TrainConfig
from .data import TRAIN, GradedSet, graded_set_from_db


class DisjointError(ValueError):
    """A yardstick that cannot be trained as asked; the message says why and what to do."""


def graded_set_for(config: TrainConfig) -> tuple[GradedSet, dict | None]:
    """The graded renders a job with `config` learns from and, for a
    yardstick, what its training_data records of the model it was kept from
    ({version, left_out, graded}; else None). DisjointError when that model
    cannot be read or leaves too few renders to train on."""
    graded = graded_set_from_db(sources=config.sources, split_config=config.split_config())
    if config.disjoint_from is None:
        return graded, None
    other = _other(config.disjoint_from)
    other_seed = (other.config or {}).get("split_seed", TrainConfig().split_seed)
    if config.split_seed == other_seed:
        raise DisjointError(
            f"split_seed {config.split_seed} is the seed v{other.version} split its grades "
            "with: every render it held out would land in the yardstick's held-out splits "
            "again, leaving nothing to train on; choose another split_seed")
    keys, groups = train_split(other)
    kept = graded.without(keys=keys, groups=groups)
    record = {"version": other.version, "left_out": len(graded.items) - len(kept.items),
              "graded": len(graded.items)}
    try:
        kept.check_trainable()
    except ValueError as error:
        raise DisjointError(
            f"v{other.version} trained on {record['left_out']} of the {record['graded']} "
            f"graded renders (its train split and the sketches sharing their code); the "
            f"{len(kept.items)} left are too few for a yardstick: {error}") from error
    return kept, record


def train_split(reward_model: RewardModel) -> tuple[set[str], set[str]]:
    """The render ids of the model's `train` split (as GradedItem keys) and
    the sketch codes (GradedItem groups) of those renders still stored."""
    ids = set(reward_model.training_data["render_ids"][TRAIN])
    groups = set(Render.objects.filter(pk__in=[int(key) for key in ids if key.isdigit()])
                 .values_list("sketch__code_sha256", flat=True))
    return ids, groups


def yardstick_config(reward_model: RewardModel) -> dict:
    """TrainConfig fields for a yardstick of `reward_model`: trained as it was
    (same kind, size, sources, epochs), on the grades it never learnt from,
    split with the next seed (module docstring)."""
    known = {f.name for f in fields(TrainConfig)}
    settings = {k: v for k, v in (reward_model.config or {}).items() if k in known}
    seed = settings.get("split_seed", TrainConfig().split_seed)
    return {**settings, "disjoint_from": reward_model.version, "split_seed": seed + 1}


def _other(version: int) -> RewardModel:
    other = RewardModel.objects.filter(version=version).first()
    if other is None:
        raise DisjointError(f"there is no reward model v{version} to train a yardstick "
                            "disjoint from")
    if other.status != RewardModel.Status.DONE or TRAIN not in (
            (other.training_data or {}).get("render_ids") or {}):
        raise DisjointError(f"reward model v{version} is {other.status}: only a finished "
                            "model records the renders it trained on; wait for it, or choose "
                            "a finished one")
    return other
