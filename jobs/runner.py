"""The one life every kind of job lives on a worker: claim it under a lease
(jobs.lease), run its kind's body, end it.

A body (JobKind.body) is called with a Running: the job's pk, its lease (to
write progress, read the cancel flag, beat), the task's options and an
`on_progress` for a caller in the same process (a management command). It
ends one of four ways, and the runner writes the ending:
- returns an Ending: done, with the Ending's progress `extra` and fields;
- raises JobStopped: cancelled (it stopped at a boundary after a cancel),
  with the exception's `extra` and fields; a body that finished its work
  ends done even where a cancel came after its last check;
- raises anything else: failed, the error recorded as "Type: message" (a
  kind's `failed_as_is` errors, which are about its input, as the message;
  Celery's soft time limit, JobKind.time_limit_s, as a sentence saying so);
- raises JobSuperseded: another worker holds the job; nothing is written.
Returning ENDED says the body wrote its own ending through its lease (a
run's training processes do). A job ended by this worker then gets its
kind's `after` (a reward model's activation).

Nothing the body does is left half-recorded by the runner: every ending is a
conditional write (jobs.services), so whichever of a cancel, a takeover or
the body's end comes first is the one the row keeps."""
from __future__ import annotations

import logging
import os
import socket
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from celery.exceptions import SoftTimeLimitExceeded

from .lease import JobSuperseded, Lease
from .models import Job, JobStatus
from .registry import JobKind, job_kind

logger = logging.getLogger(__name__)


class JobStopped(Exception):
    """The body stopped at a boundary because a cancel was asked (an app's
    own "stopped" error may subclass it)."""

    def __init__(self, *args, extra: dict | None = None, **fields):
        super().__init__(*args)
        self.extra, self.fields = dict(extra or {}), fields


@dataclass(frozen=True)
class Ending:
    """A body's result: `extra` merged into the progress, `fields` written."""

    extra: dict = field(default_factory=dict)
    fields: dict = field(default_factory=dict)
    ended: bool = False  # the body wrote its own ending (ENDED)


ENDED = Ending(ended=True)


@dataclass
class Running:
    """What a body is handed (module docstring)."""

    kind: JobKind
    pk: int
    lease: Lease
    options: dict
    on_progress: Callable[[dict], None] | None = None

    def stop_if_asked(self, **extra) -> None:
        """Raise JobStopped (with `extra`) where a cancel was asked."""
        if self.lease.cancel_requested():
            raise JobStopped(extra=extra)


@dataclass(frozen=True)
class Outcome:
    """What a delivery did: the job's status after it, and where another
    worker holds it, how long until that worker's lease goes stale."""

    status: str
    held_for_s: float | None = None


def worker_token(worker: str | None = None) -> str:
    """A name for this claim: the worker's, its process and a random part."""
    return f"{worker or socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def job_run(*, kind: str | JobKind, pk: int, worker: str | None = None,
            options: dict | None = None,
            on_progress: Callable[[dict], None] | None = None) -> Outcome:
    """Run job `pk` of `kind` to its end if it can be claimed (module
    docstring); a finished job, or one another worker holds, is left alone."""
    kind = job_kind(kind) if isinstance(kind, str) else kind
    lease = Lease(model=kind.model, pk=pk, token=worker_token(worker))
    stale_s = kind.stale_s()
    if not lease.claim(stale_s=stale_s, **kind.claim):
        return Outcome(_status(kind, pk), held_for_s=lease.held_for_s(stale_s=stale_s))
    running = Running(kind=kind, pk=pk, lease=lease, options=dict(options or {}),
                      on_progress=on_progress)
    try:
        ending = kind.run_body()(running)
    except JobSuperseded:
        logger.warning("%s %s was taken over by another worker; %s stops", kind.name, pk,
                       lease.token)
        return Outcome(_status(kind, pk))
    except JobStopped as stopped:
        ended = lease.end(status=JobStatus.CANCELLED, extra=stopped.extra, **stopped.fields)
    except SoftTimeLimitExceeded:
        logger.error("%s %s ran past its time limit", kind.name, pk)
        ended = lease.end(status=JobStatus.FAILED, error=time_limit_error(kind))
    except kind.failed_as_is as exc:
        ended = lease.end(status=JobStatus.FAILED, error=str(exc))
    except Exception as exc:  # recorded on the job; the worker lives on
        logger.exception("%s %s failed", kind.name, pk)
        ended = lease.end(status=JobStatus.FAILED, error=f"{type(exc).__name__}: {exc}")
    else:
        ended = ending.ended or lease.end(status=JobStatus.DONE, extra=ending.extra,
                                          **ending.fields)
    if ended and (after := kind.run_after()) is not None:
        after(kind.model.objects.get(pk=pk))
    return Outcome(_status(kind, pk))


def job_run_here(*, kind: str | JobKind, pk: int, worker: str | None = None,
                 options: dict | None = None,
                 on_progress: Callable[[dict], None] | None = None) -> Job:
    """Run job `pk` of `kind` to its end in this process, as its worker would
    (a management command, a test), and return its row as it is then: done,
    failed or cancelled, or untouched where it had finished or another worker
    holds it."""
    kind = job_kind(kind) if isinstance(kind, str) else kind
    job_run(kind=kind, pk=pk, worker=worker, options=options, on_progress=on_progress)
    return kind.model.objects.get(pk=pk)


def time_limit_error(kind: JobKind) -> str:
    hours = kind.time_limit_s / 3600
    return (f"ran past the {kind.label.lower()} time limit ({hours:g} h), so its worker was "
            "given back; a job that takes this long has most likely hung")


def _status(kind: JobKind, pk: int) -> str:
    return kind.model.objects.values_list("status", flat=True).get(pk=pk)
