"""Training runs' lifecycle: launch (validate, freeze what the run uses,
queue), cancel, resume, clone, and which of those a run allows
(run_actions). The task body that trains on the worker is job.py; the
checkpoint folders are checkpoints.py.

A run's life: draft -> queued -> running -> done | failed | cancelled (every
job's, jobs.services, with a draft before it); a failed, cancelled or
stalled run may be resumed (queued again), continuing from its last
checkpoint (job.py says what a resume discards).

A rubric signal the run's judges can never answer (the local reward model
asked about adherence, no active reward model, pairwise with no snapshot)
would give every rollout no total: the launch refuses it with the reason
and the way out, unless the run says to drop such signals; then the launch
records each one dropped, with its weight and why (TrainingRun.
dropped_signals), the run's totals are computed without them and its page
shows them. The worker checks again before training: a judge that became
unable since the launch fails the run, which may be resumed once it is fixed.

Nothing here loads torch or TRL: only the worker's run body does.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from jobs.dispatch import job_enqueue
from jobs.models import LIVE
from jobs.services import Cancel, CancelOutcome, job_cancel, job_not_live, job_stop

from ..calibration.recalibrate import recalibration_launched, recalibration_problems
from ..launch import draft_launch
from ..models import Rubric, TrainingRun
from ..policy import policy_parameters, policy_path
from ..policy.build import policy_exists
from ..reward.rubric import signal_specs, specs_kept
from ..reward.scoring import signal_context_for, signals_unanswerable, unanswerable_text
from ..reward.spec import RubricError
from ..sampling.launch import judge_launched, package_versions, policy_missing
from . import conf
from .config import RunConfig, RunConfigError
from .probe.plan import probe_launched, probe_problems

logger = logging.getLogger(__name__)
Status = TrainingRun.Status

# The GRPO settings a launch freezes (and a clone copies).
GRPO_FIELDS = RunConfig.names()
# What a clone copies besides the GRPO settings.
CHOICE_FIELDS = ("base_model", "prompt_set", "system_prompt", "rubric", "snapshot", "judge",
                 "scorer", "drop_unanswerable", "yardstick", "probe_every", "recalibrate_every",
                 "calibration_band_low", "calibration_band_high")
RESUMABLE = (Status.FAILED, Status.CANCELLED)
PACKAGES = ("trl", "transformers", "torch", "peft")
# Where the admin offers the choice to drop signals (in a refusal's way out).
HOW_TO_DROP = 'tick "drop signals the judges cannot answer" in the run\'s Reward settings'


class RunError(ValueError):
    """A run that cannot be launched, resumed or cancelled as asked; the
    message says why (the admin shows it)."""


# --- launch ----------------------------------------------------------------------------------

def run_launch(*, run: TrainingRun, user=None) -> TrainingRun:
    """Check a draft run, freeze what it will use into launched_config, and
    queue it on the train queue once the transaction commits."""
    problems = run_problems(run) if run.status == Status.DRAFT else []
    return draft_launch(
        job=run, problems=problems, error=RunError, resume=False,
        not_draft=" (clone it to run it again, or resume it)",
        frozen=lambda: {
            "launched_config": launched_config(run, user),
            "dropped_signals": run_unanswerable(run, signal_specs(run.rubric.signals)),
            "checkpoint_step": 0,
            "progress": {"stage": "queued", "step": 0, "max_steps": run.max_steps}})


def run_problems(run: TrainingRun) -> list[str]:
    """Everything that would stop the run, each said so the user can fix it."""
    problems = choice_problems(run, how_to_drop=HOW_TO_DROP)
    problems.extend(_grpo_problems(run))
    problems.extend(probe_problems(run))
    problems.extend(recalibration_problems(run))
    return problems


def choice_problems(run, *, how_to_drop: str) -> list[str]:
    """What would stop a job sampling its policy on its prompt set and scoring
    with its rubric: no policy, a rubric that is not valid or asks what the
    judges can never answer (_reward_problems), an empty prompt set. `run` is
    a training run or a prompt optimisation (training.optimiser): the same
    base_model, rubric, judges and prompt_set fields."""
    problems = []
    path = policy_path(run.base_model)
    if not policy_exists(path):
        problems.append(policy_missing(path))
    try:
        specs = signal_specs(run.rubric.signals)
    except RubricError as error:
        problems.append(f"rubric {run.rubric}: {error}")
    else:
        problems.extend(_reward_problems(run, specs, how_to_drop=how_to_drop))
    prompts = run.prompt_set.prompts
    if not isinstance(prompts, list) or not prompts or not all(
            isinstance(p, str) and p.strip() for p in prompts):
        problems.append(f"prompt set {run.prompt_set.name!r} needs a non-empty list of "
                        "non-empty prompts")
    return problems


def run_unanswerable(run, specs) -> list[dict]:
    """The weighted signals of `specs` the run's (or job's: choice_problems)
    judges and snapshot can never answer, as dropped_signals records them
    ({name, kind, weight, reason})."""
    context = signal_context_for(judge=run.judge, scorer=run.scorer, snapshot=run.snapshot)
    return signals_unanswerable(specs, context)


def _reward_problems(run, specs, *, how_to_drop: str) -> list[str]:
    """Signals that can never be answered, unless the job drops them; and a
    drop that would leave nothing to reward."""
    found = run_unanswerable(run, specs)
    if not found:
        return []
    if not run.drop_unanswerable:
        return [f"rubric {run.rubric}: {unanswerable_text(found, how_to_drop=how_to_drop)}"]
    try:
        specs_kept(specs, found)
    except RubricError as error:
        return [f"rubric {run.rubric}: {error}"]
    return []


# The learning rate above which LoRA on a real checkpoint is refused. TRL's
# docs train GRPO adapters at about 1e-5; the built-in tiny policy's 3e-4
# (benchmarks/grpo_bench.py) is 30 times that, and a user who kept the
# new-run default would wreck a real model's weights in a few steps. 1e-4
# leaves room to tune upwards.
LORA_LR_MAX = 1e-4
# A real checkpoint: at least this many parameters (the smallest Qwen3 has
# 0.6 B; the built-in policy 5.2 M), or a size its files do not tell.
REAL_CHECKPOINT_PARAMETERS = 100_000_000


def _grpo_problems(run: TrainingRun) -> list[str]:
    """The GRPO settings' own checks (config.RunConfig), the packages they
    need (LoRA's peft is pinned in requirements.txt; vLLM and the trackers
    are the user's to install), and a learning rate meant for the built-in
    policy on a real checkpoint with LoRA."""
    try:
        grpo = RunConfig.from_run(run)
    except RunConfigError as error:
        return list(error.problems)
    problems = grpo.packages_missing()
    path = policy_path(run.base_model)
    if grpo.lora and grpo.learning_rate > LORA_LR_MAX and policy_exists(path):
        count = policy_parameters(path)
        if count is None or count >= REAL_CHECKPOINT_PARAMETERS:
            size = "a checkpoint of unknown size" if count is None else \
                f"a {count / 1e9:.1f} B-parameter checkpoint"
            problems.append(
                f"learning_rate {grpo.learning_rate:g} is meant for the built-in tiny policy: "
                f"LoRA on {size} wants about 1e-5 (TRL's advice; at most {LORA_LR_MAX:g} "
                "here)")
    return problems


def launched_config(run: TrainingRun, user=None) -> dict:
    """What the run trains with, copied now: editing the rubric, prompts or
    system prompt later changes nothing about this run or its resumes. The
    probe's prompts, seeds and references too (probe.plan), None without one."""
    return {
        **launched_choices(run),
        "system_prompt": {"id": run.system_prompt.pk, "label": str(run.system_prompt),
                          "text": run.system_prompt.text},
        "grpo": RunConfig.from_run(run).to_dict(),
        "probe": probe_launched(run),
        "recalibration": recalibration_launched(run),
        "versions": package_versions(PACKAGES),
        "launched": timezone.now().isoformat(),
        "launched_by": getattr(user, "username", None),
    }


def launched_choices(run) -> dict:
    """The rubric, prompts, policy, judges and snapshot a job launches with,
    as launched_config records them: a run's, or a prompt optimisation's
    (choice_problems says which fields it needs)."""
    return {
        "rubric": {"id": run.rubric.pk, "label": str(run.rubric),
                   "signals": run.rubric.signals},
        "prompt_set": {"id": run.prompt_set.pk, "name": run.prompt_set.name},
        "prompts": list(run.prompt_set.prompts),
        "policy_path": str(policy_path(run.base_model)),
        "judge": judge_launched(run.judge),
        "scorer": judge_launched(run.scorer),
        "snapshot_id": run.snapshot_id,
    }


def _queue(run: TrainingRun, *, resume: bool) -> None:
    job_enqueue(job=run, resume=resume)


# --- cancel, resume, clone -------------------------------------------------------------------

def run_cancel(*, run: TrainingRun) -> Cancel:
    """Stop a run (jobs.services.job_cancel): a queued one at once, a running
    one at the end of its current step (with a checkpoint, so it can be
    resumed), a stalled one at once (its worker is gone and would never read
    the flag). Where run_actions offers no cancel, nothing is written."""
    run.refresh_from_db()
    step = (run.progress or {}).get("step", 0)
    stopping = f"will stop at the end of step {step + 1} and save a checkpoint"
    if "cancel" not in run_actions(run):
        if run.status in LIVE:  # asked already: its worker will stop it
            return Cancel(CancelOutcome.STOPPING, run.status, f"{run} {stopping}.")
        return job_not_live(job=run)
    if run_stalled(run) and job_stop(job=run, only=Q(status=Status.RUNNING,
                                                     heartbeat=run.heartbeat)):
        return Cancel(CancelOutcome.STOPPED, Status.CANCELLED,
                      f"{run} had stopped answering; it is marked cancelled and may be "
                      f"resumed from step {run.checkpoint_step}.")
    return job_cancel(job=run, stopping=stopping)


def run_resume(*, run: TrainingRun) -> TrainingRun:
    """Queue a failed, cancelled or stalled run again; it continues from its
    last checkpoint (step 0 when it has none). Refused, saying why, where
    run_actions offers no resume."""
    run.refresh_from_db()
    if "resume" not in run_actions(run):
        raise RunError(_resume_refusal(run))
    with transaction.atomic():
        current = Q(status__in=RESUMABLE) | Q(status=Status.RUNNING, heartbeat=run.heartbeat)
        queued = TrainingRun.objects.filter(current, pk=run.pk).update(
            status=Status.QUEUED, cancel_requested=False, error="", finished=None, worker="",
            progress={**(run.progress or {}), "stage": "queued"})
        if not queued:
            raise RunError(f"{run} changed meanwhile: reload and try again")
        _queue(run, resume=True)
    run.refresh_from_db()
    return run


def run_clone(*, run: TrainingRun, user=None, rubric: Rubric | None = None) -> TrainingRun:
    """A draft with the same choices and settings, to edit and launch; with
    `rubric`, the same run but for its rubric: the same prompts in the same
    order, render seeds, snapshot and judges (the seed decides the order and
    the seeds), so the two runs differ by the rubric alone."""
    fields = {name: getattr(run, name) for name in (*GRPO_FIELDS, *CHOICE_FIELDS)}
    name = f"{run.name} (clone)"
    if rubric is not None and rubric != run.rubric:
        fields["rubric"] = rubric
        name = f"{run.name} (with rubric {rubric})"
    return TrainingRun.objects.create(name=name[:120], parent=run, created_by=user, **fields)


def run_stalled(run: TrainingRun) -> bool:
    """Running, and its worker silent longer than PAINTRL_RUN_STALE_S."""
    if run.status != Status.RUNNING:
        return False
    return run.heartbeat is None or run.heartbeat < timezone.now() - timedelta(
        seconds=conf.stale_s())


def run_actions(run: TrainingRun) -> frozenset[str]:
    """Which of launch, cancel, resume and clone the run's state allows: the one
    rule the services, the admin and the run page follow. Only a draft is
    launched; a live run is cancelled once (a stalled one again: its worker will
    never stop it); a failed, cancelled or stalled run is resumed, unless it was
    never launched or was imported without its checkpoints; any run is cloned."""
    stalled = run_stalled(run)
    live = run.status in LIVE
    resumable = ((run.status in RESUMABLE or stalled) and bool(run.launched_config)
                 and not (run.progress or {}).get("imported"))
    verbs = {"clone"}
    if run.status == Status.DRAFT:
        verbs.add("launch")
    if live and (stalled or not run.cancel_requested):
        verbs.add("cancel")
    if resumable:
        verbs.add("resume")
    return frozenset(verbs)


def _resume_refusal(run: TrainingRun) -> str:
    """Why run_actions offers a run no resume."""
    if not run.launched_config:
        return f"{run} was never launched: launch it instead"
    if (run.progress or {}).get("imported"):
        # Its checkpoints stayed on the machine it was exported from: resuming
        # would start at step 0 and discard the imported steps and rollouts.
        return (f"{run} was imported (manage.py import_run) without its checkpoints, "
                "so it cannot be resumed here: clone it to train again")
    if run.status == Status.RUNNING:
        return (f"{run} is running (its worker answered {_ago(run.heartbeat)}): cancel it "
                f"first, or wait until it has been silent {conf.stale_s():.0f} s")
    return f"{run} is {run.status}: only a failed, cancelled or stalled run is resumed"


def _ago(moment) -> str:
    if moment is None:
        return "never"
    return f"{(timezone.now() - moment).total_seconds():.0f} s ago"
