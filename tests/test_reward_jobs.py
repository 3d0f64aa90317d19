"""Reward-model jobs end to end: queued on commit, trained by a real Celery
worker on the short queue, cancelled at the next epoch and recorded so; and
the job states around that (a queued job cancelled at once, a failure
recorded with its reason, a redelivered message changing nothing)."""
from __future__ import annotations

import pytest

from jobs.registry import job_kind
from jobs.runner import job_run_here
from jobs.services import CancelOutcome
from pool.models import RewardModel
from pool.reward import services
from tests.reward_data import SMALL_CONFIG, toy_graded_renders
from tests.workers import wait_for


def status(job: RewardModel) -> str:
    return RewardModel.objects.values_list("status", flat=True).get(pk=job.pk)


class TestOnTheShortWorker:
    def test_a_queued_job_is_trained_by_the_worker(self, short_worker):
        toy_graded_renders(45)
        job = services.reward_model_create(config=SMALL_CONFIG)  # queued on commit
        wait_for(lambda: status(job) not in ("queued", "running"), timeout=180,
                 worker=short_worker)
        job.refresh_from_db()
        assert job.status == "done", job.error
        assert job.weights and job.metrics["heldout_pairwise_accuracy"] is not None

    def test_a_cancelled_job_stops_at_the_next_epoch_and_is_recorded_cancelled(
            self, short_worker):
        toy_graded_renders(45)
        endless = {**SMALL_CONFIG, "max_epochs": 100_000, "patience": 0}
        job = services.reward_model_create(config=endless)

        def training() -> bool:
            progress = RewardModel.objects.get(pk=job.pk).progress
            return progress.get("stage") == "training" and progress["epoch"] >= 2

        wait_for(training, timeout=180, worker=short_worker)
        cancel = services.reward_model_cancel(reward_model=job)
        assert cancel.status == "running" and cancel.outcome == CancelOutcome.STOPPING
        assert cancel.message == f"v{job.version} will stop at its next epoch."
        wait_for(lambda: status(job) == "cancelled", timeout=60, worker=short_worker)
        job.refresh_from_db()
        assert job.cancel_requested and job.finished is not None
        assert 2 <= job.progress["epochs_run"] < 100_000
        assert not job.weights and not job.metrics


@pytest.mark.django_db
class TestJobStates:
    def test_a_queued_job_is_cancelled_at_once_and_never_trains(self, media):
        toy_graded_renders(45)
        job = services.reward_model_create(config=SMALL_CONFIG, queue=False)
        cancel = services.reward_model_cancel(reward_model=job)
        assert cancel.status == "cancelled" and cancel.outcome == CancelOutcome.STOPPED
        after = job_run_here(kind="reward_model", pk=job.pk)
        assert after.status == "cancelled" and after.started is None and not after.weights

    def test_training_without_grades_fails_and_says_why(self, media):
        job = services.reward_model_create(config=SMALL_CONFIG, queue=False)
        failed = job_run_here(kind="reward_model", pk=job.pk)
        assert failed.status == "failed"
        assert "fewer than two distinct grades" in failed.error

    def test_running_a_finished_job_again_changes_nothing(self, media):
        toy_graded_renders(45)
        job = services.reward_model_create(config={**SMALL_CONFIG, "max_epochs": 2},
                                           queue=False)
        done = job_run_here(kind="reward_model", pk=job.pk)
        again = job_run_here(kind="reward_model", pk=job.pk)
        assert again.status == "done" and again.weights.name == done.weights.name
        assert again.finished == done.finished

    def test_a_bad_setting_is_refused_when_the_job_is_made(self):
        with pytest.raises(ValueError, match="image_size"):
            services.reward_model_create(config={"image_size": 4}, queue=False)
        assert not RewardModel.objects.exists()

    def test_jobs_queue_after_commit_on_the_short_queue(self, django_capture_on_commit_callbacks):
        with django_capture_on_commit_callbacks() as callbacks:
            services.reward_model_create(config=SMALL_CONFIG)
        assert len(callbacks) == 1
        assert job_kind("reward_model").queue == "short"
