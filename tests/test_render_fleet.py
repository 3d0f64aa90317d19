"""The render fleet (sketches/fleet.py) with the real parts: render workers
as the Procfile runs them on the test Redis, real Chromium, and the client
in this process. A batch comes back as the in-process renderer judges it,
with each render's worker named; a worker SIGKILLed mid-batch has its renders
redone by the other, each key coming back once; with no worker at all the
batch comes back `unavailable` after the bounded wait, never hanging; and a
real GRPO run on a real train worker with renders="fleet" renders on the
render worker, not in its own browsers, storing each rollout once.

Each test counts outcomes and where they came from, never the time taken."""
from __future__ import annotations

import json
import threading

import psutil
import pytest
import redis

from sketches.fleet import fleet_render, render_workers, renders_asked_waiting
from sketches.models import Render
from sketches.rendering import render_text
from tests.chromium import TEST_DEADLINE_S
from tests.run_data import fresh, make_run, train_worker_start, worker_stop
from tests.sketch_files import read_sketch
from tests.workers import (
    TEST_REDIS_URL,
    broker_use,
    render_worker_name,
    render_worker_start,
    render_worker_stop,
    wait_for,
    worker_kill,
)
from training.models import Rollout, TrainingRun, TrainingStep
from training.policy.chat import assistant_text
from training.runs import services

pytestmark = [pytest.mark.browser, pytest.mark.worker]

# The workers judge with the deadline the in-process test pool uses.
WORKER_ENV = {"PAINTRL_RENDER_DEADLINE_S": str(TEST_DEADLINE_S)}


def results_left() -> list[bytes]:
    """Fleet results the backend still holds (the client forgets what it reads)."""
    return redis.Redis.from_url(TEST_REDIS_URL).keys("celery-task-meta-fleet:*")


def started_on(worker: str) -> set[str]:
    """Task ids the backend shows STARTED on `worker` now."""
    db = redis.Redis.from_url(TEST_REDIS_URL)
    held = set()
    for key in db.keys("celery-task-meta-fleet:*"):
        meta = json.loads(db.get(key) or "null")
        if meta and meta["status"] == "STARTED" and meta["result"]["hostname"] == worker:
            held.add(meta["task_id"])
    return held


def key_of(task_id: str) -> str:
    """The render key in a fleet task id (fleet:{key}:{send}:{random})."""
    return task_id.removeprefix("fleet:").rsplit(":", 2)[0]


@pytest.fixture
def fleet_broker(media, transactional_db):
    broker_use()
    return media


class TestABatchOnARenderWorker:
    def test_outcomes_match_the_in_process_renderer_and_name_their_worker(
            self, fleet_broker, browser_pool):
        texts = [assistant_text(read_sketch("good/lines.js")),
                 assistant_text(read_sketch("good/noloop_in_setup.js")),
                 assistant_text(read_sketch("hostile/blank_background_only.js")),
                 assistant_text(read_sketch("hostile/eval_unknown_brush_method.js")),
                 read_sketch("hostile/chat_reply_no_code.txt")]
        seeds = [3, 4, 5, 6, 7]
        worker = render_worker_start(TEST_REDIS_URL, fleet_broker, env=WORKER_ENV, name="one")
        try:
            got = fleet_render(texts=texts, seeds=seeds, keys=[f"t:{i}" for i in range(5)])
        finally:
            render_worker_stop(worker)
        expected = [render_text(browser_pool, text, seed)
                    for text, seed in zip(texts, seeds, strict=True)]
        assert [(r.outcome.status, r.outcome.violations) for r in got] == [
            (o.status, o.violations) for o in expected]
        assert [r.outcome.status for r in got] == ["ok", "ok", "rejected", "rejected",
                                                   "rejected"]
        assert all(r.outcome.png.startswith(b"\x89PNG") for r in got[:4])
        assert got[4].outcome.png is None  # no code, no page
        assert all(r.outcome.renderer_version == expected[0].renderer_version for r in got)
        # The text with no sketch is rejected on the worker too: every render has one.
        assert {r.worker for r in got} == {render_worker_name("one")}
        assert results_left() == []


class TestAWorkerKilledMidBatch:
    BATCH = 8

    def test_its_renders_are_redone_by_the_other_and_each_key_comes_back_once(
            self, fleet_broker):
        lines = assistant_text(read_sketch("good/lines.js"))
        keys = [f"k:{i}" for i in range(self.BATCH)]
        doomed, survivor = render_worker_name("doomed"), render_worker_name("survivor")
        first = render_worker_start(TEST_REDIS_URL, fleet_broker, env=WORKER_ENV, browsers=1,
                                    name="doomed")
        second = render_worker_start(TEST_REDIS_URL, fleet_broker, env=WORKER_ENV, browsers=1,
                                     name="survivor")
        got: list = []
        batch = threading.Thread(target=lambda: got.extend(fleet_render(
            texts=[lines] * self.BATCH, seeds=list(range(self.BATCH)), keys=keys)))
        try:
            batch.start()
            wait_for(lambda: started_on(doomed), timeout=180, worker=first)
            worker_kill(first)
            # Held when it died: still STARTED, now that nothing can finish them.
            lost = {key_of(task_id) for task_id in started_on(doomed)}
            assert lost, "the doomed worker finished its render before the kill: lengthen it"
            batch.join(timeout=300)
            assert not batch.is_alive(), "the batch never came back"
        finally:
            render_worker_stop(first)
            render_worker_stop(second)
        assert len(got) == self.BATCH  # one per key, in order
        assert [r.outcome.status for r in got] == ["ok"] * self.BATCH
        by_key = dict(zip(keys, got, strict=True))
        assert {by_key[key].worker for key in lost} == {survivor}  # redone by the other
        assert {r.worker for r in got} <= {doomed, survivor}
        # The killed worker's message waits unacknowledged (Redis gives it back
        # after the visibility timeout) and then expires unrendered.
        db = redis.Redis.from_url(TEST_REDIS_URL)
        [waiting] = db.hvals("unacked")
        assert json.loads(waiting)[0]["headers"]["expires"]
        assert results_left() == []
        print(f"\nfleet worker kill: {self.BATCH} renders, {len(lost)} lost with the worker "
              f"and redone; {sum(r.worker == doomed for r in got)} kept from it, "
              f"{sum(r.worker == survivor for r in got)} from the survivor; each key once")


class TestABatchQueuedBehindAnother:
    AHEAD = 6

    def test_it_waits_while_the_worker_takes_the_renders_ahead(self, fleet_broker, settings):
        """One browser, a batch ahead that outlasts the wait: the batch behind
        it starts no render within the wait, yet its worker is alive and busy,
        so it is rendered, not given up on."""
        settings.PAINTRL_FLEET_WAIT_S = 3.0
        lines = assistant_text(read_sketch("good/lines.js"))
        worker = render_worker_start(TEST_REDIS_URL, fleet_broker, env=WORKER_ENV, browsers=1,
                                     name="busy")
        ahead: list = []
        try:
            wait_for(lambda: render_worker_name("busy") in render_workers(), timeout=90,
                     worker=worker)
            first = threading.Thread(target=lambda: ahead.extend(fleet_render(
                texts=[lines] * self.AHEAD, seeds=list(range(self.AHEAD)),
                keys=[f"ahead:{i}" for i in range(self.AHEAD)])))
            first.start()
            wait_for(lambda: renders_asked_waiting() >= self.AHEAD - 1, timeout=30)
            waiting = renders_asked_waiting()
            behind = fleet_render(texts=[lines], seeds=[9], keys=["behind"])
            first.join(timeout=300)
        finally:
            render_worker_stop(worker)
        assert [r.outcome.status for r in ahead] == ["ok"] * self.AHEAD
        assert [r.outcome.status for r in behind] == ["ok"]
        assert renders_asked_waiting() == 0
        print(f"\nqueued behind {waiting} renders with a {settings.PAINTRL_FLEET_WAIT_S:g} s "
              "wait: rendered")


class TestNoWorkerLeft:
    def test_the_batch_comes_back_unavailable_after_the_bounded_wait(self, fleet_broker,
                                                                    settings):
        settings.PAINTRL_FLEET_WAIT_S = 1.5
        lines = assistant_text(read_sketch("good/lines.js"))
        got = fleet_render(texts=[lines] * 3, seeds=[0, 1, 2], keys=["a", "b", "c"])
        assert [r.outcome.status for r in got] == ["unavailable"] * 3
        assert [r.outcome.errors for r in got] == [
            ["no render worker answered within 1.5 s"]] * 3
        assert [r.worker for r in got] == ["", "", ""]
        assert all(r.outcome.png is None for r in got)
        assert results_left() == []

    def test_keys_must_be_unique(self, fleet_broker):
        with pytest.raises(ValueError, match="unique"):
            fleet_render(texts=["a", "b"], seeds=[0, 0], keys=["k", "k"])


class TestARunOnTheFleet:
    def test_every_rollout_is_stored_once_and_each_step_names_its_render_worker(
            self, fleet_broker, settings, test_policy):
        train, generator = train_worker_start(fleet_broker, settings)  # empties the broker
        renderer = render_worker_start(TEST_REDIS_URL, fleet_broker, env=WORKER_ENV,
                                       browsers=1, name="fleet")
        try:
            run = services.run_launch(run=make_run(test_policy, max_steps=2, renders="fleet"))
            wait_for(lambda: fresh(run).is_finished, timeout=300, worker=train)
            browsers = [p for p in psutil.Process(train.pid).children(recursive=True)
                        if "chrom" in p.name()]
        finally:
            render_worker_stop(renderer)
            worker_stop(generator)
        run = fresh(run)
        assert run.status == TrainingRun.Status.DONE, run.error
        assert run.launched_config["grpo"]["renders"] == "fleet"
        assert browsers == []  # the train worker rendered nothing itself
        steps = list(TrainingStep.objects.filter(run=run))
        # TINY: one prompt of two generations a step, both on the one render worker.
        assert [(s.step, s.render_workers, s.no_total) for s in steps] == [
            (1, {render_worker_name("fleet"): 2}, 0), (2, {render_worker_name("fleet"): 2}, 0)]
        rollouts = list(Rollout.objects.filter(run=run).select_related("render"))
        assert sorted((r.step, r.group, r.index) for r in rollouts) == [
            (1, 0, 0), (1, 0, 1), (2, 0, 0), (2, 0, 1)]
        assert all(r.render.status in ("ok", "rejected") and r.total is not None
                   for r in rollouts)
        assert Render.objects.filter(sketch__origin="rollout").count() == 4  # each once
        assert results_left() == []
