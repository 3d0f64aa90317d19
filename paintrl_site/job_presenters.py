"""The jobs page's rows: each live job's kind, link, status, queue, place in
its queue, share done and time left (each kind reads its own progress:
JobKind.progress_of; jobs.estimates); and the open external runs, which are
served, not queued: their trainers run elsewhere and post batches."""
from __future__ import annotations

import time
from dataclasses import dataclass

from django.urls import reverse

from jobs.estimates import Estimate, estimate_left
from jobs.models import JobStatus
from jobs.registry import JobProgress
from training.external.selectors import external_runs_open

from .job_selectors import LiveJob, jobs_live, renders_pending_count


@dataclass(frozen=True)
class JobRow:
    kind: str
    name: str
    url: str
    status: str
    queue: str
    position: int | None
    percent: int | None
    eta: str


def job_eta(job, progress: JobProgress) -> str:
    if job.status != JobStatus.RUNNING:
        return ""
    if progress.paced:  # its worker measures its own pace
        return Estimate(progress.eta_s).text()
    if progress.total is None or job.started is None:
        return Estimate(None).text()
    # The other jobs keep no history of their progress, only where they are
    # now: their pace since they started is all there is to go on.
    elapsed = time.time() - job.started.timestamp()
    return estimate_left([(0.0, 0.0), (elapsed, progress.done)], total=progress.total).text()


def job_row(live: LiveJob) -> JobRow:
    progress = live.kind.progress_of(live.job)
    percent = (round(100 * min(progress.done / progress.total, 1.0))
               if progress.total else None)
    url = reverse(live.kind.url_name, args=[getattr(live.job, live.kind.url_arg)])
    return JobRow(kind=live.kind.label, name=str(live.job), url=url,
                  status=live.job.get_status_display(), queue=live.queue,
                  position=live.position, percent=percent, eta=job_eta(live.job, progress))


def rows_live() -> list[JobRow]:
    return [job_row(live) for live in jobs_live()]


def jobs_running() -> list[JobRow]:
    """The running jobs, for the home page's one line each."""
    return [row for row in rows_live() if row.position is None]


def jobs_page() -> dict:
    rows = rows_live()
    pending = renders_pending_count()
    external = external_runs_open()
    return {"rows": rows, "renders_pending": pending, "external_runs": external,
            "live": bool(rows) or pending > 0 or any(r.scoring for r in external)}
