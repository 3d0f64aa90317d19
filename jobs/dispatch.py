"""Queueing work once the rows it reads are committed (a worker must find
the row it is sent): a job, on its kind's queue (jobs.registry); any other
task, by its name.

By name, because a service that imported its app's tasks module would make
a circle (the tasks call the services): here the services name the task and
only the tasks module imports the services. The name is the task's dotted
path (Celery's default name), so the task's own object sends it, routed by
settings.CELERY_TASK_ROUTES."""
from __future__ import annotations

from django.db import transaction
from django.utils.module_loading import import_string

from .models import Job
from .registry import job_kind_of
from .tasks import job_task


def job_enqueue(*, job: Job, **options) -> None:
    """Send `job` to its kind's worker on commit, under its kind's time
    limits; `options` reach its body (Running.options) and must be JSON."""
    kind = job_kind_of(type(job))
    pk = job.pk
    transaction.on_commit(
        lambda: job_task.apply_async((kind.name, pk, options or None), queue=kind.queue,
                                     **kind.task_limits()))


def task_send(name: str, *args, on_error=None, **options) -> None:
    """Send the task called `name` with `args` on commit (`options`: Celery's,
    e.g. priority). `on_error(exc)`, where given, takes a broker that cannot
    be reached instead of raising it."""

    def send() -> None:
        try:
            # The task object itself, its module imported by its dotted name (Celery
            # registers an app's tasks only once something imports them, which a web
            # process may not have done yet): its routes apply.
            import_string(name).apply_async(args, **options)
        except Exception as exc:
            if on_error is None:
                raise
            on_error(exc)

    transaction.on_commit(send)
