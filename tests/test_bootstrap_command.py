"""`manage.py bootstrap_policy` writes a policy that runs can load, and will
not replace one unless told to; with --queue the train worker builds it
(what `make demo` does); every build is a job row of kind "policy_build"
that records its progress and outcome, and only one builds a folder at a
time."""
from __future__ import annotations

import os
from datetime import timedelta

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command
from django.utils import timezone

from tests.workers import wait_for
from training.models import PolicyBuild
from training.policy import policy_load
from training.policy.build import policy_exists
from training.policy.selectors import BUILDING, STOPPED, policy_build_latest
from training.policy.services import build_folder


@pytest.mark.training
@pytest.mark.django_db
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
@pytest.mark.django_db
def test_if_missing_leaves_a_built_policy_alone(tmp_path, capsys):
    out = tmp_path / "policy"
    call_command("bootstrap_policy", "--out", str(out), *SMALL)
    built = (out / "model.safetensors").stat().st_mtime_ns
    call_command("bootstrap_policy", "--out", str(out), "--if-missing", "--queue", *SMALL)
    assert "nothing to do" in capsys.readouterr().out
    assert (out / "model.safetensors").stat().st_mtime_ns == built
    assert policy_build_latest(out).state == "done"
    assert PolicyBuild.objects.count() == 1  # the second call made no row


@pytest.mark.training
def test_queue_builds_on_the_train_worker_and_records_progress(tmp_path, train_worker):
    out = tmp_path / "queued"
    call_command("bootstrap_policy", "--out", str(out), "--queue", *SMALL)
    wait_for(lambda: policy_build_latest(out).state != BUILDING, timeout=180,
             worker=train_worker)
    build = PolicyBuild.objects.get()
    assert build.status == "done", build.error
    assert build.progress["done"] == 1.0 and build.progress["step"] == 3
    assert build.record["training"]["steps"] == 3
    # The worker built it, not this process.
    assert build.worker.split(":")[1] == str(train_worker.pid)
    # It gave way to renders, in a thread of its own: the worker's thread,
    # which takes the next job, keeps its priority.
    assert build.progress["niceness"] == min(
        19, os.nice(0) + settings.PAINTRL_POLICY_BUILD_NICENESS)
    assert _process_niceness(train_worker.pid) == os.nice(0)
    model, tokenizer = policy_load(out)
    assert model.config.vocab_size == len(tokenizer)


def _process_niceness(pid: int) -> int:
    # /proc/PID/stat: the 19th field, after the command in parentheses.
    stat = open(f"/proc/{pid}/stat").read()
    return int(stat[stat.rindex(")") + 2:].split()[16])


@pytest.mark.django_db
def test_one_build_at_a_time_and_a_silent_build_reads_stopped(tmp_path):
    out = tmp_path / "policy"
    now = timezone.now()
    live = PolicyBuild.objects.create(
        out=build_folder(out), status="running", started=now, heartbeat=now,
        progress={"message": "training: step 40, loss 2.000", "done": 0.1})
    assert policy_build_latest(out).state == BUILDING
    with pytest.raises(CommandError, match="another build is writing the policy"):
        call_command("bootstrap_policy", "--out", str(out), *SMALL)
    assert not policy_exists(out)
    # A build whose worker has said nothing for the kind's stale time died.
    PolicyBuild.objects.filter(pk=live.pk).update(
        heartbeat=now - timedelta(seconds=settings.PAINTRL_JOB_STALE_S + 1))
    latest = policy_build_latest(out)
    assert (latest.state, latest.message) == (
        STOPPED, "its process ended at training: step 40, loss 2.000")
    # The next build ends it, as failed, and goes ahead (here: on a bad folder).
    out.mkdir()
    (out / "stray").write_text("not a policy")
    with pytest.raises(CommandError, match="is not a policy folder"):
        call_command("bootstrap_policy", "--out", str(out), *SMALL)
    live.refresh_from_db()
    assert live.status == "failed" and "stopped answering" in live.error


@pytest.mark.django_db
def test_a_failed_build_is_recorded_with_its_error(tmp_path):
    out = tmp_path / "file"
    out.write_text("not a policy folder")
    with pytest.raises(CommandError, match="is not a policy folder"):
        call_command("bootstrap_policy", "--out", str(out), *SMALL)
    latest = policy_build_latest(out)
    assert latest.state == "failed" and "is not a policy folder" in latest.message


@pytest.mark.django_db
@pytest.mark.parametrize("bad", [["--count", "0"], ["--evaluate", "-1"], ["--minutes", "0"]])
def test_bad_options_fail_here_before_anything_is_queued(tmp_path, bad):
    out = tmp_path / "policy"
    with pytest.raises(CommandError):
        call_command("bootstrap_policy", "--out", str(out), "--queue", "--size", "test", *bad)
    assert not PolicyBuild.objects.exists()
