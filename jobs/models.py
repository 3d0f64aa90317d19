"""The fields and states every job has. A job's life: queued -> running ->
done | failed | cancelled; a job whose life starts earlier (a run's draft)
adds states with `job_statuses`."""
from __future__ import annotations

from django.db import models


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"
    CANCELLED = "cancelled", "Cancelled"


# A job in one of these has ended and is never claimed again (a resume, which
# only a run has, queues it anew).
FINISHED = frozenset({JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED})
# A job in one of these may still change on its own: pages poll it, a cancel acts on it.
LIVE = (JobStatus.QUEUED, JobStatus.RUNNING)


def job_statuses(*earlier: tuple[str, str, str], qualname: str,
                 module: str) -> type[models.TextChoices]:
    """JobStatus with states before `queued` ((NAME, value, label) each), for
    a job that exists before it is queued (a run's draft). `qualname` and
    `module` say where the class lives, so its members pickle."""
    members = [(n, (value, label)) for n, value, label in earlier]
    members += [(status.name, (status.value, status.label)) for status in JobStatus]
    return models.TextChoices(qualname.rpartition(".")[2], members, qualname=qualname,
                              module=module)


class Job(models.Model):
    """A row a worker runs in the background and a page polls. Written only by
    jobs.services and the lease built on it (queryset updates: see its
    docstring)."""

    Status = JobStatus

    status = models.CharField(max_length=10, choices=JobStatus.choices,
                              default=JobStatus.QUEUED, db_index=True)
    cancel_requested = models.BooleanField(
        default=False, help_text="Asked to stop: the worker stops at its next boundary.")
    progress = models.JSONField(default=dict, blank=True,
                                help_text="Where the job has got to: its stage and counts.")
    error = models.TextField(blank=True, help_text="Why the job failed.")
    # Indexed: job lists are read newest first.
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    started = models.DateTimeField(null=True, blank=True,
                                   help_text="When a worker first took it.")
    finished = models.DateTimeField(null=True, blank=True)
    # The lease (jobs.lease): which worker holds the job, and its last word.
    heartbeat = models.DateTimeField(null=True, blank=True,
                                     help_text="Last sign of life from the worker.")
    worker = models.CharField(max_length=200, blank=True)

    class Meta:
        abstract = True
        ordering = ["-created"]

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED
