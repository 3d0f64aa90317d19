"""Long and short jobs on their own queues: a reward model trains while a
long task holds the train worker, and every routed queue has a worker in the
Procfile (the one `make demo` starts)."""
from __future__ import annotations

import re

import pytest
from django.conf import settings as django_settings

from jobs.registry import job_kind, job_kinds
from paintrl_site.celery import app as celery_app
from pool.models import RewardModel
from pool.reward import services
from tests.blocking_tasks import block_task
from tests.reward_data import SMALL_CONFIG, toy_graded_renders
from tests.train_worker import run_short_worker, run_train_worker
from tests.workers import ROOT, wait_for

LONG_JOBS = ["run", "prompt_optimisation", "calibration", "policy_build"]
SHORT_TASKS = ["pool.tasks.score_renders_task", "training.tasks.judge_agreement_task"]
SHORT_JOBS = ["reward_model", "replay"]


def queue_of(task_name: str) -> str:
    return celery_app.amqp.router.route({}, task_name)["queue"].name


class TestRoutes:
    def test_long_jobs_go_to_the_train_queue(self):
        assert {job_kind(name).queue for name in LONG_JOBS} == {"train"}

    def test_short_jobs_go_to_a_queue_of_their_own(self):
        assert {queue_of(name) for name in SHORT_TASKS} == {"short"}
        assert {job_kind(name).queue for name in SHORT_JOBS} == {"short"}

    def test_every_task_of_ours_has_a_time_limit(self):
        """Each task's decorator says how long one delivery may run, its
        reason beside it; the job task takes its kind's limits with each
        message instead (jobs.dispatch)."""
        celery_app.loader.import_default_modules()
        ours = {name: task for name, task in celery_app.tasks.items()
                if name.split(".")[0] in {"sketches", "rating", "pool", "training", "api"}}
        assert "sketches.tasks.render_task" in ours
        for name, task in ours.items():
            assert task.soft_time_limit and task.time_limit, name
            assert task.soft_time_limit < task.time_limit, name

    def test_every_routed_queue_has_a_worker_in_the_procfile(self):
        procfile = (ROOT / "Procfile").read_text()
        served = set(re.findall(r"-Q (\w+)", procfile))
        routed = {route["queue"] for route in django_settings.CELERY_TASK_ROUTES.values()}
        kinds = {kind.queue for kind in job_kinds()}
        assert routed | kinds | {django_settings.CELERY_TASK_DEFAULT_QUEUE} <= served


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_a_short_job_finishes_while_a_long_task_holds_the_train_worker(media, tmp_path, settings):
    long_worker = run_train_worker(media, settings, include="tests.blocking_tasks")
    train = next(long_worker)
    short_worker = run_short_worker(media, settings)
    short = next(short_worker)
    started, release = tmp_path / "started", tmp_path / "release"
    try:
        block_task.apply_async((str(started), str(release)), queue="train")
        wait_for(started.exists, timeout=60, worker=train)
        toy_graded_renders(45)
        job = services.reward_model_create(config=SMALL_CONFIG)  # queued on commit
        wait_for(lambda: RewardModel.objects.get(pk=job.pk).is_finished, timeout=120,
                 worker=short)
        job.refresh_from_db()
        assert job.status == "done", job.error
        assert not release.exists()  # the long task was holding its worker all along
    finally:
        release.touch()
        for worker in (short_worker, long_worker):
            next(worker, None)
