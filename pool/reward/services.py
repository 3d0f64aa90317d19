"""Writes for reward models: create a training job, run it (the body of the
Celery task), activate a finished model (and score the renders with it),
cancel a job; and the grading queue's "most informative first" order, which
reads the active model's scores.

A job's life: queued -> running -> done | failed | cancelled. Cancelling
sets a flag the running job reads between epochs; a queued job is cancelled
at once. Running a finished job again changes nothing (a redelivered task
message is harmless).

Torch loads only when a job trains: the web process imports this module for
the queue order and the admin, and should not pay for it."""
from __future__ import annotations

import logging
import math
import time

from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction
from django.db.models import Case, F, FloatField, Max, QuerySet, Value, When
from django.db.models.functions import Abs, Least
from django.utils import timezone

from pool.models import RewardModel
from sketches.models import Render

from .conf import backbone_path, feature_cache_dir, torch_threads
from .config import BACKBONE, TrainConfig
from .data import SIMULATED_SOURCE, TEST, TRAIN, VALIDATION, graded_set_from_db
from .metrics import evaluate, grade_boundaries, pairwise_accuracy
from .scoring import model_label, renders_score

logger = logging.getLogger(__name__)

# Keys of RewardModel.config about the job rather than the training.
JOB_OPTIONS = ("activate",)
# Progress rows are written at most this often (and at the last epoch): small
# jobs run an epoch in milliseconds, and each write is a database round trip.
PROGRESS_EVERY_S = 0.5

Status = RewardModel.Status


def reward_model_create(*, created_by=None, config: dict | None = None, activate: bool = False,
                        queue: bool = True) -> RewardModel:
    """A new version, queued for training (on commit) unless `queue` is False
    (the management command then trains it in its own process). `config`
    holds TrainConfig fields; it is checked here, so a bad value fails now,
    not on a worker. `activate`: make it the active model once trained."""
    train_config = TrainConfig.from_dict(dict(config or {}))
    stored = {**train_config.to_dict(), "activate": bool(activate)}
    for _ in range(5):
        try:
            with transaction.atomic():
                latest = RewardModel.objects.aggregate(v=Max("version"))["v"] or 0
                reward_model = RewardModel.objects.create(version=latest + 1, config=stored,
                                                          created_by=created_by)
                break
        except IntegrityError:  # another job took the version number: take the next
            continue
    else:
        raise RuntimeError("could not allocate a reward model version after 5 tries")
    if queue:
        from pool.tasks import train_reward_model_task

        transaction.on_commit(lambda: train_reward_model_task.delay(reward_model.pk))
    return reward_model


def reward_model_cancel(*, reward_model: RewardModel) -> str:
    """Stop a job: a queued one is cancelled now, a running one at its next
    epoch. Returns the status it has after the call."""
    now = timezone.now()
    queued = RewardModel.objects.filter(pk=reward_model.pk, status=Status.QUEUED)
    if queued.update(status=Status.CANCELLED, cancel_requested=True, finished=now):
        return Status.CANCELLED
    RewardModel.objects.filter(pk=reward_model.pk, status=Status.RUNNING).update(
        cancel_requested=True)
    return RewardModel.objects.values_list("status", flat=True).get(pk=reward_model.pk)


def reward_model_activate(*, reward_model: RewardModel, score: bool = True) -> RewardModel:
    """Make a trained model the active one (the one before it stops being
    active) and, on commit, queue scoring every render with it unless `score`
    is False (the caller then scores, see scoring.renders_score)."""
    reward_model.refresh_from_db()
    if reward_model.status != Status.DONE or not reward_model.weights:
        raise ValueError(f"{reward_model} cannot be activated: only a finished model "
                         "with weights can")
    with transaction.atomic():
        RewardModel.objects.filter(active=True).exclude(pk=reward_model.pk).update(active=False)
        RewardModel.objects.filter(pk=reward_model.pk).update(active=True)
        if score:
            from pool.tasks import score_renders_task

            transaction.on_commit(lambda: score_renders_task.delay(reward_model.pk))
    reward_model.refresh_from_db()
    return reward_model


def reward_model_active() -> RewardModel | None:
    return RewardModel.objects.filter(active=True).first()


def reward_model_train(*, reward_model_id: int, on_progress=None) -> RewardModel:
    """Train a queued job, recording progress, metrics, the data it saw and
    its weights; ends done, failed or cancelled. `on_progress(dict)` sees
    each progress row (the command prints them)."""
    claimed = RewardModel.objects.filter(
        pk=reward_model_id, status__in=[Status.QUEUED, Status.RUNNING]
    ).update(status=Status.RUNNING, started=timezone.now(), error="",
             progress={"stage": "loading grades"})
    reward_model = RewardModel.objects.get(pk=reward_model_id)
    if not claimed:
        return reward_model  # finished already (a redelivered message)
    from .train import TrainingCancelled

    job = _TrainingJob(reward_model, on_progress)
    try:
        job.run()
    except TrainingCancelled as cancelled:
        _finish(reward_model, Status.CANCELLED,
                progress={**job.last_progress, "stage": "cancelled",
                          "epochs_run": cancelled.epochs_run})
    except Exception as exc:  # the job records why it failed; the worker lives on
        logger.exception("reward model v%s failed", reward_model.version)
        _finish(reward_model, Status.FAILED, error=f"{type(exc).__name__}: {exc}",
                progress={**job.last_progress, "stage": "failed"})
    reward_model.refresh_from_db()
    if reward_model.status == Status.DONE and reward_model.config.get("activate"):
        reward_model_activate(reward_model=reward_model)
    return reward_model


class _TrainingJob:
    """reward_model_train's steps, sharing the job row and its progress."""

    def __init__(self, reward_model: RewardModel, on_progress):
        self.reward_model = reward_model
        self.on_progress = on_progress
        self.last_progress: dict = {}
        self._last_write = 0.0

    def progress(self, values: dict, *, force: bool = False) -> None:
        self.last_progress = values
        if self.on_progress is not None:
            self.on_progress(values)
        now = time.monotonic()
        if force or now - self._last_write >= PROGRESS_EVERY_S:
            # A queryset update, so the cancel flag set meanwhile is not overwritten.
            RewardModel.objects.filter(pk=self.reward_model.pk).update(progress=values)
            self._last_write = now

    def cancel_requested(self) -> bool:
        return RewardModel.objects.filter(pk=self.reward_model.pk,
                                          cancel_requested=True).exists()

    def run(self) -> None:
        import torch

        from .features import load_images
        from .train import EpochReport, TrainingCancelled, fit, new_scorer

        if self.cancel_requested():
            raise TrainingCancelled(0)
        options = {k: v for k, v in self.reward_model.config.items() if k not in JOB_OPTIONS}
        config = TrainConfig.from_dict(options)
        graded = graded_set_from_db(sources=config.sources, split_config=config.split_config())
        parts = graded.check_trainable()
        scorer = new_scorer(config, backbone_path() if config.model == BACKBONE else None)
        total = len(graded.items)
        self.progress({"stage": "decoding renders", "done": 0, "total": total}, force=True)
        images = load_images(
            [item.png_path for item in graded.items], scorer.image_size,
            cache_dir=feature_cache_dir(),
            on_progress=lambda done, n: self.progress(
                {"stage": "decoding renders", "done": done, "total": n}))
        grades = torch.from_numpy(graded.grades())

        def on_epoch(report: EpochReport) -> None:
            self.progress({"stage": "training", "epoch": report.epoch,
                           "max_epochs": report.max_epochs,
                           "percent": int(100 * report.epoch / report.max_epochs),
                           "train_loss": round(report.train_loss, 4),
                           "validation_accuracy": round(report.validation_accuracy, 4),
                           "best_epoch": report.best_epoch,
                           "best_accuracy": round(report.best_accuracy, 4),
                           "elapsed_s": round(report.elapsed_s, 1)},
                          force=report.epoch == report.max_epochs)

        train, validation, test = (torch.tensor(parts[name]) for name in (TRAIN, VALIDATION, TEST))
        result = fit(scorer, train_images=images[train], train_grades=grades[train],
                     validation_images=images[validation],
                     validation_grades=grades[validation], config=config,
                     on_epoch=on_epoch, should_stop=self.cancel_requested,
                     threads=torch_threads())
        scores = scorer.score(images).numpy()
        grades_np = grades.numpy()
        seen = torch.cat([train, validation]).numpy()
        metrics = {
            "heldout_pairwise_accuracy": pairwise_accuracy(scores[test.numpy()],
                                                           grades_np[test.numpy()]),
            "test": evaluate(scores[test.numpy()], grades_np[test.numpy()]),
            "validation_pairwise_accuracy": pairwise_accuracy(scores[validation.numpy()],
                                                              grades_np[validation.numpy()]),
            "train_pairwise_accuracy": pairwise_accuracy(scores[train.numpy()],
                                                         grades_np[train.numpy()]),
            # From the renders it learnt from, not the test split: the queue's order uses them.
            "boundaries": grade_boundaries(scores[seen], grades_np[seen]),
            "best_epoch": result.best_epoch, "epochs_run": result.epochs_run,
            "stopped_by": result.stopped_by, "train_seconds": round(result.seconds, 1),
            "simulated_grades": SIMULATED_SOURCE in graded.sources,
            "history": result.history,
        }
        version = self.reward_model.version
        self.reward_model.weights.save(f"reward-model-v{version}.pt",
                                       ContentFile(scorer.to_bytes()), save=False)
        _finish(self.reward_model, Status.DONE, weights=self.reward_model.weights.name,
                metrics=_json_safe(metrics), training_data=graded.summary(),
                progress={**self.last_progress, "stage": "done", "percent": 100})


def _finish(reward_model: RewardModel, status: str, **fields) -> None:
    RewardModel.objects.filter(pk=reward_model.pk).update(status=status,
                                                          finished=timezone.now(), **fields)


def _json_safe(value):
    """NaN (a split with no pairs) as None: JSON has no NaN, and PostgreSQL refuses it."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    return value


def renders_score_active(*, renders: QuerySet[Render] | None = None, on_progress=None) -> int:
    """Score renders with the active model (none: nothing to do, 0)."""
    active = reward_model_active()
    if active is None:
        return 0
    return renders_score(reward_model=active, renders=renders, on_progress=on_progress)


def informative_order(renders: QuerySet[Render]) -> QuerySet[Render] | None:
    """"Most informative first" for the grading queue
    (settings.PAINTRL_INFORMATIVE_ORDER): renders whose active-model score
    lies nearest a grade boundary (nope|okay or okay|love) first, since those
    are the grades the model is least sure of; renders it has not scored
    come last, newest first. None while no model is active, which hides the
    option."""
    active = RewardModel.objects.filter(active=True).only("pk", "version", "metrics").first()
    if active is None:
        return None
    boundaries = list((active.metrics or {}).get("boundaries", {}).values())
    if not boundaries:
        return None
    distances = [Abs(F("taste_score") - Value(float(b), output_field=FloatField()))
                 for b in boundaries]
    nearest = distances[0] if len(distances) == 1 else Least(*distances)
    # Scores from another version sit on another scale: treat them as unscored.
    uncertainty = Case(When(taste_model=model_label(active), then=nearest), default=None,
                       output_field=FloatField())
    return renders.annotate(taste_uncertainty=uncertainty).order_by(
        F("taste_uncertainty").asc(nulls_last=True), "-created", "-pk")
