"""The reward-model kind's body (jobs.runner; registered in pool.kinds):
read the graded set, decode the renders, fit a scorer, measure it on the
held-out split, store the weights. Progress is written as it goes and the
cancel flag read between epochs.

Torch loads with this module, which only a worker running the job imports
(the kind names it by its dotted path): the services and pages never do."""
from __future__ import annotations

from dataclasses import dataclass

import torch
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from jobs.runner import Ending, JobStopped, Running
from pool.models import RewardModel
from rating.sources import SIMULATED_SOURCE

from .conf import backbone_path, feature_cache_dir, torch_threads
from .config import BACKBONE, TrainConfig
from .data import TEST, TRAIN, VALIDATION
from .disjoint import graded_set_for
from .features import load_images
from .metrics import comparison_accuracy, json_safe, split_metrics
from .train import ComparedImages, TrainingCancelled, fit, new_scorer

# Keys of RewardModel.config about the job rather than the training.
JOB_OPTIONS = ("activate",)


@dataclass(frozen=True)
class Trained:
    """What a job that ran to the end produced."""

    weights: bytes  # the scorer, as scorer.to_bytes()
    metrics: dict  # JSON-safe
    training_data: dict  # GradedSet.summary(): the renders and grades it saw


def reward_model_body(running: Running) -> Ending:
    """Train and measure, store the weights; a cancel stops it between
    epochs (JobStopped, with the epochs it ran)."""
    reward_model = RewardModel.objects.get(pk=running.pk)
    job = TrainingJob(reward_model, running)
    try:
        trained = job.run()
    except TrainingCancelled as cancelled:
        raise JobStopped(extra={"epochs_run": cancelled.epochs_run}) from cancelled
    reward_model.weights.save(f"reward-model-v{reward_model.version}.pt",
                              ContentFile(trained.weights), save=False)
    return Ending(extra={"percent": 100},
                  fields={"weights": reward_model.weights.name, "metrics": trained.metrics,
                          "training_data": trained.training_data})


class TrainingJob:
    """The body's steps, sharing the job's lease and its progress."""

    def __init__(self, reward_model: RewardModel, running: Running):
        self.reward_model = reward_model
        self.running = running

    def progress(self, values: dict, *, force: bool = False) -> None:
        if self.running.on_progress is not None:
            self.running.on_progress(values)
        self.running.lease.write(force=force, progress=values)

    def cancel_requested(self) -> bool:
        return self.running.lease.cancel_requested()

    def run(self) -> Trained:
        """Train and measure; train.TrainingCancelled when asked to stop."""
        if self.cancel_requested():
            raise TrainingCancelled(0)
        options = {k: v for k, v in self.reward_model.config.items() if k not in JOB_OPTIONS}
        config = TrainConfig.from_dict(options)
        graded, disjoint = graded_set_for(config)
        parts = graded.check_trainable()
        scorer = new_scorer(config, backbone_path() if config.model == BACKBONE else None)
        # Graded renders first, then those only compared (GradedSet.all_items).
        images = self._decode(graded, scorer.image_size)
        grades = torch.from_numpy(graded.grades())
        split = {name: torch.tensor(parts[name]) for name in (TRAIN, VALIDATION, TEST)}
        compared = graded.comparison_split()
        used, local = torch.unique(torch.from_numpy(compared[TRAIN]), return_inverse=True)
        result = fit(scorer, train_images=images[split[TRAIN]],
                     train_grades=grades[split[TRAIN]],
                     validation_images=images[split[VALIDATION]],
                     validation_grades=grades[split[VALIDATION]], config=config,
                     on_epoch=self._on_epoch, should_stop=self.cancel_requested,
                     threads=torch_threads(),
                     comparisons=ComparedImages(images[used], local.reshape(-1, 2)))
        scores = scorer.score(images).numpy()
        graded_count = len(graded.items)
        metrics = {**split_metrics(scores[:graded_count], grades.numpy(),
                               {name: part.numpy() for name, part in split.items()}),
                   "heldout_comparison_accuracy": comparison_accuracy(scores, compared[TEST]),
                   "heldout_comparisons": len(compared[TEST]),
                   "best_epoch": result.best_epoch, "epochs_run": result.epochs_run,
                   "stopped_by": result.stopped_by, "train_seconds": round(result.seconds, 1),
                   "simulated_grades": SIMULATED_SOURCE in graded.sources,
                   "history": result.history}
        training_data = graded.summary()
        if disjoint is not None:  # a yardstick: what it was kept from
            training_data["disjoint_from"] = disjoint
        return Trained(weights=scorer.to_bytes(), metrics=json_safe(metrics),
                       training_data=training_data)

    def _decode(self, graded, image_size: int):
        total = len(graded.all_items)
        self.progress({"stage": "decoding renders", "done": 0, "total": total}, force=True)
        return load_images(
            [item.png for item in graded.all_items], image_size, storage=default_storage,
            cache_dir=feature_cache_dir(),
            on_progress=lambda done, n: self.progress(
                {"stage": "decoding renders", "done": done, "total": n}))

    def _on_epoch(self, report) -> None:
        """train.fit's report of each epoch (an EpochReport), as progress."""
        self.progress({"stage": "training", "epoch": report.epoch,
                       "max_epochs": report.max_epochs,
                       "percent": int(100 * report.epoch / report.max_epochs),
                       "train_loss": round(report.train_loss, 4),
                       "validation_accuracy": round(report.validation_accuracy, 4),
                       "best_epoch": report.best_epoch,
                       "best_accuracy": round(report.best_accuracy, 4),
                       "elapsed_s": round(report.elapsed_s, 1)},
                      force=report.epoch == report.max_epochs)
