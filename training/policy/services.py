"""Starting a policy build (a job of kind "policy_build": training.kinds):
check its options, so a bad one fails where it was given and not on the
worker, then make its row and queue it to the train worker, or leave it
for the caller to run here (jobs.runner.job_run_here: bootstrap_policy
without --queue). One live build a folder: the row's constraint holds it,
and a build whose worker went silent is ended first, as failed."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from django.db import IntegrityError, transaction
from django.utils import timezone

from jobs.dispatch import job_enqueue
from jobs.models import JobStatus
from jobs.registry import job_kind_of
from jobs.services import job_finish

from ..models import PolicyBuild
from .build import RECIPES, SIZES
from .sft import SftConfig

# SFT steps between progress reports (about 10 s each for the tiny size).
PROGRESS_EVERY = 25


class PolicyBuildError(ValueError):
    """A build that cannot start as asked; the message says why."""


def build_folder(out: str | Path) -> str:
    """A policy folder as builds record it: absolute, so the web and the
    worker name one folder alike."""
    return str(Path(out).resolve())


def build_plan(*, size: str = "tiny", minutes: float | None = None, steps: int | None = None,
               count: int | None = None, seed: int = 0, evaluate: int = 24,
               render: bool = False, threads: int | None = None, lr: float | None = None,
               shortest: float | None = None, logit_scale: float | None = None,
               force: bool = False) -> dict:
    """training.policy.build.policy_bootstrap's keywords for bootstrap_policy's
    options: each left None is the size's recipe (RECIPES)."""
    if size not in SIZES:
        raise PolicyBuildError(f"size must be one of {', '.join(sorted(SIZES))}, got {size!r}")
    recipe = RECIPES[size]
    if (count is not None and count < 1) or evaluate < 0:
        raise PolicyBuildError("--count must be at least 1 and --evaluate 0 or more")
    if minutes is None and steps is None:
        minutes, steps = recipe["minutes"], recipe["steps"]
    try:
        sft = SftConfig(minutes=minutes, max_steps=steps, seed=seed, threads=threads,
                        learning_rate=_given(lr, recipe["learning_rate"]),
                        batch_size=recipe["batch_size"], log_every=PROGRESS_EVERY)
    except ValueError as error:
        raise PolicyBuildError(str(error)) from error
    return {"size": size, "count": _given(count, recipe["count"]), "seed": seed, "sft": sft,
            "vocab_size": recipe["vocab_size"], "evaluate": evaluate,
            "shortest": _given(shortest, recipe["shortest"]),
            "logit_scale": _given(logit_scale, recipe["logit_scale"]), "render": render,
            "force": force}


def policy_build_start(*, out: str | Path, options: dict, queue: bool,
                       user=None) -> PolicyBuild:
    """A build of folder `out` with bootstrap_policy's `options` (module
    docstring): queued to the train worker when `queue`, where it gives way
    to renders; else queued for the caller to run. PolicyBuildError says
    why it cannot start."""
    build_plan(**options)
    folder = build_folder(out)
    _silent_builds_end(folder)
    try:
        with transaction.atomic():
            build = PolicyBuild.objects.create(out=folder, options=options, created_by=user,
                                               progress={"stage": "queued",
                                                         "message": "queued"})
            if queue:
                job_enqueue(job=build, yielding=True)
    except IntegrityError:
        live = PolicyBuild.objects.filter(out=folder, status__in=(
            JobStatus.QUEUED, JobStatus.RUNNING)).first()
        raise PolicyBuildError(f"another build is writing the policy in {folder}"
                               + (f" ({live}, {live.status})" if live else "")) from None
    return build


def _silent_builds_end(folder: str) -> None:
    """End as failed a running build of `folder` whose worker has said
    nothing for its kind's stale time (its process died): it holds the
    folder no longer."""
    stale_s = job_kind_of(PolicyBuild).stale_s()
    silent = PolicyBuild.objects.filter(
        out=folder, status=JobStatus.RUNNING,
        heartbeat__lt=timezone.now() - timedelta(seconds=stale_s))
    for build in silent:
        job_finish(model=PolicyBuild, pk=build.pk, status=JobStatus.FAILED,
                   error="its process stopped answering at "
                         f"{(build.progress or {}).get('message') or 'the start'}")


def _given(value, default):
    return default if value is None else value
