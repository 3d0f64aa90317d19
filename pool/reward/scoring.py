"""Scoring renders with a trained reward model: decode in threads, score in
batches, write Render.taste_score and Render.taste_model in bulk (the render
keeps the score, so pages that show it and the grading queue that orders by
it never load the model). Torch is imported on first use, not with this
module: the web process imports it only for the model label."""
from __future__ import annotations

import os
import threading
from collections.abc import Callable

from django.core.files.storage import default_storage
from django.db.models import QuerySet

from files.stored import local_path
from sketches.models import Render

from .conf import feature_cache_dir, torch_threads

# Renders per batch: large enough that decoding threads stay busy and bulk
# updates stay few, small enough to hold little memory (128 x 3 x 64 x 64 bytes).
SCORE_BATCH = 128

_loaded: dict[tuple[str, int, int], object] = {}
_lock = threading.Lock()


def model_label(reward_model) -> str:
    """What Render.taste_model says: which version gave the score."""
    return f"reward-model v{reward_model.version}"


def scorer_for(reward_model):
    """The model's Scorer, loaded once per process and weights file."""
    from .model import Scorer  # torch: the web imports this module (services, the admin)

    if not reward_model.weights:
        raise ValueError(f"{reward_model} has no weights file: it has not finished training")
    # The file itself, not the row: another database (a test's, a benchmark's)
    # reuses primary keys and file names for different weights.
    key = _weights_key(reward_model.weights.name)
    with _lock:
        if key not in _loaded:
            with reward_model.weights.open("rb") as handle:
                _loaded[key] = Scorer.from_bytes(handle.read())
        return _loaded[key]


def _weights_key(name: str) -> tuple[str, int, int]:
    """Which weights file this is, as (where, modification time, size): a
    local one by path; one in a bucket by name and size (its time would cost
    another request, and a name there is never reused, files/s3.py)."""
    path = local_path(name)
    if path is None:
        return (name, 0, default_storage.size(name))
    stat = os.stat(path)
    return (str(path), stat.st_mtime_ns, stat.st_size)


def renders_score(*, reward_model, renders: QuerySet[Render] | None = None,
                  batch_size: int = SCORE_BATCH,
                  on_progress: Callable[[int, int], None] | None = None) -> int:
    """Score every finished render (status ok, with a PNG) in `renders` (all
    renders by default); returns how many were scored."""
    import torch

    from .features import load_images  # torch, like the import above

    torch.set_num_threads(torch_threads())
    scorer = scorer_for(reward_model)
    label = model_label(reward_model)
    queryset = (renders if renders is not None else Render.objects.all())
    ids = list(queryset.filter(status=Render.Status.OK).exclude(png="")
               .order_by("pk").values_list("pk", "png"))
    cache = feature_cache_dir()
    for start in range(0, len(ids), batch_size):
        chunk = ids[start:start + batch_size]
        images = load_images([png for _, png in chunk], scorer.image_size,
                             storage=default_storage, cache_dir=cache)
        scores = scorer.score(images).tolist()
        updates = [Render(pk=pk, taste_score=score, taste_model=label)
                   for (pk, _), score in zip(chunk, scores, strict=True)]
        Render.objects.bulk_update(updates, ["taste_score", "taste_model"])
        if on_progress is not None:
            on_progress(start + len(chunk), len(ids))
    return len(ids)
