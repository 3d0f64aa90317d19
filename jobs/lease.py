"""A worker's hold on a job: the claim, and every write after it.

A claim is a conditional update (jobs.services.job_claim): a queued job, or
a running one whose heartbeat is older than its kind's stale_s (its worker
died). Two deliveries of one task message, or two workers, therefore never
run one job at once: the second finds it held and leaves it. Every later
write (progress, heartbeat, the ending) is conditional on this worker's
token still being the job's `worker`: a worker that was taken over (it was
silent too long, then woke) finds its writes refused (JobSuperseded) and
stops without writing anything."""
from __future__ import annotations

import time
from datetime import timedelta

from django.core.exceptions import FieldDoesNotExist
from django.db.models import Q
from django.utils import timezone

from .models import Job, JobStatus
from .selectors import job_cancel_requested
from .services import PROGRESS_EVERY_S, job_claim, job_end, job_finish

# A heartbeat with nothing else to write goes at most this often: a few
# writes a minute keep a lease fresh whatever the stale time.
HEARTBEAT_EVERY_S = 10.0


class JobSuperseded(RuntimeError):
    """Another worker holds the job now: this one stops and writes nothing."""


class Lease:
    """This worker's claim on one job (module docstring). `token` names the
    worker; `write` is progress at most every `every_s` (ProgressWriter's
    contract), `beat` a heartbeat with any fields, unthrottled when it has
    fields; both refresh the heartbeat and raise `superseded` (a
    JobSuperseded) where the job is no longer this worker's."""

    superseded: type[JobSuperseded] = JobSuperseded

    def __init__(self, *, model: type[Job], pk: int, token: str,
                 every_s: float = PROGRESS_EVERY_S):
        self.model, self.pk, self.token, self.every_s = model, pk, token, every_s
        self._beat = self._write = float("-inf")
        self._held_back: dict = {}  # what `write` skipped since its last write

    def claim(self, *, stale_s: float, **fields) -> bool:
        """Take the job (module docstring); False where it is finished or
        held by a live worker."""
        now = timezone.now()
        stale = Q(heartbeat__lt=now - timedelta(seconds=stale_s)) | Q(heartbeat__isnull=True)
        claimable = Q(status=JobStatus.QUEUED) | (Q(status=JobStatus.RUNNING) & stale)
        claimed = job_claim(model=self.model, pk=self.pk, claimable=claimable,
                            worker=self.token, heartbeat=now, **fields)
        if claimed:
            self._beat = time.monotonic()
        return claimed

    def held_for_s(self, *, stale_s: float) -> float | None:
        """How long until the job's lease goes stale where another worker
        holds it (0: stale already); None where it is not running."""
        row = self.model.objects.filter(pk=self.pk, status=JobStatus.RUNNING) \
            .values("heartbeat").first()
        if row is None:
            return None
        if row["heartbeat"] is None:
            return 0.0
        return max(0.0, stale_s - (timezone.now() - row["heartbeat"]).total_seconds())

    def _owned(self):
        return self.model.objects.filter(pk=self.pk, status=JobStatus.RUNNING,
                                         worker=self.token)

    def beat(self, *, force: bool = False, **fields) -> None:
        """Refresh the heartbeat (at most every HEARTBEAT_EVERY_S unless
        forced or given `fields`, which are written with it)."""
        now = time.monotonic()
        if not force and not fields and now - self._beat < HEARTBEAT_EVERY_S:
            return
        # A queryset update, so a cancel flag set meanwhile is not overwritten.
        if not self._owned().update(heartbeat=timezone.now(), **fields):
            raise self.superseded(f"{self.model.__name__} {self.pk} is no longer held by "
                                f"{self.token}")
        self._beat = now

    def write(self, *, force: bool = False, **fields) -> bool:
        """Write `fields` (progress, counters) unless the last write was more
        recent than `every_s`; True when written."""
        now = time.monotonic()
        if not force and now - self._write < self.every_s:
            self._held_back.update(fields)
            return False
        self.beat(force=True, **fields)
        self._write, self._held_back = now, {}
        return True

    def cancel_requested(self) -> bool:
        """Whether someone asked the job to stop; a read that also keeps the
        lease fresh, so a body that checks often and writes rarely stays held."""
        self.beat()
        return job_cancel_requested(model=self.model, pk=self.pk)

    def end(self, *, status: str, extra: dict | None = None, **fields) -> bool:
        """End the job as `status` if this worker still holds it; a job with
        progress keeps it, with `extra` merged in and its stage the ending.
        What `write` held back is written with it: the ending shows the last
        progress the body reported."""
        only, now = Q(worker=self.token), timezone.now()
        fields = {**self._held_back, **fields}
        if "progress" in fields:  # held back: newer than the row's
            progress = {**fields.pop("progress"), **(extra or {}), "stage": status}
            return job_finish(model=self.model, pk=self.pk, status=status, only=only,
                              heartbeat=now, progress=progress, **fields)
        if has_progress(self.model):
            return job_end(model=self.model, pk=self.pk, status=status, extra=extra, only=only,
                           heartbeat=now, **fields)
        return job_finish(model=self.model, pk=self.pk, status=status, only=only, heartbeat=now,
                          **fields)


def has_progress(model: type[Job]) -> bool:
    """Whether the kind keeps Job's progress (an import drops it: ImportJob)."""
    try:
        model._meta.get_field("progress")
    except FieldDoesNotExist:
        return False
    return True
