"""Reads about a folder's policy builds, for the pages that wait on one (the
runs page, the home page) and for a launch that finds no policy."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.utils import timezone

from jobs.estimates import MIN_SECONDS
from jobs.models import LIVE, JobStatus
from jobs.registry import JobProgress, job_kind_of

from ..models import PolicyBuild
from .services import build_folder

BUILDING, STOPPED = "building", "stopped"


@dataclass(frozen=True)
class BuildState:
    """A build as the pages say it: `state` is building (queued or running),
    done, failed, cancelled, or stopped (running, but its worker has been
    silent past its kind's stale time: its process died); `message` its
    phase or why it ended; `done` SFT's share; `eta_s` its time left."""

    build: PolicyBuild
    state: str
    message: str
    done: float
    eta_s: float | None

    @property
    def host(self) -> str:
        return self.build.worker.split(":")[0] if self.build.worker else "the train worker"


def policy_build_latest(out: str | Path) -> BuildState | None:
    """The newest build of folder `out` (None: never built here by a build row)."""
    build = PolicyBuild.objects.filter(out=build_folder(out)).order_by("-created", "-pk").first()
    if build is None:
        return None
    progress = build.progress or {}
    message = build.error or progress.get("message") or ""
    state = BUILDING if build.status in LIVE else build.status
    stale = timezone.now() - timedelta(seconds=job_kind_of(PolicyBuild).stale_s())
    if build.status == JobStatus.RUNNING and build.heartbeat and build.heartbeat < stale:
        state, message = STOPPED, f"its process ended at {message or 'the start'}"
    shown = policy_build_progress(build)
    return BuildState(build=build, state=state, message=message, done=shown.done or 0.0,
                      eta_s=shown.eta_s)


def policy_build_progress(build: PolicyBuild) -> JobProgress:
    """SFT's share done, and the time left at SFT's own pace (JobKind.progress):
    the corpus and tokenizer before it take minutes that say nothing about
    SFT's pace (measured from the build's start, the time left was several
    times too long: docs/benchmarks.md). None before MIN_SECONDS of SFT,
    whose first steps warm up."""
    progress = build.progress or {}
    done, elapsed = progress.get("done") or 0.0, progress.get("sft_elapsed_s") or 0.0
    eta = (elapsed * (1 - done) / done
           if 0 < done < 1 and elapsed >= MIN_SECONDS else None)
    return JobProgress(done=done, total=1.0, eta_s=eta, paced=True)
