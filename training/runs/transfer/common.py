"""What export and import share: the format's file names and notes,
TransferError, and the fields a line carries for each model."""
from __future__ import annotations

from datetime import date, datetime

from django.db import models

from sketches.models import Render, Sketch
from training.models import Rollout, TrainingRun, TrainingStep

FORMAT = "paintrl-run/1"
RUN_FILE, STEPS_FILE, ROLLOUTS_FILE = "run.json", "steps.jsonl", "rollouts.jsonl"
NOT_EXPORTED = ("Checkpoints and the final policy are not exported (they are large); their "
                "paths on the exporting machine are recorded in run.json only, so the "
                "imported run cannot be resumed from its checkpoint.")
FINISHED = (TrainingRun.Status.DONE, TrainingRun.Status.FAILED, TrainingRun.Status.CANCELLED)
IMPORTED = " (imported)"


class TransferError(ValueError):
    """The run cannot be exported, or the input imported; the message says why."""


def _data_fields(model: type[models.Model], exclude: tuple[str, ...] = ()) -> tuple[str, ...]:
    """A model's own values (no id, no foreign keys): what a line carries."""
    return tuple(f.name for f in model._meta.concrete_fields
                 if not f.is_relation and not f.primary_key and f.name not in exclude)


# cancel_requested is a request to a worker: an imported run has none.
RUN_FIELDS = _data_fields(TrainingRun, exclude=("cancel_requested",))
STEP_FIELDS = _data_fields(TrainingStep)
ROLLOUT_FIELDS = _data_fields(Rollout)
SKETCH_FIELDS = _data_fields(Sketch)
# The PNG travels as a file of its own (png/); the call list a picture was
# painted from (Render.calls) does not travel yet: an imported render keeps its
# picture and verdict, as an imported PNG does.
RENDER_FIELDS = _data_fields(Render, exclude=("png", "calls"))


def _jsonable(value):
    return value.isoformat() if isinstance(value, datetime | date) else value


def row(obj: models.Model, names: tuple[str, ...]) -> dict:
    return {name: _jsonable(getattr(obj, name)) for name in names}
