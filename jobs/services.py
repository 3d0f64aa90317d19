"""The writes that move a job (jobs.models.Job) along its life: claim it,
cancel it, finish it (a worker's progress goes through its lease: lease.py).

Every write is a queryset update, never save(): a job's row is written by two
processes at once (its worker, and whoever cancels it), and save() would write
back every field as the worker read it, undoing a cancel flag set meanwhile.
Each update is conditional on the state it moves the job from, so a
redelivered task, a second worker or a late cancel finds nothing to change.

The cancel contract (job_cancel and every app's cancel built on it): a
queued job is cancelled at once; a running one is asked to stop, and its
worker stops at its next boundary (an epoch, a batch, a step) and finishes it
cancelled; a finished one is left alone. The answer is a Cancel: what
happened (for code), the status after the call, and a sentence for the
person who asked."""
from __future__ import annotations

import enum
from dataclasses import dataclass

from django.db.models import DateTimeField, F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from .models import FINISHED, LIVE, Job, JobStatus
from .registry import job_kind_of

# The pages poll every 1 to 3 s: writing progress more often only adds database
# writes (one per item would be ~1,700 for an import of a grading batch, and a
# small reward model runs an epoch in milliseconds).
PROGRESS_EVERY_S = 0.5


class CancelOutcome(enum.StrEnum):
    STOPPED = "stopped"  # cancelled now: it was queued (or its worker had gone)
    STOPPING = "stopping"  # running: its worker stops at its next boundary
    NOT_LIVE = "not live"  # finished already, or never queued: nothing changed


@dataclass(frozen=True)
class Cancel:
    """What a cancel did: `outcome` for code, `status` the job's status after
    the call, `message` for the person who asked."""

    outcome: CancelOutcome
    status: str
    message: str


def job_claim(*, model: type[Job], pk: int, claimable: Q | None = None, **fields) -> bool:
    """Mark a job running for this worker, with `fields`. By default a queued
    job is claimable, and a running one (its worker died: the job's body must
    be safe to run again); `claimable` narrows that (a run: running only with
    a stale heartbeat). False when nothing was claimed (finished, or cancelled
    while queued): the task then does nothing. `started` keeps the first
    claim's time."""
    now = timezone.now()
    rows = model.objects.filter(claimable if claimable is not None else Q(status__in=LIVE),
                                pk=pk)
    return bool(rows.update(
        status=JobStatus.RUNNING, error="", finished=None,
        started=Coalesce(F("started"), Value(now, output_field=DateTimeField())), **fields))


def job_finish(*, model: type[Job], pk: int, status: str, only: Q | None = None,
               **fields) -> bool:
    """End a running job as `status` (done, failed or cancelled), with
    `fields`. Only a running job is finished, and only where `only` matches
    (a run: its own worker's claim), so a second worker never overwrites an
    ending already written. False when nothing was finished."""
    if status not in FINISHED:
        raise ValueError(f"{status!r} is not an ending: one of {sorted(FINISHED)}")
    rows = model.objects.filter(only if only is not None else Q(), pk=pk,
                                status=JobStatus.RUNNING)
    return bool(rows.update(status=status, finished=timezone.now(), **fields))


def job_end(*, model: type[Job], pk: int, status: str, extra: dict | None = None,
            only: Q | None = None, **fields) -> bool:
    """job_finish, keeping the progress the job wrote, with `extra` merged in
    and its stage the ending: the pages show where it got to and how it ended."""
    progress = model.objects.values_list("progress", flat=True).get(pk=pk) or {}
    return job_finish(model=model, pk=pk, status=status, only=only,
                      progress={**progress, **(extra or {}), "stage": status}, **fields)


def job_stop(*, job: Job, only: Q | None = None) -> bool:
    """Cancel a job now rather than at its worker's next boundary: a queued
    one, or the rows `only` selects (a run whose worker has gone silent).
    Its progress says it was cancelled. False when nothing was stopped."""
    rows = type(job).objects.filter(only if only is not None else Q(status=JobStatus.QUEUED),
                                    pk=job.pk)
    return bool(rows.update(status=JobStatus.CANCELLED, cancel_requested=True,
                            finished=timezone.now(),
                            progress={**(job.progress or {}), "stage": JobStatus.CANCELLED}))


def job_cancel(*, job: Job, stopping: str | None = None, name: str | None = None) -> Cancel:
    """Cancel a job (the contract is in the module docstring). `stopping`
    says what a running job's worker does ("will stop after its current
    batch"; by default what its kind says: jobs.registry); `name` is what
    the messages call the job (str(job) by default). Refreshes `job`."""
    job.refresh_from_db()
    name = name or str(job)
    stopping = stopping or job_kind_of(type(job)).stopping
    if stopping is None:
        raise ValueError(f"{name} cannot be cancelled: its kind offers no cancel")
    if job_stop(job=job):
        return Cancel(CancelOutcome.STOPPED, JobStatus.CANCELLED,
                      f"{name} cancelled before it started.")
    # Claimed meanwhile or running all along: the flag is what its worker reads.
    if type(job).objects.filter(pk=job.pk, status=JobStatus.RUNNING).update(
            cancel_requested=True):
        return Cancel(CancelOutcome.STOPPING, JobStatus.RUNNING, f"{name} {stopping}.")
    return job_not_live(job=job, name=name)


def job_not_live(*, job: Job, name: str | None = None) -> Cancel:
    """The answer to cancelling a job that is neither queued nor running."""
    status = type(job).objects.values_list("status", flat=True).get(pk=job.pk)
    name = name or str(job)
    if status in FINISHED:
        return Cancel(CancelOutcome.NOT_LIVE, status, f"{name} has already finished ({status}).")
    return Cancel(CancelOutcome.NOT_LIVE, status, f"{name} has not been launched.")
