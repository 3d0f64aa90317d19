"""One runner for every kind of job (jobs.registry, jobs.lease, jobs.runner,
jobs.tasks): every job model is a registered kind; two claims of any job at
once give it to one worker; a delivery that finds its job held by a live
worker leaves it alone (the optimiser's candidates stay), and takes it over
once that worker has gone silent; and the rules the six copies of the job
body disagreed on, now one: how an ending keeps progress, when a job ends
cancelled, how a failure reads, and that a worker taken over writes nothing."""
from __future__ import annotations

import dataclasses
import threading
from datetime import timedelta

import pytest
from celery.exceptions import SoftTimeLimitExceeded
from celery.result import AsyncResult
from django.apps import apps
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from jobs.lease import JobSuperseded, Lease
from jobs.models import Job, JobStatus
from jobs.registry import JobKind, job_kind, job_kind_register, job_kind_unregister, job_kinds
from jobs.runner import Ending, JobStopped, job_run
from jobs.services import CancelOutcome, job_cancel
from jobs.tasks import HELD_RETRIES, job_task
from pool.models import RewardModel
from sketches.models import ImportJob
from tests.job_rows import job_row
from tests.postgresql import on_postgresql
from tests.workers import run_worker, wait_for, worker_kill
from training.models import PromptCandidate

KINDS = [kind.name for kind in job_kinds()]


class TestTheRegistry:
    def test_every_job_model_is_one_registered_kind(self):
        models = {m for m in apps.get_models() if issubclass(m, Job)}
        assert models == {kind.model for kind in job_kinds()}
        assert len(KINDS) == len(set(KINDS)) == len(models)

    @pytest.mark.parametrize("name", KINDS)
    def test_each_kind_names_a_body_a_queue_and_a_page(self, name):
        kind = job_kind(name)
        assert callable(kind.run_body())
        assert kind.queue in {"default", "short", "train"}
        assert reverse(kind.url_name, args=[1])

    @pytest.mark.parametrize("name", KINDS)
    def test_each_kind_is_sent_under_a_soft_limit_before_its_hard_one(self, name):
        limits = job_kind(name).task_limits()
        assert 0 < limits["soft_time_limit"] < limits["time_limit"]

    def test_a_kind_without_a_positive_time_limit_is_refused(self):
        with pytest.raises(ImproperlyConfigured, match="time_limit_s must be positive"):
            job_kind_register(dataclasses.replace(job_kind("import"), time_limit_s=0))

    def test_a_second_kind_for_the_same_model_is_refused(self):
        with pytest.raises(ImproperlyConfigured, match="clashes"):
            job_kind_register(dataclasses.replace(job_kind("import"), name="another"))
        with pytest.raises(LookupError, match="no job kind 'nothing'"):
            job_kind("nothing")


@pytest.mark.django_db
class TestCancelSaysWhatTheKindStopsAt:
    @pytest.mark.parametrize("name", [k for k in KINDS if job_kind(k).stopping])
    def test_a_running_job_is_asked_to_stop_at_its_kinds_boundary(self, name):
        kind = job_kind(name)
        row = job_row(kind, status=JobStatus.RUNNING)
        cancel = job_cancel(job=row)
        assert cancel.outcome == CancelOutcome.STOPPING
        assert cancel.message.endswith(f"{kind.stopping}.")

    def test_an_import_offers_no_cancel(self):
        with pytest.raises(ValueError, match="offers no cancel"):
            job_cancel(job=job_row(job_kind("import"), status=JobStatus.RUNNING))


def claim_at_once(kind: JobKind, pk: int, workers: int = 2) -> list[bool]:
    """`workers` threads, each with its own connection, claiming job `pk`
    at the same moment."""
    barrier, won = threading.Barrier(workers), [None] * workers

    def claim(i: int) -> None:
        try:
            barrier.wait()
            won[i] = Lease(model=kind.model, pk=pk, token=f"t{i}").claim(stale_s=60)
        finally:
            connection.close()

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return won


@pytest.mark.django_db(transaction=True)
class TestTwoClaimsOnPostgres:
    def test_two_workers_claiming_one_job_at_once_give_it_to_one(self, request):
        """Every kind in one test: off PostgreSQL it reruns there, once."""
        if not on_postgresql(request):  # the race is PostgreSQL's: run there
            return
        for name in KINDS:
            kind = job_kind(name)
            for _ in range(3):
                row = job_row(kind)
                won = claim_at_once(kind, row.pk)
                assert won.count(True) == 1, name
                row.refresh_from_db()
                assert row.status == JobStatus.RUNNING and row.worker == f"t{won.index(True)}"


@pytest.mark.django_db
class TestADeliveryOfAHeldJob:
    @pytest.mark.parametrize("name", KINDS)
    def test_leaves_it_to_the_live_worker(self, name):
        kind = job_kind(name)
        beat = timezone.now()
        row = job_row(kind, status=JobStatus.RUNNING, worker="alive", heartbeat=beat)
        outcome = job_run(kind=kind, pk=row.pk)
        assert outcome.status == JobStatus.RUNNING
        assert 0 < outcome.held_for_s <= kind.stale_s()
        after = kind.model.objects.get(pk=row.pk)
        assert (after.worker, after.heartbeat, after.finished) == ("alive", beat, None)

    def test_never_deletes_the_candidates_a_live_optimisation_stores(self):
        row = job_row(job_kind("prompt_optimisation"), status=JobStatus.RUNNING,
                      worker="alive", heartbeat=timezone.now())
        PromptCandidate.objects.create(optimisation=row, index=0, text="seed", iteration=0,
                                       metric_calls=3, results=[], mean_score=0.5)
        job_run(kind="prompt_optimisation", pk=row.pk)
        assert PromptCandidate.objects.filter(optimisation=row).count() == 1

    def test_comes_back_a_bounded_number_of_times_then_leaves_it(self):
        """A delivery that has come back HELD_RETRIES times returns the status
        instead of asking Celery for another retry."""
        row = job_row(job_kind("import"), status=JobStatus.RUNNING, worker="alive",
                      heartbeat=timezone.now())
        job_task.push_request(retries=HELD_RETRIES, is_eager=False, hostname="second")
        try:
            assert job_task.run("import", row.pk) == JobStatus.RUNNING
        finally:
            job_task.pop_request()
        assert ImportJob.objects.get(pk=row.pk).worker == "alive"

    def test_takes_over_a_job_whose_worker_went_silent(self, settings):
        settings.PAINTRL_JOB_STALE_S = 60
        row = job_row(job_kind("import"), status=JobStatus.RUNNING, worker="gone",
                      heartbeat=timezone.now() - timedelta(seconds=61))
        job_run(kind="import", pk=row.pk)  # its archive is missing: it fails, but ran
        after = ImportJob.objects.get(pk=row.pk)
        assert after.status == JobStatus.FAILED and after.worker != "gone"


@pytest.fixture
def body():
    """Give a kind (the reward model's by default) another body for one test
    (`body(fn)`), then its own back."""
    swapped: list[JobKind] = []

    def swap(fn, kind: str = "reward_model", **changes) -> JobKind:
        own = job_kind(kind)
        swapped.append(own)
        job_kind_unregister(own.name)
        return job_kind_register(dataclasses.replace(
            own, body=f"{__name__}.{fn.__name__}", **changes))

    yield swap
    for own in swapped:
        job_kind_unregister(own.name)
        job_kind_register(own)


def cancel_then_finish(running) -> Ending:
    RewardModel.objects.filter(pk=running.pk).update(cancel_requested=True)
    return Ending(extra={"epochs_run": 4})


def stop_at_a_boundary(running) -> Ending:
    running.lease.write(force=True, progress={"stage": "training", "epoch": 3})
    RewardModel.objects.filter(pk=running.pk).update(cancel_requested=True)
    running.stop_if_asked(epochs_run=3)
    raise AssertionError("not stopped")


def report_faster_than_the_throttle(running) -> Ending:
    for epoch in range(1, 6):  # the writes after the first are held back
        running.lease.write(progress={"stage": "training", "epoch": epoch})
    return Ending()


def fail_unexpectedly(running) -> Ending:
    running.lease.write(force=True, progress={"stage": "training", "epoch": 2})
    raise KeyError("weights")


def break_an_import(running) -> Ending:
    raise KeyError("manifest")


def taken_over(running) -> Ending:
    RewardModel.objects.filter(pk=running.pk).update(worker="another worker")
    running.lease.write(force=True, progress={"stage": "should never be written"})
    raise AssertionError("a superseded write went through")


def run_past_the_time_limit(running) -> Ending:
    raise SoftTimeLimitExceeded()


def raise_stopped(running) -> Ending:
    raise JobStopped(extra={"epochs_run": 0})


ENDED: list[int] = []


def record_end(job) -> None:
    ENDED.append(job.pk)


@pytest.mark.django_db
class TestOneRuleWhereTheCopiesDisagreed:
    """Each rule here was written differently by at least two of the six
    bodies before they became one runner."""

    def reward_model(self) -> RewardModel:
        return job_row(job_kind("reward_model"))

    def test_a_body_that_finished_its_work_is_done_even_if_a_cancel_came_after(self, body):
        # The calibration ended done, the optimiser cancelled, each by its own check.
        body(cancel_then_finish)
        row = self.reward_model()
        assert job_run(kind="reward_model", pk=row.pk).status == JobStatus.DONE
        assert RewardModel.objects.get(pk=row.pk).progress == {"stage": "done",
                                                               "epochs_run": 4}

    def test_a_body_that_stopped_is_cancelled_and_keeps_where_it_got_to(self, body):
        # The replay and the reward model wrote a progress of their own; the run kept its.
        body(stop_at_a_boundary)
        row = self.reward_model()
        assert job_run(kind="reward_model", pk=row.pk).status == JobStatus.CANCELLED
        assert RewardModel.objects.get(pk=row.pk).progress == {
            "stage": "cancelled", "epoch": 3, "epochs_run": 3}

    def test_an_ending_keeps_the_last_progress_even_one_the_throttle_held_back(self, body):
        # Only the reward model kept its last report (by hand); the others lost it.
        body(report_faster_than_the_throttle)
        row = self.reward_model()
        job_run(kind="reward_model", pk=row.pk)
        assert RewardModel.objects.get(pk=row.pk).progress == {"stage": "done", "epoch": 5}

    def test_a_failure_reads_type_and_message_and_keeps_the_progress(self, body):
        # The import prefixed "internal error: "; the replay lost its progress stage.
        body(fail_unexpectedly)
        row = self.reward_model()
        assert job_run(kind="reward_model", pk=row.pk).status == JobStatus.FAILED
        failed = RewardModel.objects.get(pk=row.pk)
        assert failed.error == "KeyError: 'weights'"
        assert failed.progress == {"stage": "failed", "epoch": 2}

    def test_an_import_that_breaks_reads_like_every_other_kind(self, body):
        # Its bad input is its message alone (ImportInputError: a missing archive).
        row = job_row(job_kind("import"))
        job_run(kind="import", pk=row.pk)  # its archive was never stored
        assert ImportJob.objects.get(pk=row.pk).error.endswith(".zip does not exist")
        body(break_an_import, kind="import")
        row = job_row(job_kind("import"))
        job_run(kind="import", pk=row.pk)
        assert ImportJob.objects.get(pk=row.pk).error == "KeyError: 'manifest'"

    def test_a_worker_taken_over_writes_nothing_more(self, body):
        # Only the run checked its claim on every write.
        body(taken_over, after=f"{__name__}.record_end")
        row = self.reward_model()
        ENDED.clear()
        assert job_run(kind="reward_model", pk=row.pk).status == JobStatus.RUNNING
        after = RewardModel.objects.get(pk=row.pk)
        assert after.worker == "another worker" and after.progress == {
            "stage": "loading grades"}
        assert ENDED == []  # nor does the kind's `after` run for it

    def test_a_body_past_its_time_limit_fails_saying_so(self, body):
        body(run_past_the_time_limit, time_limit_s=7200)
        row = self.reward_model()
        assert job_run(kind="reward_model", pk=row.pk).status == JobStatus.FAILED
        assert RewardModel.objects.get(pk=row.pk).error.startswith(
            "ran past the reward model time limit (2 h)")

    def test_the_kinds_after_runs_once_the_job_has_ended(self, body):
        body(raise_stopped, after=f"{__name__}.record_end")
        row = self.reward_model()
        ENDED.clear()
        job_run(kind="reward_model", pk=row.pk)
        assert ENDED == [row.pk]


class TestLease:
    @pytest.mark.django_db
    def test_writes_are_refused_once_the_job_is_another_workers(self):
        row = job_row(job_kind("reward_model"))
        lease = Lease(model=RewardModel, pk=row.pk, token="mine")
        assert lease.claim(stale_s=60)
        lease.beat(force=True, progress={"stage": "one"})
        RewardModel.objects.filter(pk=row.pk).update(worker="theirs")
        with pytest.raises(JobSuperseded):
            lease.beat(force=True)
        assert not lease.end(status=JobStatus.DONE)
        assert RewardModel.objects.get(pk=row.pk).status == JobStatus.RUNNING


# --- a real worker, two deliveries --------------------------------------------------------

@pytest.fixture
def blocking_worker(transactional_db, tmp_path, settings):
    """A default-queue worker with two threads, whose import body holds its
    job until released (tests/blocking_jobs.py); leases go stale after 3 s."""
    yield from run_worker("default", tmp_path, settings, pool="threads", concurrency=2,
                          include="tests.blocking_jobs",
                          env={"PAINTRL_JOB_STALE_S": "3"})


def claims(folder) -> list[str]:
    path = folder / "claims"
    return path.read_text().split() if path.exists() else []


@pytest.mark.worker
class TestTwoDeliveriesOnARealWorker:
    def test_a_second_delivery_while_the_first_runs_waits_and_never_runs_it_again(
            self, blocking_worker, tmp_path):
        row = job_row(job_kind("import"))
        options = {"dir": str(tmp_path)}
        first = job_task.apply_async(("import", row.pk, options), queue="default")
        wait_for(lambda: len(claims(tmp_path)) == 1, timeout=60, worker=blocking_worker)
        second = job_task.apply_async(("import", row.pk, options), queue="default")
        wait_for(lambda: AsyncResult(second.id).state == "RETRY", timeout=60,
                 worker=blocking_worker)
        assert len(claims(tmp_path)) == 1  # the held job was not run again
        (tmp_path / "release").touch()
        assert first.get(timeout=60) == JobStatus.DONE
        assert second.get(timeout=60) == JobStatus.DONE  # came back: found it finished
        assert len(claims(tmp_path)) == 1
        assert ImportJob.objects.get(pk=row.pk).worker == claims(tmp_path)[0]

    def test_a_job_whose_worker_was_killed_is_taken_over_by_the_next_delivery(
            self, tmp_path, settings, transactional_db):
        row = job_row(job_kind("import"))
        options = {"dir": str(tmp_path)}
        workers = []

        def start():
            generator = run_worker("default", tmp_path, settings, pool="threads",
                                   concurrency=2, include="tests.blocking_jobs",
                                   env={"PAINTRL_JOB_STALE_S": "3"})
            workers.append(generator)
            return next(generator)

        try:
            doomed = start()
            job_task.apply_async(("import", row.pk, options), queue="default")
            wait_for(lambda: len(claims(tmp_path)) == 1, timeout=60, worker=doomed)
            worker_kill(doomed)
            (tmp_path / "release").touch()
            survivor = start()
            # What the broker sends again once the message's visibility lapses.
            again = job_task.apply_async(("import", row.pk, options), queue="default")
            assert again.get(timeout=90) == JobStatus.DONE
            first, second = claims(tmp_path)
            assert first != second and ImportJob.objects.get(pk=row.pk).worker == second
            assert survivor.poll() is None
        finally:
            for generator in workers:
                next(generator, None)
