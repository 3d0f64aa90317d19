"""Writes for reward models: create a training job, train it (the body of
the Celery task; the steps are job.TrainingJob's), cancel it, activate a
finished model (and score the renders with it).

A job's life is every job's (jobs.services): queued -> running -> done |
failed | cancelled. Cancelling sets a flag the running job reads between
epochs; a queued job is cancelled at once. Training a finished job again
changes nothing (a redelivered task message is harmless).

Torch loads only when a job trains (job.py, the kind's body, which only a
worker imports): the web process imports this module for the admin, and
should not pay for it."""
from __future__ import annotations

import logging
from pathlib import Path

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Max

from jobs.dispatch import job_enqueue, task_send
from jobs.services import Cancel, job_cancel
from pool.models import RewardModel
from sketches.models import Sketch

from .config import TrainConfig
from .disjoint import graded_set_for, yardstick_config
from .gold import GOLD_WEIGHTS, gold_codes, gold_record

logger = logging.getLogger(__name__)

Status = RewardModel.Status


def reward_model_create(*, created_by=None, config: dict | None = None, activate: bool = False,
                        queue: bool = True) -> RewardModel:
    """A new version, queued for training (on commit) unless `queue` is False
    (the management command then trains it in its own process). `config`
    holds TrainConfig fields; it is checked here, so a bad value fails now,
    not on a worker (a yardstick's data too: disjoint.DisjointError, the job
    checks again). `activate`: make it the active model once trained."""
    train_config = TrainConfig.from_dict(dict(config or {}))
    if train_config.disjoint_from is not None:
        graded_set_for(train_config)
    stored = {**train_config.to_dict(), "activate": bool(activate)}
    reward_model = _versioned(config=stored, created_by=created_by)
    if queue:
        job_enqueue(job=reward_model)
    return reward_model


def _versioned(**fields) -> RewardModel:
    """A new RewardModel with the next version number and `fields`."""
    for _ in range(5):
        try:
            with transaction.atomic():
                latest = RewardModel.objects.aggregate(v=Max("version"))["v"] or 0
                return RewardModel.objects.create(version=latest + 1, **fields)
        except IntegrityError:  # another job took the version number: take the next
            continue
    raise RuntimeError("could not allocate a reward model version after 5 tries")


def reward_model_yardstick_create(*, reward_model: RewardModel, created_by=None,
                                  queue: bool = True) -> RewardModel:
    """A yardstick of `reward_model`, queued like any version: trained as it
    was, on the grades it never learnt from (disjoint.py), never activated.
    DisjointError (a ValueError) says why it cannot be."""
    return reward_model_create(created_by=created_by, config=yardstick_config(reward_model),
                               queue=queue)


def reward_model_cancel(*, reward_model: RewardModel) -> Cancel:
    """Stop a job: a queued one is cancelled now, a running one at its next
    epoch (jobs.services.job_cancel)."""
    return job_cancel(job=reward_model, name=f"v{reward_model.version}")


def reward_model_activate(*, reward_model: RewardModel, score: bool = True) -> RewardModel:
    """Make a trained model the active one (the one before it stops being
    active) and, on commit, queue scoring every render with it unless `score`
    is False (the caller then scores, see scoring.renders_score)."""
    reward_model.refresh_from_db()
    if reward_model.role == RewardModel.Role.GOLD:
        raise ValueError(f"{reward_model} is the gold judge: a run that optimised it would "
                         "leave nothing to measure its learning by, so it is never active")
    if reward_model.status != Status.DONE or not reward_model.weights:
        raise ValueError(f"{reward_model} cannot be activated: only a finished model "
                         "with weights can")
    with transaction.atomic():
        RewardModel.objects.filter(active=True).exclude(pk=reward_model.pk).update(active=False)
        RewardModel.objects.filter(pk=reward_model.pk).update(active=True)
        if score:
            task_send("pool.tasks.score_renders_task", reward_model.pk)
    reward_model.refresh_from_db()
    return reward_model


class GoldError(ValueError):
    """A gold judge that cannot be registered; the message says why and what to do."""


def reward_model_gold_register(folder: Path) -> RewardModel:
    """The gold judge built in `folder` (gold.py) as a finished, never active
    reward model; the one registered before when its weights are the same.
    GoldError when a stored sketch shares code with its corpus: the gold
    judge must be disjoint from everything the proxy and the policy saw."""
    record = gold_record(folder)
    known = RewardModel.objects.filter(
        role=RewardModel.Role.GOLD,
        training_data__gold__weights_sha256=record["weights_sha256"]).first()
    if known is not None:
        return known
    codes = gold_codes(folder)
    shared = Sketch.objects.filter(code_sha256__in=codes).count()
    if shared:
        raise GoldError(f"{shared} stored sketches share code with the gold judge's corpus "
                        f"(painter seeds {record['painter']['seeds']}), so it would score "
                        "pictures it learnt from: build it from other seeds (bootstrap_gold "
                        "--seed) or register it in a database without them")
    weights = (Path(folder) / GOLD_WEIGHTS).read_bytes()
    model = _versioned(role=RewardModel.Role.GOLD, status=Status.DONE, config=record["train"],
                       metrics=record["metrics"],
                       training_data={"gold": record, "codes": codes})
    model.weights.save(f"gold-judge-v{model.version}.pt", ContentFile(weights))
    return model


def reward_model_ended(reward_model: RewardModel) -> None:
    """The kind's `after`: a finished job asked to be active becomes it."""
    if reward_model.status == Status.DONE and reward_model.config.get("activate"):
        reward_model_activate(reward_model=reward_model)


