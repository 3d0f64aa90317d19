"""How a scorer learns from grades: a Bradley-Terry loss over every pair of
renders in a batch whose grades differ (love > okay > nope), and over the
curators' comparisons (the preferred render of two should score higher: the
same loss, on pairs given rather than derived), early stopping on
the validation split's pairwise accuracy, a progress callback after each
epoch and a cancel check between epochs. Seeded: the same data, config and
seed give the same weights. No database here (services.py feeds it).
"""
from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch
import torch.nn.functional as F

from .config import TrainConfig
from .metrics import pairwise_accuracy
from .model import EmbeddingHead, Scorer, build_scorer

# Torch threads while training and scoring. One: on a 2-core machine with render
# workers and other jobs running, a second thread's OpenMP spinning waits for a
# core and makes a fit many times slower, and even nearly idle two threads are
# slower than one (docs/benchmarks.md, "Measured constants").
DEFAULT_THREADS = 1

__all__ = ["DEFAULT_THREADS", "ComparedImages", "EpochReport", "FitResult", "TrainConfig",
           "TrainingCancelled", "bradley_terry_loss", "comparison_loss", "fit", "new_scorer"]


@dataclass(frozen=True)
class EpochReport:
    epoch: int
    max_epochs: int
    train_loss: float
    validation_accuracy: float
    best_epoch: int
    best_accuracy: float
    elapsed_s: float


@dataclass
class FitResult:
    scorer: Scorer
    best_epoch: int
    epochs_run: int
    stopped_by: str  # "early stopping" or "max epochs"
    history: list[dict] = field(default_factory=list)
    seconds: float = 0.0


class TrainingCancelled(Exception):
    def __init__(self, epochs_run: int):
        super().__init__(f"cancelled after {epochs_run} epochs")
        self.epochs_run = epochs_run


def new_scorer(config: TrainConfig, backbone_path=None) -> Scorer:
    """An untrained scorer, its initial weights fixed by config.seed."""
    torch.manual_seed(config.seed)
    return build_scorer(config.model, image_size=config.image_size,
                        hparams={"width": config.width, "statistics": config.statistics},
                        backbone_path=backbone_path)


def bradley_terry_loss(scores: torch.Tensor, grades: torch.Tensor) -> torch.Tensor | None:
    """Mean of -log sigmoid(s_better - s_worse) over all pairs in the batch
    whose grades differ; None when the batch holds one grade only."""
    better = grades[:, None] > grades[None, :]
    if not bool(better.any()):
        return None
    margins = scores[:, None] - scores[None, :]
    return F.softplus(-margins[better]).mean()


@dataclass(frozen=True)
class ComparedImages:
    """Comparisons to train on: `pairs` (P, 2) holds (winner, loser) indices
    into `images`."""

    images: torch.Tensor
    pairs: torch.Tensor


def comparison_loss(scores: torch.Tensor, pairs: torch.Tensor) -> torch.Tensor:
    """Mean of -log sigmoid(s_winner - s_loser): bradley_terry_loss on given pairs."""
    return F.softplus(-(scores[pairs[:, 0]] - scores[pairs[:, 1]])).mean()


def fit(scorer: Scorer, *, train_images: torch.Tensor, train_grades: torch.Tensor,
        validation_images: torch.Tensor, validation_grades: torch.Tensor,
        config: TrainConfig, on_epoch: Callable[[EpochReport], None] | None = None,
        should_stop: Callable[[], bool] | None = None,
        threads: int = DEFAULT_THREADS, comparisons: ComparedImages | None = None) -> FitResult:
    """Train `scorer` in place and leave it holding its best epoch's weights.
    Each epoch takes the grade batches, then the `comparisons` in batches of
    as many pairs. Raises TrainingCancelled when `should_stop()` answers True
    (it is asked before each epoch)."""
    torch.set_num_threads(threads)
    started = time.perf_counter()
    train_inputs = scorer.prepare(train_images)
    validation_inputs = scorer.prepare(validation_images)
    compared_inputs = (scorer.prepare(comparisons.images)
                       if comparisons is not None and len(comparisons.pairs) else None)
    module = scorer.module
    if isinstance(module, EmbeddingHead):
        module.fit_standardisation(train_inputs)
    generator = torch.Generator().manual_seed(config.seed)
    optimiser = torch.optim.AdamW(module.parameters(), lr=config.learning_rate,
                                  weight_decay=config.weight_decay)
    grades = train_grades.float()
    best_accuracy, best_epoch, best_state = -1.0, 0, None
    history: list[dict] = []
    stopped_by = "max epochs"
    epoch = 0
    for epoch in range(1, config.max_epochs + 1):
        if should_stop is not None and should_stop():
            raise TrainingCancelled(epoch - 1)
        module.train()
        order = torch.randperm(train_inputs.shape[0], generator=generator)
        losses = []
        for start in range(0, len(order), config.batch_size):
            batch = order[start:start + config.batch_size]
            if batch.numel() < 2:
                continue
            inputs = train_inputs[batch]
            if config.augment:
                inputs = module.augment(inputs, generator)
            loss = bradley_terry_loss(module(inputs), grades[batch])
            if loss is None:
                continue
            _step(optimiser, loss, losses)
        if compared_inputs is not None:
            pair_order = torch.randperm(len(comparisons.pairs), generator=generator)
            for start in range(0, len(pair_order), config.batch_size):
                pairs = comparisons.pairs[pair_order[start:start + config.batch_size]]
                # Score only the renders these pairs name, re-indexed to them.
                used, local = torch.unique(pairs, return_inverse=True)
                inputs = compared_inputs[used]
                if config.augment:
                    inputs = module.augment(inputs, generator)
                _step(optimiser, comparison_loss(module(inputs), local), losses)
        accuracy = pairwise_accuracy(scorer.score_inputs(validation_inputs).numpy(),
                                     validation_grades.numpy())
        if accuracy > best_accuracy:
            best_accuracy, best_epoch = accuracy, epoch
            best_state = copy.deepcopy(module.state_dict())
        report = EpochReport(epoch=epoch, max_epochs=config.max_epochs,
                             train_loss=sum(losses) / max(len(losses), 1),
                             validation_accuracy=accuracy, best_epoch=best_epoch,
                             best_accuracy=best_accuracy,
                             elapsed_s=time.perf_counter() - started)
        history.append(asdict(report))
        if on_epoch is not None:
            on_epoch(report)
        if config.patience and epoch - best_epoch >= config.patience:
            stopped_by = "early stopping"
            break
    if best_state is not None:
        module.load_state_dict(best_state)
    module.eval()
    return FitResult(scorer=scorer, best_epoch=best_epoch, epochs_run=epoch,
                     stopped_by=stopped_by, history=history,
                     seconds=time.perf_counter() - started)


def _step(optimiser: torch.optim.Optimizer, loss: torch.Tensor, losses: list[float]) -> None:
    optimiser.zero_grad(set_to_none=True)
    loss.backward()
    optimiser.step()
    losses.append(loss.item())
