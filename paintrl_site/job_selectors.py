"""Every queued and running job, across the kinds of job (imports, reward
models, replays, training runs, prompt optimisations), with the queue each
waits on and its place in it. The project package reads every app; jobs/ sits below them all
and cannot."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Model

from jobs.models import LIVE, Job, JobStatus
from paintrl_site.celery import app as celery_app
from pool.models import RewardModel
from sketches import selectors as sketch_selectors
from sketches.models import ImportJob
from training.models import PromptOptimisation, Replay, TrainingRun


@dataclass(frozen=True)
class JobKind:
    label: str
    model: type[Job]
    task: str  # the Celery task that runs it: its route says the queue
    url_name: str  # its own page, reversed with its pk


KINDS = (
    JobKind("Import", ImportJob, "sketches.tasks.import_job_task", "sketches:import_job"),
    JobKind("Reward model", RewardModel, "pool.tasks.train_reward_model_task",
            "admin:pool_rewardmodel_change"),
    JobKind("Replay", Replay, "training.tasks.replay_task", "training:replay"),
    JobKind("Training run", TrainingRun, "training.tasks.run_task", "training:run"),
    JobKind("Prompt optimisation", PromptOptimisation, "training.tasks.optimisation_task",
            "admin:training_promptoptimisation_change"),
)


@dataclass(frozen=True)
class LiveJob:
    kind: JobKind
    job: Model
    queue: str
    position: int | None  # 1 = the next its queue's worker takes; None when running


def task_queue(task: str) -> str:
    """The queue settings.CELERY_TASK_ROUTES sends `task` to."""
    return celery_app.amqp.router.route({}, task)["queue"].name


def jobs_live() -> list[LiveJob]:
    """Running jobs first, then the queued ones, each queue's oldest first (the
    order its worker takes them: one task at a time, first in, first out)."""
    found = []
    for kind in KINDS:
        queue = task_queue(kind.task)
        found += [(kind, job, queue) for job in kind.model.objects.filter(status__in=LIVE)]
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
