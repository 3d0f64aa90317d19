"""The policy build kind's body (jobs.runner; registered in training.kinds):
build a policy from the painter corpus into the row's folder, writing its
phase, SFT's share done and pace through the lease as it goes, so the jobs
page, the runs page and the home page read one row. The options are
checked when the row is made (services.policy_build_start), so a bad one
fails there, not on the worker."""
from __future__ import annotations

import os
from pathlib import Path

from django.conf import settings

from jobs.priority import run_yielding
from jobs.runner import Ending, Running

from ..models import PolicyBuild
from .build import policy_bootstrap, policy_exists
from .services import build_plan


def policy_build_body(running: Running) -> Ending:
    """Build the policy (module docstring). A queued build gives way to
    renders (`yielding`): curators wait on them, and the recipe fixes the
    steps, so a build that gives way takes longer but learns as much."""
    build = PolicyBuild.objects.get(pk=running.pk)
    out = Path(build.out)
    if policy_exists(out) and not build.options.get("force"):
        # Built meanwhile (a second `--queue`, a build here): nothing to do.
        return Ending(extra={"message": f"a policy is already in {out}"})
    plan = build_plan(**build.options)
    progress: dict = {"stage": "building", "message": "starting", "done": 0.0, "total": 1.0}

    def report(force: bool = False, **changes) -> None:
        progress.update(changes)
        running.lease.write(force=force, progress=dict(progress))
        if running.on_progress is not None:
            running.on_progress(dict(progress))

    def sft_progress(p) -> None:
        report(done=p.done, step=p.step, loss=p.loss, sft_elapsed_s=p.elapsed_s,
               learning_rate=p.learning_rate, tokens_per_s=p.tokens_per_s, epoch=p.epoch,
               message=f"training: step {p.step}, loss {p.loss:.3f}")

    def build_it() -> dict:
        # Where it gave way to renders, this thread's own nice value says so.
        report(force=True, niceness=os.nice(0))
        return policy_bootstrap(out, **plan, on_progress=sft_progress,
                                log=lambda line: report(force=True, message=line))

    report(force=True)
    niceness = settings.PAINTRL_POLICY_BUILD_NICENESS if running.options.get("yielding") else 0
    record = run_yielding(build_it, niceness=niceness)
    return Ending(extra={"done": 1.0, "message": f"saved in {out}"},
                  fields={"record": _summary(record)})


def _summary(record: dict) -> dict:
    """What the pages show of a build's record (the folder keeps all of it)."""
    summary = {key: record[key] for key in ("size", "parameters", "training") if key in record}
    for key in ("evaluation_unscaled", "evaluation"):
        if record.get(key):
            summary[key] = {k: v for k, v in record[key].items()
                            if k not in ("per_sample", "examples")}
    return summary

