"""Opening an external run and scoring a client's batch: the reward path our
runs use (training.reward), reached over HTTP by trainers that are not ours.

What a batch promises, and how:
- Rendered by the render fleet (the `render` queue, any number of hosts),
  each item under a key of its own, at one seed per group: the run's seed,
  the client's step and the group key (items with no group key render at
  seeds of their own). Group-mates face the same references, as a run's do.
- Scored and totalled as a run's rollouts are: a total is None where any
  weighted signal is (an unavailable render, a judge that did not answer),
  never a mean of what answered; a sketch's own failure is a 0.
- Idempotent by the client's key: the batch row is claimed under the run's
  row lock before anything renders, so a retry of a finished batch gets the
  stored answer (nothing rendered or stored again), and a retry of one still
  scoring is told to wait (409, Retry-After). A batch whose process died is
  taken over once it has been scoring longer than any batch can
  (`stale_after_s`).
- Bounded: at most `conf.batch_max()` items, and `conf.concurrency()`
  batches scoring per run at once (one more: 429, Retry-After). A batch is
  answered 503 with Retry-After, its key freed, when no render worker
  answers or more than `conf.backlog_max()` waited-on renders are queued
  (FleetWatch). Each render is bounded by the renderer's deadline and the
  fleet's own bound; a render worker lost once the batch has begun makes the
  fleet give up after PAINTRL_FLEET_WAIT_S, and the items left come back
  unavailable (total None), never a hang.
- Stored in one transaction when scored: each item a Sketch and Render of
  origin rollout (which joins the grading queue) and an ExternalItem, with
  the run's yardstick score where it has one (the gold side of its
  overoptimisation curve; an instrument: one that fails leaves the scores
  None and the batch is answered).
"""
from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from sketches.conf import fleet_wait_s, renderer_config
from sketches.fleet import render_consumers, renders_asked_waiting, workers_queues
from sketches.renderer.pool import render_bound_s

from ..models import ExternalBatch, ExternalItem, ExternalRun
from ..reward.inputs import rollout_from_outcome
from ..reward.rubric import rubric_specs, signal_specs
from ..reward.scoring import (
    signal_context_for,
    signals_unanswerable,
    totals_compute,
    unanswerable_text,
)
from ..reward.spec import RubricError
from ..reward.yardstick import yardstick_loaded
from ..runs.probe.plan import references_drawn, yardstick_launched, yardstick_problems
from ..sampling.renderers import FleetRenderer
from ..sampling.samples import SEED_RANGE
from ..sampling.stored import completion_store
from . import conf

logger = logging.getLogger(__name__)


class ExternalError(Exception):
    """A refusal: `status` is the HTTP status the API answers it with;
    `retry_after` (seconds) where waiting would help."""

    def __init__(self, status: int, detail: str, problems: list[str] | None = None,
                 retry_after: int | None = None):
        super().__init__(detail)
        self.status, self.detail, self.retry_after = status, detail, retry_after
        self.problems = problems if problems is not None else [detail]


@dataclass(frozen=True)
class Item:
    """One (prompt, completion) of a client's batch."""

    prompt: str
    completion: str
    group: str = ""


class FleetWatch:
    """Whether the render fleet can take a batch now. The workers are asked
    at most every `every_s` per process, and only until as many have
    answered as last time (sketches.fleet.workers_queues: milliseconds, where
    asking until the timeout takes 2 s); a fleet that went away, or came
    back, is seen within that. The queue's length is one Redis read, made
    every time."""

    def __init__(self, every_s: float = 10.0):
        self.every_s = every_s
        self._lock = threading.Lock()
        self._asked_at: float | None = None
        self._answered = 0  # workers of any queue that answered last time
        self._workers: list[str] = []

    def workers(self) -> list[str]:
        """The render workers that answered."""
        with self._lock:
            if self._asked_at is None or time.monotonic() - self._asked_at >= self.every_s:
                answered = workers_queues(expect=self._answered or None)
                if not render_consumers(answered):
                    answered = workers_queues()  # the first to answer may be other workers
                self._answered, self._asked_at = len(answered), time.monotonic()
                self._workers = render_consumers(answered)
            return self._workers

    def forget(self) -> None:
        with self._lock:
            self._asked_at = None

    def refusal(self) -> ExternalError | None:
        """The 503 for a fleet that cannot take a batch now, or None."""
        wait = max(conf.retry_after_s(), round(self.every_s))
        waiting = renders_asked_waiting()
        if waiting > conf.backlog_max():
            return ExternalError(503, "The render fleet is overloaded.",
                                 [f"{waiting} renders wait on the render queue, more than "
                                  f"{conf.backlog_max()}: ask again later"], retry_after=wait)
        if not self.workers():
            return ExternalError(503, "No render worker is running.",
                                 ["no worker consuming the render queue answered: start one "
                                  "(the Procfile's `render`), then ask again"], retry_after=wait)
        return None


fleet_watch = FleetWatch()


def stale_after_s() -> float:
    """How long a batch may be scoring before a retry takes it over: longer
    than any batch can take (the fleet's wait for a worker, then a render's
    whole bound)."""
    return fleet_wait_s() + render_bound_s(renderer_config())


# --- opening ---------------------------------------------------------------------------------

def external_run_problems(run: ExternalRun) -> list[str]:
    """Why `run` cannot serve rewards: a rubric that is not valid, or asks
    what its judges can never answer (unless the run drops those openly)."""
    try:
        specs = signal_specs(run.rubric.signals)
    except RubricError as error:
        return [f"rubric {run.rubric}: {error}"]
    found = _unanswerable(run, specs)
    if found and not run.drop_unanswerable:
        how = "tick 'drop signals the judges cannot answer' on the external run"
        return [f"rubric {run.rubric}: {unanswerable_text(found, how_to_drop=how)}"]
    try:
        rubric_specs(run.rubric.signals, found)
    except RubricError as error:
        return [f"rubric {run.rubric}: {error}"]
    return yardstick_problems(run) if run.yardstick is not None else []


def _unanswerable(run: ExternalRun, specs) -> list[dict]:
    context = signal_context_for(judge=run.judge, scorer=run.scorer, snapshot=run.snapshot)
    return signals_unanswerable(specs, context)


def external_run_open(*, run: ExternalRun) -> ExternalRun:
    """Freeze the run's signals (and those it drops) and start serving."""
    if run.status == ExternalRun.Status.OPEN:
        raise ExternalError(409, f"{run} is open already")
    problems = external_run_problems(run)
    if problems:
        raise ExternalError(400, f"{run} cannot be opened", problems)
    run.signals = run.rubric.signals
    run.dropped_signals = _unanswerable(run, signal_specs(run.signals))
    run.yardstick_plan = None if run.yardstick is None else {
        "yardstick": yardstick_launched(run.yardstick),
        "references": [pk for pk, _ in references_drawn(run)]}
    run.status, run.opened = ExternalRun.Status.OPEN, timezone.now()
    run.save(update_fields=["signals", "dropped_signals", "yardstick_plan", "status",
                            "opened"])
    return run


def external_run_close(*, run: ExternalRun) -> ExternalRun:
    run.status = ExternalRun.Status.CLOSED
    run.save(update_fields=["status"])
    return run


# --- scoring a batch --------------------------------------------------------------------------

def group_seed(run_seed: int, step: int | None, group: str) -> int:
    """One render seed per (step, group): group-mates are compared on their
    code, not their seed's luck; a new seed each step."""
    digest = hashlib.sha256(f"{run_seed}:{step}:{group}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % SEED_RANGE


def external_batch_score(*, run: ExternalRun, client_key: str, step: int | None,
                         items: Sequence[Item]) -> tuple[ExternalBatch, bool]:
    """Score `items` for `run` under `client_key` (module docstring). Returns
    the batch and whether it was scored now (False: a retry answered from
    what was stored). Raises ExternalError for a refusal."""
    if not items:
        raise ExternalError(400, "The batch is empty.", ["items: at least one item"])
    if len(items) > conf.batch_max():
        raise ExternalError(400, "The batch is too large.",
                            [f"items: at most {conf.batch_max()} per request, got {len(items)}"])
    content = batch_content_sha256(step, items)
    batch, fresh = _batch_claim(run=run, client_key=client_key, step=step, size=len(items),
                                content=content)
    if not fresh:
        if batch.content_sha256 != content:
            raise ExternalError(409, "This client key names another batch.",
                                [f"client_key {client_key!r} was used for a batch of "
                                 f"{batch.size} items at step {batch.step} with other items: "
                                 "send a new key for a new batch"])
        return batch, False
    try:
        refusal = fleet_watch.refusal()
        if refusal is not None:
            raise refusal
        _batch_render_score_store(run, batch, items)
    except BaseException:
        # Free the key (a refusal, a crash), so the client's retry scores the
        # batch afresh.
        ExternalBatch.objects.filter(pk=batch.pk, status=ExternalBatch.Status.SCORING).delete()
        raise
    return batch, True


def batch_content_sha256(step: int | None, items: Sequence[Item]) -> str:
    text = json.dumps([step, [[i.prompt, i.completion, i.group] for i in items]])
    return hashlib.sha256(text.encode()).hexdigest()


def _batch_claim(*, run: ExternalRun, client_key: str, step: int | None, size: int,
                 content: str) -> tuple[ExternalBatch, bool]:
    """The batch under `client_key`, claimed now (True) or found (False)."""
    stale = timezone.now() - timedelta(seconds=stale_after_s())
    with transaction.atomic():
        locked = ExternalRun.objects.select_for_update().get(pk=run.pk)
        if locked.status != ExternalRun.Status.OPEN:
            raise ExternalError(409, f"{locked} is {locked.status}: only an open external run "
                                "serves rewards")
        found = ExternalBatch.objects.filter(run=locked, client_key=client_key).first()
        if found is not None and found.status == ExternalBatch.Status.DONE:
            return found, False
        if found is not None and found.created > stale:
            raise ExternalError(409, "This batch is still being scored.",
                                [f"client_key {client_key!r} is scoring: ask again later"],
                                retry_after=conf.retry_after_s())
        if found is not None:
            logger.warning("%s: batch %r was left scoring; taken over", locked, client_key)
            found.delete()
        scoring = ExternalBatch.objects.filter(run=locked, status=ExternalBatch.Status.SCORING,
                                               created__gt=stale).count()
        if scoring >= conf.concurrency():
            raise ExternalError(429, "Too many batches are being scored for this run.",
                                [f"{scoring} batches are scoring, the most at once is "
                                 f"{conf.concurrency()}: ask again later"],
                                retry_after=conf.retry_after_s())
        return ExternalBatch.objects.create(run=locked, client_key=client_key, step=step,
                                            size=size, content_sha256=content), True


def _batch_render_score_store(run: ExternalRun, batch: ExternalBatch,
                              items: Sequence[Item]) -> None:
    texts = [item.completion for item in items]
    groups = [item.group or f"item:{i}" for i, item in enumerate(items)]
    seeds = [group_seed(run.seed, batch.step, group) for group in groups]
    keys = [f"external:{run.pk}:{batch.pk}:{i}" for i in range(len(items))]
    outcomes = FleetRenderer(run.brush)(texts, seeds, keys).outcomes

    specs = rubric_specs(run.signals, run.dropped_signals)
    context = signal_context_for(judge=run.judge, scorer=run.scorer, snapshot=run.snapshot,
                                 seed=f"external:{run.pk}:{batch.step}")
    rollouts = [rollout_from_outcome(key=key, prompt=item.prompt, text=item.completion,
                                     outcome=outcome,
                                     group=f"external:{run.pk}:{batch.step}:{group}")
                for key, item, outcome, group in zip(keys, items, outcomes, groups, strict=True)]
    values, totals = totals_compute(specs, rollouts, context)
    gold = _yardstick_scores(run, outcomes)

    with transaction.atomic():
        rows = []
        for i, item in enumerate(items):
            sketch, render = completion_store(
                text=item.completion, prompt=item.prompt, seed=seeds[i], outcome=outcomes[i],
                meta={"external_run": run.pk, "batch": batch.pk, "step": batch.step,
                      "group": item.group, "index": i})
            rows.append(ExternalItem(batch=batch, index=i, group=item.group, prompt=item.prompt,
                                     sketch=sketch, render=render, total=totals[i],
                                     signals={spec.name: values[i][spec.key] for spec in specs},
                                     yardstick=gold[i]))
        ExternalItem.objects.bulk_create(rows)
        batch.status, batch.finished = ExternalBatch.Status.DONE, timezone.now()
        batch.save(update_fields=["status", "finished"])


def _yardstick_scores(run: ExternalRun, outcomes) -> list[float | None]:
    """The run's yardstick on each item (module docstring); Nones without one."""
    plan = run.yardstick_plan
    if not plan:
        return [None] * len(outcomes)
    try:
        return yardstick_loaded(yardstick_id=plan["yardstick"]["id"],
                                member_ids=plan["references"]).scores(outcomes)
    except Exception:  # an instrument: the batch is answered without it
        logger.exception("%s: the yardstick could not score a batch", run)
        return [None] * len(outcomes)


def batch_answer(batch: ExternalBatch) -> list[dict]:
    """Per item, in order: its total (None where unavailable), each signal,
    the gate's verdict and its render: the same words whether scored now or
    read back for a retry."""
    answers = []
    for item in batch.items.select_related("render").order_by("index"):
        render = item.render
        answers.append({
            "index": item.index, "total": item.total, "signals": item.signals,
            "gate": {"status": render.status if render else "unavailable",
                     "violations": list(render.violations or ()) if render else []},
            "render_id": item.render_id, "sketch_id": item.sketch_id})
    return answers
