"""The kinds of job, each registered once by the app that owns it (in its
AppConfig.ready()), so this package, below every app, imports none of them
and still knows every job: the runner finds a kind's body here, the queue
its task goes to, the page that shows one, and what a cancel stops at; the
jobs page lists whatever is registered.

A kind's body is named by a dotted path, imported only when a worker runs
the job: a web process registers every kind without loading what a body
needs (torch, TRL, GEPA)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from .models import Job


def job_stale_s() -> float:
    """PAINTRL_JOB_STALE_S: a running job whose worker has said nothing (no
    progress, no cancel check) for this long has lost its worker, and the
    next delivery of its task takes it over. Each kind's body writes progress
    or reads its cancel flag between units that take seconds to minutes (an
    epoch, a batch of 64 judged renders, one GEPA evaluation)."""
    value = settings.PAINTRL_JOB_STALE_S
    if value <= 0:
        raise ImproperlyConfigured(f"PAINTRL_JOB_STALE_S must be positive, got {value}")
    return float(value)


# A kind's time limit where it names none (an import, a reward model, a
# replay): hours beyond the minutes these take, so only a job wedged for good
# (a hung network read, a stuck library call) meets it, and its worker is
# free the same day instead of never.
DEFAULT_TIME_LIMIT_S = 6 * 3600.0
# Between the soft limit (the body gets SoftTimeLimitExceeded and the job
# fails saying so) and the hard one (Celery ends the worker's child process):
# time for the body's `finally` blocks to stop what it started.
TIME_LIMIT_GRACE_S = 120.0


@dataclass(frozen=True)
class JobProgress:
    """How far a job has got, as the jobs page shows it: units done of a
    total (None: it does not count them), and, where its worker measures its
    own pace (`paced`: a run times its steps), the seconds left it measured
    (None: too few units yet)."""

    done: float | None = None
    total: float | None = None
    eta_s: float | None = None
    paced: bool = False


# The units a kind's progress counts by default: (done, total) keys.
COUNTED = (("epoch", "max_epochs"), ("done", "total"))


def progress_counted(job: Job) -> JobProgress:
    """A job's progress where it counts units under one of COUNTED's keys."""
    progress = job.progress or {}
    for done, total in COUNTED:
        if isinstance(progress.get(done), (int, float)) and progress.get(total):
            return JobProgress(progress[done], progress[total])
    return JobProgress()


@dataclass(frozen=True)
class JobKind:
    """One kind of job. `body(running) -> Ending` does the work (jobs.runner
    says what it may raise); `stopping` finishes the sentence "<job> ..." a
    cancel of a running one answers with (None: the kind offers no cancel);
    `claim` are the fields a claim writes (a first stage); `after(job)` runs
    once the job has ended, in the worker that ended it; `failed_as_is` are
    the errors whose message alone says why (bad input), where any other
    error is recorded with its type."""

    name: str  # the task's argument, and the registry's key
    label: str  # what pages call it: "Reward model"
    model: type[Job]
    queue: str  # the Celery queue its task goes to
    url_name: str  # its page, reversed with the job's `url_arg` (its pk)
    body: str  # dotted path of the body
    stopping: str | None = None
    claim: dict = field(default_factory=dict)
    after: str | None = None
    failed_as_is: tuple[type[Exception], ...] = ()
    stale_s: Callable[[], float] = job_stale_s
    url_arg: str = "pk"  # a calibration is shown on its snapshot's page: "snapshot_id"
    # The most seconds one delivery may run the body (DEFAULT_TIME_LIMIT_S says why).
    time_limit_s: float = DEFAULT_TIME_LIMIT_S
    # Dotted path of `job -> JobProgress` (None: progress_counted).
    progress: str | None = None

    def task_limits(self) -> dict:
        """Celery's time limits for this kind's task (jobs.dispatch sends them)."""
        return {"soft_time_limit": self.time_limit_s,
                "time_limit": self.time_limit_s + TIME_LIMIT_GRACE_S}

    def progress_of(self, job: Job) -> JobProgress:
        """How far `job` has got, by the kind's own reading of its progress."""
        return (import_string(self.progress) if self.progress else progress_counted)(job)

    def run_body(self) -> Callable:
        return import_string(self.body)

    def run_after(self) -> Callable | None:
        return import_string(self.after) if self.after else None


_KINDS: dict[str, JobKind] = {}


def job_kind_register(kind: JobKind) -> JobKind:
    """Add a kind (an app's ready()); registering the same one again (a
    second setup in one process) changes nothing, a second kind of that name
    or for that model is refused."""
    if kind.time_limit_s <= 0:
        raise ImproperlyConfigured(f"job kind {kind.name!r}: time_limit_s must be positive, "
                                   f"got {kind.time_limit_s}")
    for other in _KINDS.values():
        if other != kind and (other.name == kind.name or other.model is kind.model):
            raise ImproperlyConfigured(f"job kind {kind.name!r} ({kind.model.__name__}) "
                                       f"clashes with {other.name!r} ({other.model.__name__})")
    _KINDS[kind.name] = kind
    return kind


def job_kinds() -> tuple[JobKind, ...]:
    """Every registered kind, in the order the apps registered them."""
    return tuple(_KINDS.values())


def job_kind(name: str) -> JobKind:
    try:
        return _KINDS[name]
    except KeyError:
        raise LookupError(f"no job kind {name!r}: one of {sorted(_KINDS)}") from None


def job_kind_of(model: type[Job]) -> JobKind:
    """The kind whose rows are `model`'s."""
    for kind in _KINDS.values():
        if kind.model is model:
            return kind
    raise LookupError(f"{model.__name__} is no registered job kind's model")


def job_kind_unregister(name: str) -> None:
    """Remove a kind (a test's own kind, once the test is done)."""
    _KINDS.pop(name, None)
