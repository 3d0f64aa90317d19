"""A queued row of any registered kind of job (jobs.registry), with the
least behind it that its model requires: for the tests that hold for every
kind (the lease, the jobs page)."""
from __future__ import annotations

import itertools

from jobs.models import Job, JobStatus
from jobs.registry import JobKind
from pool.models import PoolSnapshot, RewardModel
from sketches.models import ImportJob
from training.models import (
    Calibration,
    Judge,
    PolicyBuild,
    PromptOptimisation,
    PromptSet,
    Replay,
    Rubric,
    SystemPrompt,
    TrainingRun,
)

_numbers = itertools.count(1)


def _judges() -> dict:
    n = next(_numbers)
    return {"judge": Judge.objects.create(name=f"rows judge {n}"),
            "scorer": Judge.objects.create(name=f"rows scorer {n}")}


def _choices() -> dict:
    prompts = PromptSet.objects.create(name=f"rows prompts {next(_numbers)}")
    return {**_judges(), "prompt_set": prompts, "rubric": Rubric.objects.create(name="rows rubric")}


def _row(model: type[Job]) -> Job:
    n = next(_numbers)
    if model is ImportJob:
        return ImportJob.objects.create(original_filename=f"rows-{n}.zip",
                                        archive=f"imports/rows-{n}.zip")
    if model is RewardModel:
        return RewardModel.objects.create(version=10_000 + n)
    if model is Replay:
        return Replay.objects.create(rubric=Rubric.objects.create(name="rows rubric"),
                                     **_judges())
    if model is TrainingRun:
        return TrainingRun.objects.create(
            name=f"rows run {n}", system_prompt=SystemPrompt.objects.create(
                name="rows prompt", text="Write a sketch."), **_choices())
    if model is PromptOptimisation:
        return PromptOptimisation.objects.create(
            name=f"rows optimisation {n}", reflection=Judge.objects.create(
                name=f"rows reflection {n}"),
            seed_prompt=SystemPrompt.objects.create(name="rows seed", text="Write a sketch."),
            **_choices())
    if model is Calibration:
        return Calibration.objects.create(snapshot=PoolSnapshot.objects.create(
            name=f"rows snapshot {n}", rule={}))
    if model is PolicyBuild:
        return PolicyBuild.objects.create(out=f"/tmp/rows-policy-{n}")
    raise LookupError(f"tests/job_rows.py has no row for {model.__name__}: add one")


def job_row(kind: JobKind, **fields) -> Job:
    """A queued job of `kind` (its model's other defaults), then `fields`."""
    row = _row(kind.model)
    kind.model.objects.filter(pk=row.pk).update(**{"status": JobStatus.QUEUED, **fields})
    row.refresh_from_db()
    return row
