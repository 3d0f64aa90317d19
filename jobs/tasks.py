"""The one Celery task every kind of job runs by (jobs.runner): thin, takes
the kind's name and the job's pk, sent under its kind's time limits
(jobs.dispatch). A delivery that finds its job held by a live worker (a
redelivered message, a second send) comes back once that worker's lease
would have gone stale: by then the job has ended, or its worker has died
and this delivery takes it over."""
from __future__ import annotations

from celery import shared_task

from .runner import job_run

# How many times a delivery that finds its job held comes back, each once the
# holder's lease would have gone stale. A holder still beating after that is
# alive and ends the job itself; were it to die later, its own message
# (acknowledged after the work, given back when its worker is lost:
# CELERY_TASK_ACKS_LATE, CELERY_TASK_REJECT_ON_WORKER_LOST) is delivered again
# and takes over. Unbounded, a second message of a day-long run would come
# back every few minutes for the whole day.
HELD_RETRIES = 3


@shared_task(bind=True, name="jobs.tasks.job_task", max_retries=HELD_RETRIES)
def job_task(self, kind: str, pk: int, options: dict | None = None) -> str:
    outcome = job_run(kind=kind, pk=pk, worker=self.request.hostname, options=options)
    if (outcome.held_for_s is not None and not self.request.is_eager
            and self.request.retries < HELD_RETRIES):
        raise self.retry(countdown=outcome.held_for_s + 1)
    return outcome.status
