"""Every queued and running job, across every registered kind of job
(jobs.registry: each app registers its own), with the queue each waits on
and its place in it."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Model

from jobs.models import LIVE, JobStatus
from jobs.registry import JobKind, job_kinds
from sketches import selectors as sketch_selectors


@dataclass(frozen=True)
class LiveJob:
    kind: JobKind
    job: Model
    queue: str
    position: int | None  # 1 = the next its queue's worker takes; None when running


def jobs_live() -> list[LiveJob]:
    """Running jobs first, then the queued ones, each queue's oldest first (the
    order its worker takes them: one task at a time, first in, first out)."""
    found = []
    for kind in job_kinds():
        found += [(kind, job, kind.queue) for job in kind.model.objects.filter(status__in=LIVE)]
    found.sort(key=lambda row: row[1].created)  # across kinds: one sort for all
    places: dict[str, int] = defaultdict(int)
    live = []
    for kind, job, queue in found:
        position = None
        if job.status == JobStatus.QUEUED:
            places[queue] += 1
            position = places[queue]
        live.append(LiveJob(kind, job, queue, position))
    live.sort(key=lambda row: row.position is not None)  # stable: running first
    return live


def renders_pending_count() -> int:
    return sketch_selectors.render_status_counts()["pending"]
