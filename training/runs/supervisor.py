"""The train worker's side of a multi-process run: start `accelerate launch`
on training.runs.rank_main, keep its output in the run's log, watch it, and
stop every process it started.

The worker has claimed the run (job.py); the processes write through that
claim, the main one only (ranks.py), so the run's heartbeat is theirs and a
hung training stalls the run as it would in one process. The worker never
beats for them. It watches, once a second:
- the processes' exit: a non-zero one fails the run with the log's last lines;
- a cancel request: the processes stop at the next step boundary, all of
  them (callbacks.RunCallback), save a checkpoint and end the run cancelled;
  should they not have ended the run conf.stale_s() after the request (a
  step longer than a stalled run's silence), the worker stops them and ends
  it cancelled, from its last checkpoint;
- the claim: once the run is no longer theirs to train (ended by them,
  stopped as stalled, taken by another worker), they have EXIT_GRACE_S to
  exit before the worker stops them.

Stopping means every process the launcher started (processes.ProcessTree),
not only its process group: torch's elastic agent starts each rank in a
session of its own, and a rank starts browsers. Should the worker itself
die, each rank sees it gone and stops itself (rank_main.py).
"""
from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings

from ..models import TrainingRun
from ..policy import run_dir
from . import conf
from .callbacks import RunLease, RunSuperseded
from .config import RunConfig
from .processes import ProcessTree

logger = logging.getLogger(__name__)
Status = TrainingRun.Status

LOG_NAME = "processes.log"  # in the run's folder (training.policy.run_dir)
# How often the worker reads the run's row and the processes' tree: one
# indexed read a second, against steps of seconds to minutes.
POLL_S = 1.0
# After the run stops being theirs, how long the processes get to exit on
# their own: the main one closes its browsers (RenderPool.close waits up to
# 30 s) and every one leaves its process group.
EXIT_GRACE_S = 60.0
TAIL_LINES = 40  # of the log, in a failed run's error
TAIL_BYTES = 64 * 1024  # read from the log's end for them (a traceback's lines are short)


class ProcessesFailed(RuntimeError):
    """The training processes exited with an error; the message holds the
    end of their log."""


def log_path(run_id: int) -> Path:
    """The processes' output (every rank's stdout and stderr), one file a run;
    each launch appends to it."""
    return run_dir(run_id) / LOG_NAME


def launch_command(*, run_id: int, token: str, grpo: RunConfig, checkpoint: Path | None,
                   progress_extra: dict) -> list[str]:
    """`accelerate launch` of rank_main for this run. Without a config file,
    plain data parallelism (`--multi_gpu`: torch's elastic launcher, gloo on
    CPUs, NCCL on GPUs); with one, the file decides (DeepSpeed, FSDP), except
    the number of processes, which is the run's."""
    how = (["--config_file", grpo.accelerate_config] if grpo.accelerate_config
           else ["--multi_gpu", "--num_machines", "1", "--mixed_precision", "no",
                 "--dynamo_backend", "no"])
    return [sys.executable, "-m", "accelerate.commands.launch", *how,
            "--num_processes", str(grpo.processes),
            "--main_process_port", "0",  # a free one: several runs may share a machine
            "-m", "training.runs.rank_main", "--run-id", str(run_id), "--token", token,
            "--worker-pid", str(os.getpid()),
            *(["--checkpoint", str(checkpoint)] if checkpoint else []),
            "--progress-extra", json.dumps(progress_extra)]


def processes_train(*, run: TrainingRun, lease: RunLease, checkpoint: Path | None,
                    progress_extra: dict) -> bool:
    """Train `run` in `accelerate launch`'s processes and wait for them. They
    end the run themselves (done or cancelled); True when the worker stopped
    them for a cancel request instead, leaving the run for the caller to end
    cancelled. Raises RunSuperseded when the run was taken by another worker,
    ProcessesFailed when they crashed."""
    grpo = RunConfig.from_launched(run.launched_config)
    log = log_path(run.pk)
    log.parent.mkdir(parents=True, exist_ok=True)
    command = launch_command(run_id=run.pk, token=lease.token, grpo=grpo,
                             checkpoint=checkpoint, progress_extra=progress_extra)
    with log.open("ab") as out:
        start = out.tell()
        out.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} {' '.join(command)}\n".encode())
        out.flush()
        # A session of its own: signals meant for the worker's group (a
        # terminal's Ctrl-C) reach the processes only through this watch.
        proc = subprocess.Popen(command, cwd=settings.BASE_DIR, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"})
    logger.info("run %s: %s processes started (pid %s), log %s", run.pk, grpo.processes,
                proc.pid, log)
    tree = ProcessTree(proc.pid)
    try:
        stopped = _watch(proc, tree, lease, log)
    finally:
        tree.stop()
    row = TrainingRun.objects.get(pk=run.pk)
    if row.worker != lease.token:
        raise RunSuperseded(f"run {run.pk} is no longer held by {lease.token}")
    if row.status != Status.RUNNING:
        return False  # ended by the processes (or stopped as stalled)
    if stopped:
        return True
    if proc.returncode:
        raise ProcessesFailed(f"the training processes exited with code {proc.returncode}; "
                              f"the last lines of {log}:\n{log_tail(log, start)}")
    raise ProcessesFailed(f"the training processes exited without ending the run; the last "
                          f"lines of {log}:\n{log_tail(log, start)}")


def _watch(proc: subprocess.Popen, tree: ProcessTree, lease: RunLease, log: Path) -> bool:
    """Wait for the processes to exit (module docstring); True when they were
    stopped for a cancel request. A stop is said in the log too."""
    deadline = None  # when they must have exited, once they have a reason to
    for_cancel = False
    while proc.poll() is None:
        tree.refresh()
        row = TrainingRun.objects.filter(pk=lease.run_id).values(
            "status", "worker", "cancel_requested").first()
        now = time.monotonic()
        if row is None or row["status"] != Status.RUNNING or row["worker"] != lease.token:
            # EXIT_GRACE_S from the first time seen, or a cancel's deadline if sooner.
            deadline = min(deadline or now + EXIT_GRACE_S, now + EXIT_GRACE_S)
        elif row["cancel_requested"] and deadline is None:
            deadline, for_cancel = now + conf.stale_s(), True
        if deadline is not None and now > deadline:
            why = ("cancelled, and no step boundary reached in time" if for_cancel
                   else "the run is no longer theirs to train")
            logger.warning("run %s: stopping its training processes (%s)", lease.run_id, why)
            with log.open("a") as out:
                out.write(f"--- {time.strftime('%Y-%m-%d %H:%M:%S')} stopped by the worker: "
                          f"{why}\n")
            tree.stop()
            proc.wait()
            return for_cancel
        time.sleep(POLL_S)
    return False


def log_tail(log: Path, start: int = 0, lines: int = TAIL_LINES) -> str:
    """The last `lines` lines this launch wrote (from byte `start`), read
    from the file's end: a long run's log is large."""
    with log.open("rb") as handle:
        handle.seek(max(start, handle.seek(0, os.SEEK_END) - TAIL_BYTES))
        text = handle.read().decode("utf-8", errors="replace")
    return "\n".join(text.rstrip().splitlines()[-lines:])
