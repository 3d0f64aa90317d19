"""The life every job shares (jobs.models.Job, jobs.services): claimed once,
finished once, cancelled by one contract, progress written at most every
PROGRESS_EVERY_S without undoing a cancel; and the four jobs built on it."""
from __future__ import annotations

import os
import pickle
import subprocess
import sys

import pytest

from jobs.lease import Lease
from jobs.models import FINISHED, Job, JobStatus
from jobs.selectors import job_cancel_requested
from jobs.services import (
    CancelOutcome,
    job_cancel,
    job_claim,
    job_finish,
)
from pool.models import RewardModel
from sketches.models import ImportJob
from training.models import Replay, TrainingRun

pytestmark = pytest.mark.django_db


def job(**fields) -> RewardModel:
    """A job with nothing behind it: a reward model's row is the simplest."""
    return RewardModel.objects.create(version=RewardModel.objects.count() + 1, **fields)


def fresh(row: RewardModel) -> RewardModel:
    return RewardModel.objects.get(pk=row.pk)


class TestClaim:
    def test_a_queued_job_is_claimed_once_and_keeps_its_first_start(self):
        row = job()
        assert job_claim(model=RewardModel, pk=row.pk, progress={"stage": "loading"})
        first = fresh(row)
        assert first.status == JobStatus.RUNNING and first.started is not None
        assert first.progress == {"stage": "loading"}
        # A worker that died left it running: another claims it, the start stays.
        assert job_claim(model=RewardModel, pk=row.pk)
        assert fresh(row).started == first.started

    @pytest.mark.parametrize("status", sorted(FINISHED))
    def test_a_finished_job_is_never_claimed(self, status):
        row = job(status=status)
        assert not job_claim(model=RewardModel, pk=row.pk)
        assert fresh(row).status == status and fresh(row).started is None

    def test_claimable_narrows_what_may_be_claimed(self):
        from django.db.models import Q

        row = job(status=JobStatus.RUNNING)
        assert not job_claim(model=RewardModel, pk=row.pk, claimable=Q(status=JobStatus.QUEUED))


class TestFinish:
    def test_only_a_running_job_is_finished_and_an_ending_is_never_overwritten(self):
        row = job()
        assert not job_finish(model=RewardModel, pk=row.pk, status=JobStatus.DONE)
        job_claim(model=RewardModel, pk=row.pk)
        assert job_finish(model=RewardModel, pk=row.pk, status=JobStatus.DONE, metrics={"a": 1})
        # A second worker on the same job fails later: the done it wrote stands.
        assert not job_finish(model=RewardModel, pk=row.pk, status=JobStatus.FAILED,
                              error="late")
        done = fresh(row)
        assert done.status == JobStatus.DONE and done.metrics == {"a": 1} and not done.error
        assert done.finished is not None and done.is_finished

    def test_an_ending_must_be_one(self):
        with pytest.raises(ValueError, match="not an ending"):
            job_finish(model=RewardModel, pk=job().pk, status=JobStatus.RUNNING)


class TestCancel:
    def test_a_queued_job_is_cancelled_at_once_and_its_progress_says_so(self):
        row = job(progress={"stage": "queued", "done": 0})
        cancel = job_cancel(job=row, stopping="will stop soon", name="the job")
        assert (cancel.outcome, cancel.status) == (CancelOutcome.STOPPED, JobStatus.CANCELLED)
        assert cancel.message == "the job cancelled before it started."
        after = fresh(row)
        assert after.status == JobStatus.CANCELLED and after.cancel_requested
        assert after.finished is not None and after.progress == {"stage": "cancelled", "done": 0}
        assert not job_claim(model=RewardModel, pk=row.pk)  # its task then does nothing

    def test_a_running_job_is_asked_to_stop_and_its_worker_reads_the_flag(self):
        row = job(status=JobStatus.RUNNING)
        assert not job_cancel_requested(model=RewardModel, pk=row.pk)
        cancel = job_cancel(job=row, stopping="will stop at its next epoch", name="v1")
        assert (cancel.outcome, cancel.status) == (CancelOutcome.STOPPING, JobStatus.RUNNING)
        assert cancel.message == "v1 will stop at its next epoch."
        assert job_cancel_requested(model=RewardModel, pk=row.pk)
        assert fresh(row).status == JobStatus.RUNNING and fresh(row).finished is None

    def test_a_finished_job_is_left_alone(self):
        row = job(status=JobStatus.DONE)
        cancel = job_cancel(job=row, stopping="will stop", name="v1")
        assert (cancel.outcome, cancel.status) == (CancelOutcome.NOT_LIVE, JobStatus.DONE)
        assert cancel.message == "v1 has already finished (done)."
        assert not fresh(row).cancel_requested

    def test_the_job_read_stale_still_gets_the_answer_of_its_row(self):
        row = job()
        RewardModel.objects.filter(pk=row.pk).update(status=JobStatus.FAILED)
        assert job_cancel(job=row, stopping="will stop").outcome == CancelOutcome.NOT_LIVE


def leased(row: RewardModel, every_s: float) -> Lease:
    lease = Lease(model=RewardModel, pk=row.pk, token="here", every_s=every_s)
    assert lease.claim(stale_s=60)
    return lease


class TestProgressWrites:
    def test_writes_are_throttled_unless_forced(self):
        row = job()
        writer = leased(row, every_s=3600)
        assert writer.write(progress={"n": 1})  # the first is always written
        assert not writer.write(progress={"n": 2})
        assert fresh(row).progress == {"n": 1}
        assert writer.write(force=True, progress={"n": 3})
        assert fresh(row).progress == {"n": 3}

    def test_a_progress_write_keeps_a_cancel_flag_set_meanwhile(self):
        row = job(status=JobStatus.RUNNING)
        writer = leased(row, every_s=0)
        job_cancel(job=RewardModel.objects.get(pk=row.pk), stopping="will stop")
        writer.write(progress={"epoch": 2})
        assert fresh(row).cancel_requested and fresh(row).progress == {"epoch": 2}


class TestTheJobs:
    @pytest.mark.parametrize("model", [ImportJob, RewardModel, Replay, TrainingRun])
    def test_every_job_has_the_shared_life(self, model):
        assert issubclass(model, Job)
        statuses = {value for value, _ in model.Status.choices}
        assert set(JobStatus.values) <= statuses
        names = {field.name for field in model._meta.fields}
        assert {"status", "error", "created", "started", "finished"} <= names

    def test_a_run_starts_as_a_draft_before_the_shared_states(self):
        assert TrainingRun.Status.values == ["draft", *JobStatus.values]
        assert TrainingRun._meta.get_field("status").default == TrainingRun.Status.DRAFT
        assert not TrainingRun(status=TrainingRun.Status.DRAFT).is_finished
        draft = pickle.loads(pickle.dumps(TrainingRun.Status.DRAFT))
        assert draft is TrainingRun.Status.DRAFT

    def test_an_import_has_no_cancel_and_counts_its_progress(self):
        names = {field.name for field in ImportJob._meta.fields}
        assert "cancel_requested" not in names and "progress" not in names
        assert {"done", "total"} <= names

    def test_the_web_process_imports_the_job_services_without_torch(self):
        """Only a worker's job body loads torch and TRL (reward job.TrainingJob.run,
        runs.job): the pages and the admin import the services for free."""
        code = ("import sys, django; django.setup(); "
                "import pool.reward.services, training.runs.services, training.lab.services, "
                "sketches.importing.jobs; "
                "print(sorted(m for m in ('torch', 'transformers', 'trl') if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             env={**os.environ,
                                  "DJANGO_SETTINGS_MODULE": "paintrl_site.settings"},
                             check=True, timeout=120)
        assert out.stdout.strip() == "[]", out.stderr
