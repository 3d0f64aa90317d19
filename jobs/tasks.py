"""The one Celery task every kind of job runs by (jobs.runner): thin, takes
the kind's name and the job's pk. A delivery that finds its job held by a
live worker (a redelivered message, a second send) comes back once that
worker's lease would have gone stale: by then the job has ended, or its
worker has died and this delivery takes it over."""
from __future__ import annotations

from celery import shared_task

from .runner import job_run


@shared_task(bind=True, name="jobs.tasks.job_task", max_retries=None)
def job_task(self, kind: str, pk: int, options: dict | None = None) -> str:
    outcome = job_run(kind=kind, pk=pk, worker=self.request.hostname, options=options)
    if outcome.held_for_s is not None and not self.request.is_eager:
        raise self.retry(countdown=outcome.held_for_s + 1)
    return outcome.status
