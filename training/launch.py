"""Launching a draft job, the one way a run and a prompt optimisation are
launched: refuse a row that is no draft, or that cannot run (every reason at
once), then freeze what it will use and, in one transaction, move it from
draft to queued, sending it to its kind's worker once that commits. The move
is conditional on the row still being a draft, so two launches at once
queue it once. (A calibration has no draft: its launch creates the row.)"""
from __future__ import annotations

from collections.abc import Callable

from django.db import transaction

from jobs.dispatch import job_enqueue
from jobs.models import Job


def draft_launch(*, job: Job, problems: list[str], frozen: Callable[[], dict],
                 error: type[Exception], not_draft: str = "", **options) -> Job:
    """Launch draft `job` (module docstring): `problems` are why it cannot
    run, `frozen()` the fields the launch writes (launched_config, the
    first progress...), asked only once there are none; `error` is raised
    with the reason, `not_draft` says what to do instead; `options` reach
    its body."""
    model = type(job)
    draft, queued = model.Status.DRAFT, model.Status.QUEUED
    if job.status != draft:
        raise error(f"{job} is {job.status}, not a draft: only a draft is launched{not_draft}")
    if problems:
        raise error(f"{job} cannot be launched: " + "; ".join(problems))
    fields = frozen()
    with transaction.atomic():
        launched = model.objects.filter(pk=job.pk, status=draft).update(
            status=queued, cancel_requested=False, error="", **fields)
        if not launched:
            raise error(f"{job} was launched meanwhile")
        job_enqueue(job=job, **options)
    job.refresh_from_db()
    return job
