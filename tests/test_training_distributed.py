"""Multi-process runs (issue 16): a run with processes > 1 trains in the
processes `accelerate launch` starts (gloo on this machine's CPUs), watched
by the real Celery train worker that claimed it. Only the main process
renders and writes, so every step and rollout is stored once, at its place
in TRL's global batch, and the rewards TRL trains on are the totals stored;
a cancel stops every process after the same step and leaves none behind; a
launch that crashes fails the run with the end of its log.

The policy is tests/policy_data.py's; the settings are test_training_runs'
tiny ones, with a batch that splits across two processes."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
from pathlib import Path

import psutil
import pytest

from sketches.models import Sketch
from tests.run_data import (
    cancelled_at_a_boundary,
    fresh,
    make_run,
    steps_of,
    train_worker_start,
    worker_stop,
)
from tests.workers import wait_for
from training.models import Rollout, TrainingRun, TrainingStep
from training.policy import run_dir
from training.runs import services
from training.runs.engine import prompt_rows
from training.runs.processes import ProcessTree, running
from training.runs.supervisor import LOG_NAME, log_tail

Status = TrainingRun.Status
# Two prompts of two generations: each process generates one group a step.
TWO = {"processes": 2, "prompts_per_step": 2}


@pytest.fixture
def worker(media, transactional_db, settings):
    proc, generator = train_worker_start(media, settings)
    yield proc
    worker_stop(generator)


def training_processes(worker) -> list[psutil.Process]:
    """The processes the worker has started: the launcher, the ranks, their browsers."""
    return psutil.Process(worker.pid).children(recursive=True)


def ranks_of(processes: list[psutil.Process]) -> list[psutil.Process]:
    def is_rank(process):
        try:
            return "training.runs.rank_main" in process.cmdline() and \
                "accelerate.commands.launch" not in process.cmdline()
        except psutil.NoSuchProcess:
            return False

    return [process for process in processes if is_rank(process)]


@pytest.mark.worker
class TestTwoProcesses:
    def test_every_step_and_rollout_is_stored_once_in_the_global_order(
            self, worker, test_policy):
        run = services.run_launch(run=make_run(test_policy, max_steps=2, **TWO))
        wait_for(lambda: fresh(run).is_finished, timeout=900, worker=worker)
        run = fresh(run)
        assert run.status == Status.DONE, run.error
        assert (run_dir(run.pk) / "final" / "config.json").is_file()
        log = Path(run.progress["log"])
        assert log == run_dir(run.pk) / LOG_NAME
        text = log.read_text()
        assert "process 0 of 2" in text and "process 1 of 2" in text, text[-3000:]

        assert steps_of(run) == [1, 2]
        rollouts = list(Rollout.objects.filter(run=run).order_by("step", "group", "index"))
        assert [(r.step, r.group, r.index) for r in rollouts] == [
            (step, group, index) for step in (1, 2) for group in (0, 1) for index in (0, 1)]
        assert Sketch.objects.filter(origin=Sketch.Origin.ROLLOUT).count() == 8
        # Group g of step s is the prompt the seeded order gives it: process 0's
        # slice first (were the slices gathered out of rank order, the groups of
        # a step would swap prompts).
        rows = prompt_rows(run.launched_config["prompts"], "", steps=2, per_step=2, seed=0)
        assert [r.prompt for r in rollouts if r.index == 0] == [row["prompt_text"]
                                                               for row in rows]
        for step in TrainingStep.objects.filter(run=run):
            totals = [r.total for r in rollouts if r.step == step.step]
            assert None not in totals
            assert step.reward_mean == pytest.approx(statistics.fmean(totals))
            # TRL's own mean of the rewards it gathered from both processes: each
            # returned its own slice of the totals.
            assert step.metrics["reward"] == pytest.approx(statistics.fmean(totals), abs=1e-5)
            assert abs(sum(r.advantage for r in rollouts if r.step == step.step)) < 1e-6
        wait_for(lambda: not training_processes(worker), timeout=120, worker=worker)


@pytest.mark.worker
class TestCancel:
    def test_cancel_stops_every_process_after_the_same_step_and_leaves_none(
            self, worker, test_policy):
        run = services.run_launch(run=make_run(test_policy, max_steps=40, **TWO))
        wait_for(lambda: len(steps_of(run)) >= 1, timeout=900, worker=worker)
        started = training_processes(worker)
        assert len(ranks_of(started)) == 2, [p.cmdline() for p in started]

        assert "will stop at the end of step" in services.run_cancel(run=run).message
        wait_for(lambda: fresh(run).is_finished, timeout=300, worker=worker)
        run = fresh(run)
        done = cancelled_at_a_boundary(run, max_steps=40)
        # Both processes saved their state at the same step (their RNG files).
        assert {path.name for path in (run_dir(run.pk) / f"checkpoint-{done[-1]}").glob(
            "rng_state_*.pth")} == {"rng_state_0.pth", "rng_state_1.pth"}
        # None left running, and the worker has reaped its own child (the launcher).
        wait_for(lambda: not any(running(process) for process in started)
                 and not training_processes(worker), timeout=120, worker=worker)


    def test_a_hung_step_is_stopped_and_the_run_resumes_with_each_step_once(
            self, media, transactional_db, settings, test_policy):
        """The worker's own stop: a cancel asked while both processes hang (held
        by SIGSTOP: a step that never ends) waits conf.stale_s() (1 s here) for
        the step boundary, then the worker stops every process it started. The
        run ends cancelled with its last checkpoint, and a resume continues from
        it on two processes again."""
        proc, generator = train_worker_start(media, settings, PAINTRL_RUN_STALE_S="1")
        try:
            run = services.run_launch(run=make_run(test_policy, max_steps=4, save_steps=1,
                                                   **TWO))
            wait_for(lambda: fresh(run).checkpoint_step >= 1, timeout=900, worker=proc)
            started = training_processes(proc)
            for process in ranks_of(started):
                process.suspend()
            services.run_cancel(run=run)
            wait_for(lambda: fresh(run).is_finished, timeout=300, worker=proc)
            cancelled = fresh(run)
            assert cancelled.status == Status.CANCELLED, cancelled.error
            log = (run_dir(run.pk) / LOG_NAME).read_text()
            assert "stopped by the worker: cancelled, and no step boundary reached" in log
            checkpoint = run_dir(run.pk) / f"checkpoint-{cancelled.checkpoint_step}"
            assert (checkpoint / "trainer_state.json").is_file()
            wait_for(lambda: not any(running(process) for process in started)
                     and not training_processes(proc), timeout=120, worker=proc)

            services.run_resume(run=cancelled)
            wait_for(lambda: fresh(run).is_finished, timeout=900, worker=proc)
        finally:
            worker_stop(generator)
        run = fresh(run)
        assert run.status == Status.DONE, run.error
        assert run.progress["resumed_from"] == cancelled.checkpoint_step
        assert steps_of(run) == [1, 2, 3, 4]
        assert sorted(Rollout.objects.filter(run=run).values_list("step", "group", "index")) \
            == [(step, group, index) for step in range(1, 5) for group in (0, 1)
                for index in (0, 1)]


@pytest.mark.worker
class TestWorkerKilled:
    def test_the_processes_stop_themselves_when_their_worker_dies(
            self, media, transactional_db, settings, test_policy):
        """SIGKILL to the worker alone, as a lost machine's would: the
        processes it started, in sessions of their own, see it gone and stop
        (rank_main), so nothing beats for the run, which stalls and may be resumed."""
        proc, generator = train_worker_start(media, settings)
        try:
            run = services.run_launch(run=make_run(test_policy, max_steps=40, **TWO))
            wait_for(lambda: len(steps_of(run)) >= 1, timeout=900, worker=proc)
            started = training_processes(proc)
            assert len(ranks_of(started)) == 2
            proc.kill()
            proc.wait()
            wait_for(lambda: not any(running(process) for process in started), timeout=120)
        finally:
            worker_stop(generator)
        assert fresh(run).status == Status.RUNNING  # stalled: resumable once stale


@pytest.mark.worker
class TestCrash:
    def test_a_launch_that_fails_fails_the_run_with_the_end_of_its_log(
            self, worker, test_policy, tmp_path):
        missing = tmp_path / "missing-accelerate.yaml"
        single = tmp_path / "single.yaml"  # starts one process where the run asks for two
        single.write_text("compute_environment: LOCAL_MACHINE\ndistributed_type: 'NO'\n"
                          "num_processes: 1\nmixed_precision: 'no'\n")
        runs = [services.run_launch(run=make_run(test_policy, max_steps=2, **TWO,
                                                 accelerate_config=str(config)))
                for config in (missing, single)]
        wait_for(lambda: all(fresh(run).is_finished for run in runs), timeout=600,
                 worker=worker)
        failed_missing, failed_single = (fresh(run) for run in runs)
        for run in (failed_missing, failed_single):
            assert run.status == Status.FAILED
            log = run_dir(run.pk) / LOG_NAME
            assert run.progress["log"] == str(log) and log.is_file()
            assert f"ProcessesFailed: the training processes exited with code 1; the last " \
                   f"lines of {log}:" in run.error
            assert not Rollout.objects.filter(run=run).exists()
        assert f"`{missing}` does not exist" in failed_missing.error
        assert ("the run asks for 2 processes and accelerate launch started 1 (accelerate "
                f"config {single})") in failed_single.error
        wait_for(lambda: not training_processes(worker), timeout=120, worker=worker)


class TestProcessTree:
    def test_stop_reaches_a_process_orphaned_in_a_session_of_its_own(self):
        """A parent that starts a child in a new session (as torch's elastic
        agent starts ranks) and dies: the tree seen before still stops the child."""
        code = ("import subprocess, sys, time; "
                "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'], "
                "start_new_session=True); time.sleep(600)")
        parent = subprocess.Popen([sys.executable, "-c", code])
        try:
            tree = ProcessTree(parent.pid)
            wait_for(lambda: (tree.refresh(), len(tree.alive()))[1] == 2, timeout=30)
            [child] = [p for p in tree.alive() if p.pid != parent.pid]
            assert os.getsid(child.pid) != os.getsid(parent.pid)
            parent.kill()
            parent.wait()
            assert running(child)  # orphaned, not stopped by its parent's death
            tree.stop()
            assert not running(child)
        finally:
            parent.kill()

    def test_log_tail_reads_only_this_launchs_lines(self, tmp_path):
        log = tmp_path / LOG_NAME
        log.write_text("an earlier launch\n")
        start = log.stat().st_size
        with log.open("a") as out:
            out.write("".join(f"line {n}\n" for n in range(100)))
        assert log_tail(log, start, lines=3) == "line 97\nline 98\nline 99"
        assert log_tail(log, start, lines=1000).splitlines()[0] == "line 0"
