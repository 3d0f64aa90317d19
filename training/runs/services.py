"""Training runs' writes: launch (validate, freeze what the run uses, queue),
cancel, resume, clone, and the task body that trains on the worker.

A run's life: draft -> queued -> running -> done | failed | cancelled; a
failed, cancelled or stalled run may be resumed (queued again). The worker
claims a run by a conditional update (queued, or running with a stale
heartbeat), so a redelivered task message for a run that is finished, or
running with a fresh heartbeat, does nothing. Every later write checks the
claim (callbacks.Lease): a worker that lost its run stops without writing.

Resuming continues from the last checkpoint and first deletes every step
and rollout after it: those rollouts came from weights the checkpoint never
saw and are generated again, so no step is stored twice. Their sketches and
renders are deleted too: no policy state that survives made them, and left
in the grading queue they would ask curators to grade pictures of a step
the run's record no longer holds. A render a curator already graded (or
pinned to the pool) is kept: human work is never thrown away.

A rubric signal the run's judges can never answer (the local reward model
asked about adherence, no active reward model, pairwise with no snapshot)
would give every rollout no total: the launch refuses it with the reason
and the way out, unless the run says to drop such signals; then the launch
records each one dropped, with its weight and why (TrainingRun.
dropped_signals), the run's totals are computed without them and its page
shows them. The worker checks again before training: a judge that became
unable since the launch fails the run, which may be resumed once it is fixed.

Torch and TRL load only on the worker (run_execute imports the engine).
"""
from __future__ import annotations

import importlib.util
import logging
import math
import os
import shutil
import socket
import uuid
from datetime import timedelta
from importlib.metadata import PackageNotFoundError, version

from django.db import transaction
from django.db.models import DateTimeField, F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from sketches.models import Render, Sketch

from ..models import Rollout, TrainingRun, TrainingStep
from ..policy import policy_path
from ..policy.build import policy_exists
from ..policy.build_status import BUILDING, build_status
from ..rubrics import RubricError, rubric_specs, signal_specs, specs_kept
from ..signals import signal_context_for, signals_unanswerable, unanswerable_text
from . import conf

logger = logging.getLogger(__name__)
Status = TrainingRun.Status

# The GRPO settings a launch freezes (and a clone copies).
GRPO_FIELDS = ("num_generations", "prompts_per_step", "max_steps", "learning_rate",
               "lr_schedule", "warmup_steps", "max_completion_length", "temperature",
               "scale_rewards", "beta", "lora", "lora_rank", "seed", "device", "save_steps")
# What a clone copies besides the GRPO settings.
CHOICE_FIELDS = ("base_model", "prompt_set", "system_prompt", "rubric", "snapshot", "judge",
                 "scorer", "drop_unanswerable")
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
    if run.status != Status.DRAFT:
        raise RunError(f"{run} is {run.status}, not a draft: only a draft is launched "
                       "(clone it to run it again, or resume it)")
    problems = run_problems(run)
    if problems:
        raise RunError(f"{run} cannot be launched: " + "; ".join(problems))
    config = launched_config(run, user)
    dropped = run_unanswerable(run, signal_specs(run.rubric.signals))
    with transaction.atomic():
        launched = TrainingRun.objects.filter(pk=run.pk, status=Status.DRAFT).update(
            status=Status.QUEUED, launched_config=config, dropped_signals=dropped,
            cancel_requested=False, error="",
            checkpoint_step=0, progress={"stage": "queued", "step": 0,
                                         "max_steps": run.max_steps})
        if not launched:
            raise RunError(f"{run} was launched meanwhile")
        _queue(run.pk, resume=False)
    run.refresh_from_db()
    return run


def run_problems(run: TrainingRun) -> list[str]:
    """Everything that would stop the run, each said so the user can fix it."""
    problems = []
    path = policy_path(run.base_model)
    if not policy_exists(path):
        problems.append(_policy_missing(path))
    try:
        specs = signal_specs(run.rubric.signals)
    except RubricError as error:
        problems.append(f"rubric {run.rubric}: {error}")
    else:
        problems.extend(_reward_problems(run, specs))
    prompts = run.prompt_set.prompts
    if not isinstance(prompts, list) or not prompts or not all(
            isinstance(p, str) and p.strip() for p in prompts):
        problems.append(f"prompt set {run.prompt_set.name!r} needs a non-empty list of "
                        "non-empty prompts")
    problems.extend(_grpo_problems(run))
    return problems


def run_unanswerable(run: TrainingRun, specs) -> list[dict]:
    """The weighted signals of `specs` the run's judges and snapshot can never
    answer, as dropped_signals records them ({name, kind, weight, reason})."""
    context = signal_context_for(judge=run.judge, scorer=run.scorer, snapshot=run.snapshot)
    return signals_unanswerable(specs, context)


def _reward_problems(run: TrainingRun, specs) -> list[str]:
    """Signals that can never be answered, unless the run drops them; and a
    drop that would leave nothing to reward."""
    found = run_unanswerable(run, specs)
    if not found:
        return []
    if not run.drop_unanswerable:
        return [f"rubric {run.rubric}: {unanswerable_text(found, how_to_drop=HOW_TO_DROP)}"]
    try:
        specs_kept(specs, found)
    except RubricError as error:
        return [f"rubric {run.rubric}: {error}"]
    return []


def _policy_missing(path) -> str:
    build = build_status(path)
    if build is not None and build.state == BUILDING:
        return (f"the policy at {path} is still being built ({build.done:.0%} of its training "
                "done; the training runs page shows its progress)")
    return (f"no policy at {path} (run `manage.py bootstrap_policy` for the built-in one, or "
            "give a local Hugging Face checkpoint folder)")


def _grpo_problems(run: TrainingRun) -> list[str]:
    problems = []
    if run.num_generations < 2:
        problems.append(f"num_generations is {run.num_generations}: GRPO compares rollouts "
                        "of one prompt, so it needs at least 2")
    for name in ("prompts_per_step", "max_steps", "save_steps", "max_completion_length"):
        if getattr(run, name) < 1:
            problems.append(f"{name} must be at least 1")
    if not (math.isfinite(run.learning_rate) and run.learning_rate > 0):
        problems.append(f"learning_rate must be positive, got {run.learning_rate}")
    if not (math.isfinite(run.temperature) and run.temperature > 0):
        problems.append(f"temperature must be positive, got {run.temperature}")
    if not (math.isfinite(run.beta) and run.beta >= 0):
        problems.append(f"beta must be 0 or more, got {run.beta}")
    if run.warmup_steps > run.max_steps:
        problems.append(f"warmup_steps ({run.warmup_steps}) exceeds max_steps "
                        f"({run.max_steps})")
    if run.lora:
        if run.lora_rank < 1:
            problems.append("lora_rank must be at least 1")
        if importlib.util.find_spec("peft") is None:
            problems.append("LoRA needs the peft package, which is not installed "
                            "(pip install peft==0.21.2), or launch without LoRA")
    return problems


def launched_config(run: TrainingRun, user=None) -> dict:
    """What the run trains with, copied now: editing the rubric, prompts or
    system prompt later changes nothing about this run or its resumes."""
    def judge(row) -> dict:
        return {"id": row.pk, "name": row.name, "backend": row.backend}

    return {
        "rubric": {"id": run.rubric.pk, "label": str(run.rubric),
                   "signals": run.rubric.signals},
        "system_prompt": {"id": run.system_prompt.pk, "label": str(run.system_prompt),
                          "text": run.system_prompt.text},
        "prompt_set": {"id": run.prompt_set.pk, "name": run.prompt_set.name},
        "prompts": list(run.prompt_set.prompts),
        "policy_path": str(policy_path(run.base_model)),
        "judge": judge(run.judge),
        "scorer": judge(run.scorer),
        "snapshot_id": run.snapshot_id,
        "grpo": {name: getattr(run, name) for name in GRPO_FIELDS},
        "versions": _versions(),
        "launched": timezone.now().isoformat(),
        "launched_by": getattr(user, "username", None),
    }


def _versions() -> dict[str, str | None]:
    found = {}
    for package in PACKAGES:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = None
    return found


def _queue(run_id: int, *, resume: bool) -> None:
    from ..tasks import run_task

    transaction.on_commit(lambda: run_task.delay(run_id, resume=resume))


# --- cancel, resume, clone -------------------------------------------------------------------

def run_cancel(*, run: TrainingRun) -> str:
    """Stop a run: a queued one at once, a running one at the end of its
    current step (with a checkpoint, so it can be resumed), a stalled one at
    once. Returns a message for the user."""
    run.refresh_from_db()
    now = timezone.now()
    if run.status == Status.DRAFT:
        return f"{run} has not been launched."
    if run.is_finished:
        return f"{run} has already finished ({run.status})."
    if TrainingRun.objects.filter(pk=run.pk, status=Status.QUEUED).update(
            status=Status.CANCELLED, cancel_requested=True, finished=now):
        return f"{run} cancelled before it started."
    if run_stalled(run) and TrainingRun.objects.filter(
            pk=run.pk, status=Status.RUNNING, heartbeat=run.heartbeat).update(
            status=Status.CANCELLED, cancel_requested=True, finished=now):
        return (f"{run} had stopped answering; it is marked cancelled and may be resumed "
                f"from step {run.checkpoint_step}.")
    TrainingRun.objects.filter(pk=run.pk).update(cancel_requested=True)
    step = (run.progress or {}).get("step", 0)
    return f"{run} will stop at the end of step {step + 1} and save a checkpoint."


def run_resume(*, run: TrainingRun) -> TrainingRun:
    """Queue a failed, cancelled or stalled run again; it continues from its
    last checkpoint (step 0 when it has none)."""
    run.refresh_from_db()
    if not run.launched_config:
        raise RunError(f"{run} was never launched: launch it instead")
    if (run.progress or {}).get("imported"):
        # Its checkpoints stayed on the machine it was exported from: resuming
        # would start at step 0 and discard the imported steps and rollouts.
        raise RunError(f"{run} was imported (manage.py import_run) without its checkpoints, "
                       "so it cannot be resumed here: clone it to train again")
    stalled = run_stalled(run)
    if run.status not in RESUMABLE and not stalled:
        if run.status == Status.RUNNING:
            raise RunError(f"{run} is running (its worker answered "
                           f"{_ago(run.heartbeat)}): cancel it first, or wait until it "
                           f"has been silent {conf.stale_s():.0f} s")
        raise RunError(f"{run} is {run.status}: only a failed, cancelled or stalled run "
                       "is resumed")
    with transaction.atomic():
        current = Q(status__in=RESUMABLE) | Q(status=Status.RUNNING, heartbeat=run.heartbeat)
        queued = TrainingRun.objects.filter(current, pk=run.pk).update(
            status=Status.QUEUED, cancel_requested=False, error="", finished=None, worker="",
            progress={**(run.progress or {}), "stage": "queued"})
        if not queued:
            raise RunError(f"{run} changed meanwhile: reload and try again")
        _queue(run.pk, resume=True)
    run.refresh_from_db()
    return run


def run_clone(*, run: TrainingRun, user=None) -> TrainingRun:
    """A draft with the same choices and settings, to edit and launch."""
    fields = {name: getattr(run, name) for name in (*GRPO_FIELDS, *CHOICE_FIELDS)}
    return TrainingRun.objects.create(name=f"{run.name} (clone)"[:120], parent=run,
                                      created_by=user, **fields)


def run_stalled(run: TrainingRun) -> bool:
    """Running, and its worker silent longer than PAINTRL_RUN_STALE_S."""
    if run.status != Status.RUNNING:
        return False
    return run.heartbeat is None or run.heartbeat < timezone.now() - timedelta(
        seconds=conf.stale_s())


def _ago(moment) -> str:
    if moment is None:
        return "never"
    return f"{(timezone.now() - moment).total_seconds():.0f} s ago"


# --- execute (the task body) -----------------------------------------------------------------

def run_execute(*, run_id: int, resume: bool = False, worker: str | None = None) -> TrainingRun:
    """Train a queued (or stalled) run to its end; ends done, failed or
    cancelled. Continues from the run's last checkpoint whenever it has one
    (`resume` only says why the task was sent)."""
    token = f"{worker or socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
    if not _claim(run_id, token):
        return TrainingRun.objects.get(pk=run_id)  # finished, or alive on another worker
    from .callbacks import Lease, RunSuperseded

    lease = Lease(run_id=run_id, token=token)
    try:
        _train(TrainingRun.objects.select_related("snapshot").get(pk=run_id), lease, resume)
    except RunSuperseded:
        logger.warning("run %s was taken over by another worker; %s stops", run_id, token)
    except Exception as exc:  # recorded on the run; the worker lives on
        logger.exception("run %s failed", run_id)
        _finish(run_id, token, Status.FAILED, error=f"{type(exc).__name__}: {exc}")
    return TrainingRun.objects.get(pk=run_id)


def _claim(run_id: int, token: str) -> bool:
    now = timezone.now()
    stale = now - timedelta(seconds=conf.stale_s())
    claimable = Q(status=Status.QUEUED) | Q(status=Status.RUNNING, heartbeat__lt=stale)
    return bool(TrainingRun.objects.filter(claimable, pk=run_id).update(
        status=Status.RUNNING, worker=token, heartbeat=now, error="", finished=None,
        started=Coalesce(F("started"), Value(now, output_field=DateTimeField()))))


def _train(run: TrainingRun, lease, resume: bool) -> None:
    from sketches.renderer import shared_pool

    from .engine import engine_build, final_policy_save, memory_release

    _reward_recheck(run)
    checkpoint = _checkpoint_prepare(run, lease)
    start = run.checkpoint_step if checkpoint else 0
    extra = {"resumed_from": start} if resume else {}
    lease.beat(force=True, progress={**extra, "stage": "loading", "step": start,
                                     "max_steps": run.launched_config["grpo"]["max_steps"]})
    engine = engine_build(run=run, lease=lease, pool=shared_pool(), progress_extra=extra)
    try:
        engine.trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
        state = engine.trainer.state
        if engine.callback.cancelled:
            _finish(run.pk, lease.token, Status.CANCELLED)
            return
        if state.global_step < state.max_steps:
            raise RuntimeError(f"training stopped at step {state.global_step} of "
                               f"{state.max_steps}")
        final = final_policy_save(engine)
        _finish(run.pk, lease.token, Status.DONE, extra={"final_policy": str(final)})
    finally:
        del engine
        memory_release()  # the worker lives on to take the next run


def _reward_recheck(run: TrainingRun) -> None:
    """The launch's check again, on the rubric and judges as launched: a
    judge that can no longer answer (its reward model deactivated since)
    would leave every rollout with no total, so the run fails and says why."""
    from .engine import signal_context

    config = run.launched_config
    specs = rubric_specs(config["rubric"]["signals"], run.dropped_signals)
    found = signals_unanswerable(specs, signal_context(config, run.snapshot, []))
    if found:
        how = 'clone the run, tick "drop signals the judges cannot answer" and launch the clone'
        raise RunError(f"since the launch, {unanswerable_text(found, how_to_drop=how)}. "
                       "Once the configuration is fixed, the run may be resumed")


def _checkpoint_prepare(run: TrainingRun, lease):
    """The checkpoint folder to continue from (None: start at step 0), after
    deleting what came after it: steps, rollouts (module docstring) and newer
    checkpoint folders (a save a kill cut short)."""
    out = conf.run_dir(run.pk)
    step = run.checkpoint_step
    checkpoint = out / f"checkpoint-{step}" if step else None
    if checkpoint is not None and not (checkpoint / "trainer_state.json").is_file():
        logger.warning("run %s: checkpoint %s is missing; starting from step 0", run.pk,
                       checkpoint)
        checkpoint, step = None, 0
        lease.beat(force=True, checkpoint_step=0)
    rows_discard(run, after_step=step)
    if out.is_dir():
        for folder in out.iterdir():
            number = folder.name.removeprefix("checkpoint-")
            newer = number.isdigit() and int(number) > step
            if newer or folder.name == "final":
                shutil.rmtree(folder, ignore_errors=True)
    return checkpoint


def rows_discard(run: TrainingRun, *, after_step: int) -> dict[str, int]:
    """Delete the run's steps and rollouts after `after_step`, with their
    sketches and renders unless a curator graded or pinned one."""
    rollouts = Rollout.objects.filter(run=run, step__gt=after_step)
    sketch_ids = set(rollouts.exclude(sketch=None).values_list("sketch_id", flat=True))
    kept = set(Render.objects.filter(sketch_id__in=sketch_ids)
               .filter(Q(grades__isnull=False) | Q(pool_pin__isnull=False))
               .values_list("sketch_id", flat=True))
    doomed = sketch_ids - kept
    with transaction.atomic():
        for render in Render.objects.filter(sketch_id__in=doomed).exclude(png=""):
            render.png.delete(save=False)
        Sketch.objects.filter(pk__in=doomed).delete()
        removed = rollouts.delete()[0]
        steps = TrainingStep.objects.filter(run=run, step__gt=after_step).delete()[0]
    if removed or steps:
        logger.info("run %s: discarded %s steps and %s rollouts after step %s (%s sketches "
                    "kept for their grades)", run.pk, steps, removed, after_step, len(kept))
    return {"steps": steps, "rollouts": removed, "sketches_kept": len(kept)}


def _finish(run_id: int, token: str, status: str, *, error: str = "",
            extra: dict | None = None) -> None:
    run = TrainingRun.objects.get(pk=run_id)
    progress = {**(run.progress or {}), **(extra or {}), "stage": status}
    TrainingRun.objects.filter(pk=run_id, worker=token, status=Status.RUNNING).update(
        status=status, error=error, finished=timezone.now(), heartbeat=timezone.now(),
        progress=progress)
