"""`manage.py bootstrap_policy` writes a policy that runs can load, and will
not replace one unless told to; with --queue the train worker builds it
(what `make demo` does); every build records its progress and outcome, and
only one builds a folder at a time."""
from __future__ import annotations

import json
import os

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from tests.workers import wait_for
from training.policy import policy_load
from training.policy.build import policy_exists
from training.policy.build_status import (
    BUILDING,
    DONE,
    FAILED,
    STOPPED,
    build_status,
    build_tracked,
    status_path,
)


@pytest.mark.training
def test_the_command_writes_a_loadable_policy_and_keeps_it(tmp_path):
    out = tmp_path / "policy"
    call_command("bootstrap_policy", "--size", "test", "--out", str(out), "--steps", "3",
                 "--evaluate", "0", "--count", "40")
    model, tokenizer = policy_load(out)
    assert tokenizer.eos_token and model.config.vocab_size == len(tokenizer)
    assert (out / "paintrl_policy.json").exists()
    with pytest.raises(CommandError, match="already exists"):
        call_command("bootstrap_policy", "--size", "test", "--out", str(out), "--steps", "1",
                     "--evaluate", "0", "--count", "40")


SMALL = ["--size", "test", "--steps", "3", "--evaluate", "0", "--count", "40"]


@pytest.mark.training
def test_if_missing_leaves_a_built_policy_alone(tmp_path, capsys):
    out = tmp_path / "policy"
    call_command("bootstrap_policy", "--out", str(out), *SMALL)
    built = (out / "model.safetensors").stat().st_mtime_ns
    call_command("bootstrap_policy", "--out", str(out), "--if-missing", "--queue", *SMALL)
    assert "nothing to do" in capsys.readouterr().out
    assert (out / "model.safetensors").stat().st_mtime_ns == built
    assert build_status(out).state == DONE


@pytest.mark.training
def test_queue_builds_on_the_train_worker_and_records_progress(tmp_path, train_worker):
    out = tmp_path / "queued"
    call_command("bootstrap_policy", "--out", str(out), "--queue", *SMALL)
    wait_for(lambda: policy_exists(out), timeout=180, worker=train_worker)
    status = build_status(out)
    assert status.state == DONE and status.done == 1.0 and status.step == 3
    assert status.pid == train_worker.pid  # the worker built it, not this process
    # It gave way to renders, in a thread of its own: the worker's thread,
    # which takes the next job, keeps its priority.
    assert status.niceness == min(19, os.nice(0) + settings.PAINTRL_POLICY_BUILD_NICENESS)
    assert _process_niceness(train_worker.pid) == os.nice(0)
    model, tokenizer = policy_load(out)
    assert model.config.vocab_size == len(tokenizer)


def _process_niceness(pid: int) -> int:
    # /proc/PID/stat: the 19th field, after the command in parentheses.
    stat = open(f"/proc/{pid}/stat").read()
    return int(stat[stat.rindex(")") + 2:].split()[16])


def test_one_build_at_a_time_and_a_dead_build_reads_stopped(tmp_path):
    out = tmp_path / "policy"
    with build_tracked(out) as tracker:
        tracker.log("tokenizer: 4096 tokens")
        assert build_status(out).state == BUILDING
        with pytest.raises(CommandError, match="another process is building"):
            call_command("bootstrap_policy", "--out", str(out), *SMALL)
    assert not policy_exists(out)
    # A status left "building" by a process that died holds no lock.
    record = json.loads(status_path(out).read_text())
    status_path(out).write_text(json.dumps({**record, "state": BUILDING,
                                            "message": "training: step 40, loss 2.000"}))
    status = build_status(out)
    assert (status.state, status.message) == (
        STOPPED, "its process ended at training: step 40, loss 2.000")


def test_a_failed_build_is_recorded_with_its_error(tmp_path):
    out = tmp_path / "file"
    out.write_text("not a policy folder")
    with pytest.raises(CommandError, match="is not a policy folder"):
        call_command("bootstrap_policy", "--out", str(out), *SMALL)
    status = build_status(out)
    assert status.state == FAILED and "is not a policy folder" in status.message


@pytest.mark.parametrize("bad", [["--count", "0"], ["--evaluate", "-1"], ["--minutes", "0"]])
def test_bad_options_fail_here_before_anything_is_queued(tmp_path, bad):
    out = tmp_path / "policy"
    with pytest.raises(CommandError):
        call_command("bootstrap_policy", "--out", str(out), "--queue", "--size", "test", *bad)
    assert not status_path(out).exists()
