"""Launching a job, the one way every launched job is launched: refuse one
that cannot run (every reason at once), then freeze what it will use and, in
one transaction, queue it, sending it to its kind's worker once that
commits; its worker reads what was frozen, never live fields.

A job with a draft (training.models.LaunchedJob: a run, a prompt
optimisation) is launched by draft_launch, which also refuses a row that is
no draft and moves it from draft to queued only where it still is one, so
two launches at once queue it once. A job with no draft (a calibration) is
launched by job_launch, which creates its row with what it froze."""
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


def job_launch(*, model: type[Job], name: str, problems: list[str],
               frozen: Callable[[], dict], error: type[Exception], **options) -> Job:
    """Launch a job with no draft (module docstring): `problems` are why it
    cannot run, `frozen()` its row's fields, asked only once there are none;
    `error` is raised with the reason, `name` says what could not be
    launched; `options` reach its body."""
    if problems:
        raise error(f"{name} cannot be launched: " + "; ".join(problems))
    fields = frozen()
    with transaction.atomic():
        job = model.objects.create(**fields)
        job_enqueue(job=job, **options)
    return job
