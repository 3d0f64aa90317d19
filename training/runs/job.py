"""The body of a run's task on the train worker (the "run" kind, run by jobs.runner,
which claims the run): check its judges can still answer, discard what a resume trains again,
train, finish.

The jobs runner claims a run under a lease (jobs.lease: queued, or running
with a heartbeat older than PAINTRL_RUN_STALE_S), so a redelivered task
message for a run that is finished, or running with a fresh heartbeat, does
nothing. Every later write checks the claim (callbacks.RunLease): a worker
that lost its run stops without writing.

Resuming continues from the last checkpoint and first deletes every step,
rollout and probe after it: those rollouts came from weights the checkpoint never
saw and are generated again, so no step is stored twice. Their sketches and
renders are deleted too: no policy state that survives made them, and left
in the grading queue they would ask curators to grade pictures of a step
the run's record no longer holds. A render a curator already graded (or
pinned to the pool) is kept: human work is never thrown away.

A run with several processes, or an accelerate config, trains in child
processes that `accelerate launch` starts and this worker watches
(supervisor.py): they write through this worker's claim.

Torch and TRL load with this module (the engine's import), which only a
worker running a run imports: the kind names its body by dotted path."""
from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

from django.db import transaction
from django.db.models import Q

from jobs.runner import ENDED, Ending, Running
from sketches.models import Render, Sketch

from ..models import Calibration, Probe, ProbeSample, Rollout, TrainingRun, TrainingStep
from ..reward.rubric import rubric_specs
from ..reward.scoring import signals_unanswerable, unanswerable_text
from ..sampling.device import memory_release
from ..sampling.renderers import run_renderer
from . import ranks
from .callbacks import RunLease
from .checkpoints import checkpoint_resumable, checkpoints_discard
from .config import RunConfig
from .engine import engine_build, final_policy_save, signal_context
from .services import RunError
from .supervisor import log_path, processes_train

logger = logging.getLogger(__name__)
Status = TrainingRun.Status


def run_body(running: Running) -> Ending:
    """The run kind's body (jobs.runner): the run writes its own ending
    through its lease, from whichever process trains it (module docstring)."""
    lease = RunLease(run_id=running.pk, token=running.lease.token)
    run = TrainingRun.objects.select_related("snapshot").get(pk=running.pk)
    _train(run, lease, bool(running.options.get("resume")))
    return ENDED


def _train(run: TrainingRun, lease, resume: bool) -> None:
    _reward_recheck(run)
    checkpoint = _resume_point(run, lease)
    start = run.checkpoint_step if checkpoint else 0
    grpo = RunConfig.from_launched(run.launched_config)
    extra = {"resumed_from": start} if resume else {}
    if grpo.distributed:
        extra["log"] = str(log_path(run.pk))
    lease.beat(force=True, progress={**extra, "stage": "loading", "step": start,
                                     "max_steps": grpo.max_steps})
    if not grpo.distributed:
        run_train(run=run, lease=lease, checkpoint=checkpoint, progress_extra=extra)
    elif processes_train(run=run, lease=lease, checkpoint=checkpoint, progress_extra=extra):
        lease.end(status=Status.CANCELLED)  # stopped before a step boundary


def run_train(*, run: TrainingRun, lease, checkpoint: Path | None,
              progress_extra: dict) -> None:
    """Build the trainer, train from `checkpoint` (None: step 0) and end the
    run done or cancelled. The run trains here, in the worker's process, or
    in each process `accelerate launch` started (supervisor.py), where only
    the main one renders and writes (ranks.py)."""
    main = ranks.is_main()
    grpo = RunConfig.from_launched(run.launched_config)
    renderer = run_renderer(grpo.renders, grpo.brush) if main else None
    engine = engine_build(run=run, lease=lease, renderer=renderer,
                          progress_extra=progress_extra,
                          start_step=run.checkpoint_step if checkpoint else 0)
    try:
        engine.trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
        state = engine.trainer.state
        if engine.callback.cancelled:
            if main:
                lease.end(status=Status.CANCELLED)
            return
        if state.global_step < state.max_steps:
            raise RuntimeError(f"training stopped at step {state.global_step} of "
                               f"{state.max_steps}")
        final = final_policy_save(engine)
        if main:
            lease.end(status=Status.DONE, extra={"final_policy": str(final)})
    finally:
        del engine
        memory_release()  # the worker lives on to take the next run


def _reward_recheck(run: TrainingRun) -> None:
    """The launch's check again, on the rubric and judges as launched: a
    judge that can no longer answer (its reward model deactivated since)
    would leave every rollout with no total, so the run fails and says why."""
    config = run.launched_config
    specs = rubric_specs(config["rubric"]["signals"], run.dropped_signals)
    found = signals_unanswerable(specs, signal_context(config, run.snapshot, []))
    if found:
        how = 'clone the run, tick "drop signals the judges cannot answer" and launch the clone'
        raise RunError(f"since the launch, {unanswerable_text(found, how_to_drop=how)}. "
                       "Once the configuration is fixed, the run may be resumed")


def _resume_point(run: TrainingRun, lease) -> Path | None:
    """The checkpoint folder to continue from (None: start at step 0), after
    deleting what came after it: steps, rollouts (module docstring) and newer
    checkpoint folders."""
    checkpoint = checkpoint_resumable(run)
    step = run.checkpoint_step if checkpoint else 0
    if run.checkpoint_step and checkpoint is None:
        lease.beat(force=True, checkpoint_step=0)
    rows_discard(run, after_step=step)
    checkpoints_discard(run, after_step=step)
    return checkpoint


def rows_discard(run: TrainingRun, *, after_step: int) -> dict[str, int]:
    """Delete the run's steps, rollouts, probes and re-calibrations after
    `after_step`, with their sketches and renders unless a curator graded or
    pinned one. (A re-calibration left behind would show on its snapshot's
    page beside the one the resumed step measures again.)"""
    rollouts = Rollout.objects.filter(run=run, step__gt=after_step)
    probes = Probe.objects.filter(run=run, step__gt=after_step)
    sketch_ids = set(rollouts.exclude(sketch=None).values_list("sketch_id", flat=True)) | set(
        ProbeSample.objects.filter(probe__in=probes).exclude(sketch=None)
        .values_list("sketch_id", flat=True))
    kept = set(Render.objects.filter(sketch_id__in=sketch_ids)
               .filter(Q(grades__isnull=False) | Q(pool_pin__isnull=False))
               .values_list("sketch_id", flat=True))
    doomed = sketch_ids - kept
    with transaction.atomic():
        pngs = [(render.png.storage, render.png.name)
                for render in Render.objects.filter(sketch_id__in=doomed).exclude(png="")]
        Sketch.objects.filter(pk__in=doomed).delete()
        # The files go once the rows are gone for good (as render_store's
        # replaced PNG does): deleted before, a rollback would leave rows
        # pointing at no file.
        transaction.on_commit(partial(_pngs_delete, pngs))
        removed = rollouts.delete()[0]
        probed = probes.delete()[1].get(Probe._meta.label, 0)
        steps = TrainingStep.objects.filter(run=run, step__gt=after_step).delete()[0]
        recalibrated = Calibration.objects.filter(run=run, step__gt=after_step).delete()[1].get(
            Calibration._meta.label, 0)
    if removed or steps or probed or recalibrated:
        logger.info("run %s: discarded %s steps, %s rollouts, %s probes and %s re-calibrations "
                    "after step %s (%s sketches kept for their grades)", run.pk, steps, removed,
                    probed, recalibrated, after_step, len(kept))
    return {"steps": steps, "rollouts": removed, "probes": probed,
            "calibrations": recalibrated, "sketches_kept": len(kept)}


def _pngs_delete(pngs: list[tuple]) -> None:
    for storage, name in pngs:
        try:
            storage.delete(name)
        except OSError:  # only disk space is lost: no row points at it
            logger.warning("could not delete the discarded rollout PNG %s", name, exc_info=True)

