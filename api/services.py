"""The two writes the API offers that no page makes in one go, each built
from the services the pages call:

- a sketch from code or a chat reply, rendered (sketches.code_text reads the
  reply as the renderer does; sketches.editing checks the code as the editor
  does; sketches.services creates it and queues its render);
- a run from the presets, or a clone, with settings changed: the admin's add
  form starts from training.runs.selectors.run_defaults and checks each field
  with the model's own validation; run_clone copies a run. The settings are
  the ones a clone copies (training.runs.services), so a field added there is
  one here too."""
from __future__ import annotations

import json

from django import forms
from django.db import models, transaction

from sketches.code_text import extract_code
from sketches.editing import SketchEditInvalid, written_code_check
from sketches.models import Render, Sketch
from sketches.services import render_create, sketch_create
from training.models import TrainingRun
from training.runs.selectors import run_defaults
from training.runs.services import CHOICE_FIELDS, GRPO_FIELDS, run_clone

# The settings a script may set on a new run or a clone (the name too).
RUN_FIELDS = ("name", *CHOICE_FIELDS, *GRPO_FIELDS)


@transaction.atomic
def sketch_submit(*, code: str | None = None, reply: str | None = None, prompt: str = "",
                  seed: int = 0, source: str = "api") -> Render:
    """A new sketch from `code`, or from the sketch in a chat `reply`, and its
    render at `seed`, queued once the transaction commits. Raises
    SketchEditInvalid (the editor's refusal) for code that cannot be saved."""
    if code is None and reply is None:
        raise SketchEditInvalid("Send the sketch: its code, or a chat reply holding it.")
    if code is not None and reply is not None:
        raise SketchEditInvalid("Send either code or a chat reply holding the sketch, not both.")
    meta = {"source": source}
    if reply is not None:
        code = extract_code(reply)
        if code is None:
            raise SketchEditInvalid("The reply holds no sketch: no fenced JavaScript block and "
                                    "no setup() function.")
        meta["from_reply"] = True
    written_code_check(code)
    sketch = sketch_create(code=code, prompt=prompt, origin=Sketch.Origin.IMPORTED, meta=meta)
    return render_create(sketch=sketch, seed=seed)


class RunSettingsInvalid(ValueError):
    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


class RunSettingsForm(forms.ModelForm):
    class Meta:
        model = TrainingRun
        fields = RUN_FIELDS


def _json_fields() -> list[str]:
    return [name for name in RUN_FIELDS
            if isinstance(TrainingRun._meta.get_field(name), models.JSONField)]


def _settings_apply(run: TrainingRun, changes: dict) -> TrainingRun:
    """Save `changes` onto the draft `run` through the model's validation."""
    unknown = sorted(set(changes) - set(RUN_FIELDS))
    if unknown:
        raise RunSettingsInvalid([f"{name}: not a run setting (one of {', '.join(RUN_FIELDS)})"
                                  for name in unknown])
    data = {**forms.model_to_dict(run, fields=RUN_FIELDS), **changes}
    # A form reads a JSON field from its text, as the admin posts it ({} itself
    # would read as "empty", and be stored as null).
    for name in _json_fields():
        if name in data and not isinstance(data[name], str):
            data[name] = json.dumps(data[name])
    form = RunSettingsForm(data, instance=run)
    if not form.is_valid():
        raise RunSettingsInvalid([f"{'' if f == '__all__' else f + ': '}{' '.join(m)}"
                                  for f, m in form.errors.items()])
    return form.save()


@transaction.atomic
def run_create(*, user, settings: dict) -> TrainingRun:
    """A draft run from the presets (run_defaults, as the admin's add form
    starts) with `settings` changed. Raises RunSettingsInvalid."""
    run = TrainingRun(created_by=user)
    defaults = {"name": "run from the API", **run_defaults()}
    return _settings_apply(run, {**defaults, **settings})


@transaction.atomic
def run_clone_with(*, run: TrainingRun, user, settings: dict) -> TrainingRun:
    """run_clone, then `settings` changed on the draft clone; nothing is
    saved when a setting is refused. Raises RunSettingsInvalid."""
    return _settings_apply(run_clone(run=run, user=user), settings)
