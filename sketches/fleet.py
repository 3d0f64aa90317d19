"""The render fleet: a batch of renders done by the render workers, one Celery
task per render on the `render` queue, for a process with no browsers of its
own (the train worker on a GPU host). Both ends live here: what a render
worker sends back (`fleet_render_execute`, run by tasks.fleet_render_task)
and the client that sends a batch and collects it (`fleet_render`).

What the client promises, and how:
- Every render comes back once, in order, under the caller's stable key
  (`run:{id}:{step}:{i}`). A render may run twice (sent again, below, or its
  message redelivered): the first result per key wins, the others are dropped.
- Results travel through Celery's result backend (Redis): one MGET every
  POLL_S reads the state of every attempt still out, and each result is
  deleted (`forget`) once read, so PNGs do not stay in Redis.
- A worker lost mid-batch (SIGKILL, a lost machine) keeps its messages
  unacknowledged, and Redis gives them back only after the visibility
  timeout (12 h, settings.py: it must outlast a training run). So the client
  does not wait for the broker: each render reports STARTED with its worker's
  name (track_started), and a render whose worker misses PING_MISSES pings in
  a row, or that has been started for longer than the renderer's own bound
  (renderer.pool.render_bound_s), is sent again under a new task id, at most
  MAX_SENDS times in all. Every message `expires`, so the lost worker's copy,
  when Redis gives it back hours later, is dropped without rendering.
- With no render worker answering for PAINTRL_FLEET_WAIT_S (no render of the
  batch starting or finishing, no worker holding one answering a ping, and,
  while renders of the batch wait in the queue behind others, no worker
  consuming the queue answering), the renders left come back `unavailable`
  with that error: no verdict and so no reward (never a zero), and never a
  hang. A batch queued behind other batches waits as long as the workers
  taking them answer: two batches of 256 on two browsers put the second's
  first render minutes behind, past the wait.

Not covered: a message lost between a worker's taking it and its STARTED
report (a few milliseconds) is not seen as lost, and its render ends
`unavailable` when the batch gives up. A render sent again whose first
worker turns out alive and finishes it anyway leaves that result unread in
the backend until CELERY_RESULT_EXPIRES.
"""
from __future__ import annotations

import base64
import logging
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

from celery import states
from celery.backends.base import BaseKeyValueStoreBackend
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from .brush_api import brush_choice_check
from .conf import fleet_wait_s, renderer_config
from .renderer import shared_pool
from .renderer.libraries import DEFAULT_BRUSH
from .renderer.pool import render_bound_s
from .rendering import UNAVAILABLE, RenderOutcome, render_text
from .selectors import renderer_version_current
from .services import ASKED  # a training step waits on these renders

log = logging.getLogger(__name__)

# The task a render is sent as (sketches.tasks, which imports this module).
FLEET_RENDER_TASK = "sketches.tasks.fleet_render_task"
# How often the client reads the backend. A render takes 1-30 s here, so a
# quarter second adds little to a batch; one MGET for all attempts out, and
# PNGs are read only once (then deleted), so polling costs Redis little.
POLL_S = 0.25
# The queue fleet renders go to (settings.CELERY_TASK_ROUTES: sketches.tasks.*).
RENDER_QUEUE = "render"
# How often the workers holding started renders are pinged. A lost worker's
# renders wait about PING_MISSES x this before being sent again; the
# renders of a step take tens of seconds to minutes, so 5 s loses little.
LIVENESS_EVERY_S = 5.0
# How long a ping waits for the workers' replies. Remote control is answered
# by the worker's consumer thread, not its render threads, so a busy thread
# pool still answers; measured here (2026-12-02, 2 cores, load 1.7, a render
# worker drawing a batch): replies in 0.004-0.016 s. 2 s leaves a loaded
# machine a hundred times that.
PING_TIMEOUT_S = 2.0
# Missed pings in a row before a worker counts as lost: one slow reply on a
# loaded machine must not double the work.
PING_MISSES = 2
# Sends of one render before it comes back `unavailable`: one lost worker is
# chance, three in a row look like a sketch that takes its worker down,
# which must not walk through the whole fleet.
MAX_SENDS = 3
# A message's life in the queue. A step's batch of 64 renders on a single
# browser, each at the 30 s deadline, takes 32 min; a lost worker's copy comes
# back after the 12 h visibility timeout, long past this, and is dropped.
# A render that expires while its batch still waits is sent again.
EXPIRES_S = 3600.0


@dataclass(frozen=True)
class FleetRender:
    """One render of a batch: its outcome, and the render worker that made it
    ("" when none did: the batch gave up on it)."""

    outcome: RenderOutcome
    worker: str


# --- the render worker's side -----------------------------------------------------------

def fleet_render_execute(*, text: str, seed: int, worker: str,
                         brush: str = DEFAULT_BRUSH) -> dict:
    """Render `text` at `seed` with p5.brush `brush` in this process's shared
    pool; the result as JSON the result backend carries (`fleet_render_unpack`
    reads it back). Writes nothing: the client stores what it keeps."""
    outcome = render_text(shared_pool(), text, seed, brush=brush)
    png = base64.b64encode(outcome.png).decode("ascii") if outcome.png else None
    return {"report": outcome.report(), "png": png, "calls": outcome.calls, "worker": worker}


def fleet_render_unpack(result: dict) -> FleetRender:
    """A render worker's result back as a FleetRender. A report with fields
    this process does not know (a worker running other code) gives no
    verdict rather than a guess."""
    worker, report = result["worker"], result["report"]
    unknown = set(report) - {f.name for f in fields(RenderOutcome)}
    if unknown:
        return FleetRender(unavailable(f"render worker {worker} sent fields this process does "
                                       f"not know: {', '.join(sorted(unknown))}"), worker)
    png = base64.b64decode(result["png"]) if result["png"] else None
    return FleetRender(RenderOutcome(**report, png=png, calls=result.get("calls")), worker)


def unavailable(error: str) -> RenderOutcome:
    """No verdict: `error` says why. Stamped with the current renderer, as
    an in-process unavailable render is, so it does not count as stale."""
    return RenderOutcome(UNAVAILABLE, [], {}, [error], renderer_version=renderer_version_current())


# --- the fleet's state ------------------------------------------------------------------

def workers_queues(expect: int | None = None) -> dict[str, set[str]]:
    """Each worker that answers now, with the queues it consumes. Waits
    PING_TIMEOUT_S, since how many will answer is not known; or, given
    `expect`, only until that many have answered (milliseconds: the count a
    caller saw last time)."""
    app = import_string(FLEET_RENDER_TASK).app
    replies = app.control.inspect(timeout=PING_TIMEOUT_S, limit=expect).active_queues() or {}
    return {name: {queue.get("name") for queue in queues or ()}
            for name, queues in replies.items()}


def render_consumers(answered: dict[str, set[str]]) -> list[str]:
    """Of workers_queues()'s answer, those consuming the render queue."""
    return sorted(name for name, queues in answered.items() if RENDER_QUEUE in queues)


def render_workers() -> list[str]:
    """The workers consuming the render queue that answer now (waits PING_TIMEOUT_S)."""
    return render_consumers(workers_queues())


def renders_asked_waiting() -> int:
    """Renders someone waits on (priority ASKED: fleet batches, a render asked
    for on a page) still in the render queue, not yet taken by a worker.
    Each priority step is a Redis list of its own (settings.py), and the
    first step (ASKED, 0) is the list named as the queue."""
    app = import_string(FLEET_RENDER_TASK).app
    with app.connection_for_read() as connection:
        return int(connection.default_channel.client.llen(RENDER_QUEUE))


# --- the client -------------------------------------------------------------------------

def fleet_render(*, texts: Sequence[str], seeds: Sequence[int], keys: Sequence[str],
                 wait_s: float | None = None, brush: str = DEFAULT_BRUSH) -> list[FleetRender]:
    """Every text rendered at its seed by the render workers, in order, each
    exactly once (module docstring), with p5.brush `brush` ("2", "1" or
    "auto": rendering.render_text); `wait_s` defaults to PAINTRL_FLEET_WAIT_S."""
    brush_choice_check(brush)  # here, not as a failure on every worker
    if not len(texts) == len(seeds) == len(keys):
        raise ValueError(f"{len(texts)} texts, {len(seeds)} seeds and {len(keys)} keys: "
                         "one of each per render")
    if len(set(keys)) != len(keys):
        raise ValueError("render keys must be unique: the first result per key is kept")
    return _Batch(texts, seeds, keys, fleet_wait_s() if wait_s is None else wait_s,
                  brush).run()


@dataclass
class _Attempt:
    """One message sent for a render."""

    task_id: str
    worker: str = ""  # from its STARTED report
    started: float | None = None  # when the client first saw it STARTED (monotonic)


@dataclass
class _Render:
    key: str
    text: str
    seed: int
    out: list[_Attempt] = field(default_factory=list)  # attempts not finished
    sends: int = 0
    result: FleetRender | None = None


class _Batch:
    """One call of fleet_render: sends, collects, sends again, gives up."""

    def __init__(self, texts, seeds, keys, wait_s: float, brush: str = DEFAULT_BRUSH):
        # By its dotted path: the tasks module imports this one (it runs
        # fleet_render_execute), and a process that has not imported the
        # tasks module yet (a train worker) finds it unregistered by name.
        task = import_string(FLEET_RENDER_TASK)
        self.task, self.app, self.wait_s, self.brush = task, task.app, wait_s, brush
        self.backend = self.app.backend
        if not isinstance(self.backend, BaseKeyValueStoreBackend):
            raise ImproperlyConfigured(
                f"the render fleet reads results by key (Redis); CELERY_RESULT_BACKEND is "
                f"{type(self.backend).__name__}")
        self.renders = [_Render(k, t, s) for t, s, k in zip(texts, seeds, keys, strict=True)]
        # Render workers run with this deployment's settings, so its deadline.
        self.bound_s = render_bound_s(renderer_config())
        self.misses: dict[str, int] = {}
        self.dropped: list[str] = []  # attempts given up on: forgotten again at the end
        self.heard = time.monotonic()  # when a render worker last answered
        # Within a short wait (a test's), pings often enough that a worker busy
        # on one long render is heard from before the wait runs out.
        self.check_every = min(LIVENESS_EVERY_S, wait_s / 2)

    def run(self) -> list[FleetRender]:
        try:
            for render in self.renders:
                self._send(render)
            check = time.monotonic() + self.check_every
            while any(r.result is None for r in self.renders):
                if self._collect():
                    self.heard = time.monotonic()
                if time.monotonic() >= check:
                    self._check_workers()
                    check = time.monotonic() + self.check_every
                if time.monotonic() - self.heard >= self.wait_s:
                    self._give_up()
                    break
                time.sleep(POLL_S)
        finally:
            self._drop([a for r in self.renders for a in r.out])
            for task_id in self.dropped:  # one may have finished since it was dropped
                self.backend.forget(task_id)
        return [r.result for r in self.renders]

    def _send(self, render: _Render) -> None:
        render.sends += 1
        task_id = f"fleet:{render.key}:{render.sends}:{uuid.uuid4().hex[:12]}"
        # The AsyncResult is not kept: a client outside a worker subscribes to
        # each result's channel until it is dropped, and results are read here
        # by MGET instead.
        self.task.apply_async((render.text, render.seed, self.brush), task_id=task_id,
                              priority=ASKED, expires=EXPIRES_S)
        render.out.append(_Attempt(task_id))

    def _collect(self) -> bool:
        """Read every attempt out; True when any started or finished."""
        out = [(r, a) for r in self.renders if r.result is None for a in r.out]
        if not out:
            return False
        raw = self.backend.mget([self.backend.get_key_for_task(a.task_id) for _, a in out])
        news = False
        for (render, attempt), value in zip(out, raw, strict=True):
            if value is None or attempt not in render.out:  # none yet, or dropped in this read
                continue
            meta = self.backend.decode_result(value)
            if meta["status"] == states.STARTED:
                if attempt.started is None:
                    attempt.started, news = time.monotonic(), True
                    attempt.worker = (meta.get("result") or {}).get("hostname", "")
            elif meta["status"] in states.READY_STATES:
                news = True
                self._finished(render, attempt, meta)
        return news

    def _finished(self, render: _Render, attempt: _Attempt, meta: dict) -> None:
        render.out.remove(attempt)
        self.backend.forget(attempt.task_id)
        if meta["status"] == states.SUCCESS:
            render.result = fleet_render_unpack(meta["result"])
            self._drop(render.out)  # the first result wins
            render.out.clear()
        elif not render.out:
            error = _failure_text(meta)
            if meta["status"] == states.REVOKED and render.sends < MAX_SENDS:
                log.warning("render %s %s; sent again", render.key, error)
                self._send(render)
            else:
                render.result = FleetRender(unavailable(f"render worker {attempt.worker or '?'}"
                                                        f": {error}"), attempt.worker)

    def _check_workers(self) -> None:
        """Ping the workers holding started renders; send again the renders of
        a worker lost (PING_MISSES) or held past the renderer's bound. Renders
        still queued behind others wait while the render workers answer."""
        self._check_queued()
        held = [(r, a) for r in self.renders if r.result is None for a in r.out if a.started]
        workers = sorted({a.worker for _, a in held if a.worker})
        replies = self.app.control.ping(destination=workers, timeout=PING_TIMEOUT_S,
                                        limit=len(workers)) if workers else []
        answered = {name for reply in replies for name in reply}
        if answered:
            self.heard = time.monotonic()
        for worker in workers:
            self.misses[worker] = 0 if worker in answered else self.misses.get(worker, 0) + 1
        for render, attempt in held:
            if self.misses.get(attempt.worker, 0) >= PING_MISSES:
                why = f"its worker {attempt.worker} missed {PING_MISSES} pings"
            elif time.monotonic() - attempt.started > self.bound_s:
                why = f"started on {attempt.worker} over {self.bound_s:.0f} s ago"
            else:
                continue
            render.out.remove(attempt)
            self._drop([attempt])
            if render.out:
                continue  # another attempt is already out
            if render.sends < MAX_SENDS:
                log.warning("render %s: %s; sent again", render.key, why)
                self._send(render)
                self.heard = time.monotonic()  # the new message gets a full wait
            else:
                render.result = FleetRender(unavailable(
                    f"sent {render.sends} times and lost each time ({why})"), "")

    def _check_queued(self) -> None:
        """Halfway through the wait with renders of the batch not yet started:
        a render worker that answers is taking the renders ahead of them, so
        the wait starts again. Asked only then, as the question takes
        PING_TIMEOUT_S."""
        queued = any(r.result is None and not any(a.started for a in r.out)
                     for r in self.renders)
        if queued and time.monotonic() - self.heard >= self.wait_s / 2 and render_workers():
            self.heard = time.monotonic()

    def _give_up(self) -> None:
        error = f"no render worker answered within {self.wait_s:g} s"
        log.warning("fleet batch: %s; %s renders unavailable", error,
                    sum(r.result is None for r in self.renders))
        for render in self.renders:
            if render.result is None:
                render.result = FleetRender(unavailable(error), "")

    def _drop(self, attempts: list[_Attempt]) -> None:
        """Revoke attempts no one will read (a worker alive drops them unrendered)."""
        if attempts:
            ids = [a.task_id for a in attempts]
            self.app.control.revoke(ids)
            self.dropped.extend(ids)


def _failure_text(meta: dict) -> str:
    """What a failed or revoked attempt's meta says, in a line."""
    result = meta.get("result") or {}
    if isinstance(result, dict) and "exc_type" in result:
        message = result.get("exc_message")
        message = " ".join(map(str, message)) if isinstance(message, list | tuple) else message
        return f"{result['exc_type']}: {message}"
    return f"{meta['status']}: {result}"
