"""The jobs page's rows: each live job's kind, link, status, queue, place in
its queue, share done and time left (jobs.estimates)."""
from __future__ import annotations

import time
from dataclasses import dataclass

from django.urls import reverse

from jobs.estimates import Estimate, estimate_left
from jobs.models import JobStatus
from training.models import TrainingRun
from training.policy import builtin_policy_dir
from training.policy.build_status import BUILDING, build_status
from training.runs.presenters import run_progress

from .job_selectors import LiveJob, jobs_live, renders_pending_count, task_queue


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


def done_and_total(live: LiveJob) -> tuple[float, float] | None:
    """Units done and in all, where the job's progress counts them."""
    progress = live.job.progress or {}
    if live.kind.model is TrainingRun:
        state = run_progress(live.job)
        return state["step"], state["max_steps"]
    for done, total in (("epoch", "max_epochs"), ("done", "total")):
        if isinstance(progress.get(done), (int, float)) and progress.get(total):
            return progress[done], progress[total]
    return None


def job_eta(live: LiveJob, counts: tuple[float, float] | None) -> str:
    job = live.job
    if job.status != JobStatus.RUNNING:
        return ""
    if live.kind.model is TrainingRun:  # its worker measures its steps' pace
        return Estimate((job.progress or {}).get("eta_s")).text()
    if counts is None or job.started is None:
        return Estimate(None).text()
    # The short jobs keep no history of their progress, only where they are
    # now: their pace since they started is all there is to go on.
    elapsed = time.time() - job.started.timestamp()
    return estimate_left([(0.0, 0.0), (elapsed, counts[0])], total=counts[1]).text()


def job_row(live: LiveJob) -> JobRow:
    counts = done_and_total(live)
    percent = round(100 * min(counts[0] / counts[1], 1.0)) if counts else None
    url = reverse(live.kind.url_name, args=[getattr(live.job, live.kind.url_arg)])
    return JobRow(kind=live.kind.label, name=str(live.job), url=url,
                  status=live.job.get_status_display(), queue=live.queue,
                  position=live.position, percent=percent, eta=job_eta(live, counts))


def build_row() -> JobRow | None:
    """The built-in policy's build while it runs: a long job on the train
    queue with no row of its own (training.policy.build_status)."""
    status = build_status(builtin_policy_dir())
    if status is None or status.state != BUILDING:
        return None
    return JobRow(kind="Policy build", name="the built-in policy", url=reverse("training:runs"),
                  status="Running", queue=task_queue("training.tasks.policy_bootstrap_task"),
                  position=None, percent=round(status.done * 100),
                  eta=Estimate(status.eta_s).text())


def rows_live() -> list[JobRow]:
    build = build_row()
    return ([build] if build else []) + [job_row(live) for live in jobs_live()]


def jobs_running() -> list[JobRow]:
    """The running jobs, for the home page's one line each."""
    return [row for row in rows_live() if row.position is None]


def jobs_page() -> dict:
    rows = rows_live()
    pending = renders_pending_count()
    return {"rows": rows, "renders_pending": pending, "live": bool(rows) or pending > 0}
