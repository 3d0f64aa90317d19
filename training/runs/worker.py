"""The body of a run's task on the train worker (tasks.run_task): claim the
run, check its judges can still answer, discard what a resume trains again,
train, finish.

The worker claims a run by a conditional update (queued, or running with a
stale heartbeat: jobs.services.job_claim), so a redelivered task message
for a run that is finished, or running with a fresh heartbeat, does nothing.
Every later write checks the claim (callbacks.Lease): a worker that lost its
run stops without writing.

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

Torch and TRL load only here, inside a claimed run (the engine's import)."""
from __future__ import annotations

import logging
import os
import socket
import uuid
from datetime import timedelta
from functools import partial
from pathlib import Path

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from jobs.services import job_claim, job_end
from sketches.models import Render, Sketch

from ..models import Calibration, Probe, ProbeSample, Rollout, TrainingRun, TrainingStep
from ..reward_signals import signals_unanswerable, unanswerable_text
from ..rubrics import rubric_specs
from . import conf
from .checkpoints import checkpoint_resumable, checkpoints_discard
from .config import GRPOConfig
from .services import RunError

logger = logging.getLogger(__name__)
Status = TrainingRun.Status


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
    return job_claim(model=TrainingRun, pk=run_id, claimable=claimable, worker=token,
                     heartbeat=now)


def _train(run: TrainingRun, lease, resume: bool) -> None:
    from .supervisor import log_path, processes_train

    _reward_recheck(run)
    checkpoint = _resume_point(run, lease)
    start = run.checkpoint_step if checkpoint else 0
    grpo = GRPOConfig.from_launched(run.launched_config)
    extra = {"resumed_from": start} if resume else {}
    if grpo.distributed:
        extra["log"] = str(log_path(run.pk))
    lease.beat(force=True, progress={**extra, "stage": "loading", "step": start,
                                     "max_steps": grpo.max_steps})
    if not grpo.distributed:
        run_train(run=run, lease=lease, checkpoint=checkpoint, progress_extra=extra)
    elif processes_train(run=run, lease=lease, checkpoint=checkpoint, progress_extra=extra):
        _finish(run.pk, lease.token, Status.CANCELLED)  # stopped before a step boundary


def run_train(*, run: TrainingRun, lease, checkpoint: Path | None,
              progress_extra: dict) -> None:
    """Build the trainer, train from `checkpoint` (None: step 0) and end the
    run done or cancelled. The run trains here, in the worker's process, or
    in each process `accelerate launch` started (supervisor.py), where only
    the main one renders and writes (ranks.py)."""
    from ..sampling.device import memory_release
    from ..sampling.renderers import run_renderer
    from . import ranks
    from .engine import engine_build, final_policy_save

    main = ranks.is_main()
    renders = GRPOConfig.from_launched(run.launched_config).renders
    engine = engine_build(run=run, lease=lease, renderer=run_renderer(renders) if main else None,
                          progress_extra=progress_extra,
                          start_step=run.checkpoint_step if checkpoint else 0)
    try:
        engine.trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
        state = engine.trainer.state
        if engine.callback.cancelled:
            if main:
                _finish(run.pk, lease.token, Status.CANCELLED)
            return
        if state.global_step < state.max_steps:
            raise RuntimeError(f"training stopped at step {state.global_step} of "
                               f"{state.max_steps}")
        final = final_policy_save(engine)
        if main:
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


def _finish(run_id: int, token: str, status: str, *, error: str = "",
            extra: dict | None = None) -> None:
    """End the run as `status`, if this worker still holds it."""
    job_end(model=TrainingRun, pk=run_id, status=status, extra=extra, only=Q(worker=token),
            error=error, heartbeat=timezone.now())
