"""Who broke the render? On real Chromium: a sketch that crashes its page in
every browser it runs in is `rejected` as `crashed` (a 0, never "no reward")
once two different browsers failed on it and then rendered a known-good
sketch; a pool of one browser cannot tell, so it stays `unavailable`; pages
and browsers killed from outside never make an honest sketch `crashed`.
Also the pool's hand-out desk (sketches.renderer.idle) on its own."""
from __future__ import annotations

import asyncio
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace

import pytest

from sketches import gate
from sketches.renderer import RenderPool
from sketches.renderer.config import DEFAULT_DEADLINE_S
from sketches.renderer.idle import IdleBrowsers
from sketches.rendering import OK, REJECTED, UNAVAILABLE, render_text
from tests.chromium import make_config
from tests.chromium_faults import chromium_that_fails_mid_render
from tests.sketch_files import read_sketch

pytestmark = pytest.mark.browser

LINES = read_sketch("good/lines.js")
CRASHERS = ("hostile/unbounded_memory.js", "hostile/exhaust_memory_in_draw.js")
# How long the outside killer keeps at it: longer than two tries of a render.
KILLING_FOR_S = 6.0
# About 2.5 s here: still running when its browser is killed.
LONG_RENDER = read_sketch("slow/long_compute_then_lines.js")


@pytest.fixture(scope="module")
def two_browsers():
    with RenderPool(make_config(browsers=2)) as pool:
        yield pool


class TestASketchThatCrashesEveryBrowser:
    @pytest.mark.parametrize("name", CRASHERS)
    def test_is_rejected_as_crashed_on_two_browsers_and_its_neighbours_render(
            self, two_browsers, name):
        with ThreadPoolExecutor(max_workers=3) as workers:
            crash = workers.submit(render_text, two_browsers, read_sketch(name), 0)
            time.sleep(0.2)  # the crasher first, then honest renders beside it
            neighbours = list(workers.map(lambda s: render_text(two_browsers, LINES, s),
                                          range(1, 5)))
            outcome = crash.result(timeout=120)
        assert outcome.status == REJECTED, outcome.report()
        assert gate.CRASHED in outcome.violations
        evidence = outcome.details[gate.CRASHED]
        assert "crashed on 2 attempts in 2 browsers" in evidence, evidence
        assert "browser-0" in evidence and "browser-1" in evidence
        assert "each then rendered a known-good sketch" in evidence
        assert outcome.png is None
        assert [n.status for n in neighbours] == [OK] * 4, [n.report() for n in neighbours]

    def test_a_pool_of_one_browser_has_no_second_opinion_so_it_is_unavailable(self):
        with RenderPool(make_config(browsers=1)) as pool:
            outcome = render_text(pool, read_sketch(CRASHERS[0]))
            after = render_text(pool, LINES, 1)
        assert outcome.status == UNAVAILABLE, outcome.report()
        assert outcome.violations == []
        assert "no second browser" in outcome.errors[0]
        assert outcome.errors[0].count("browser-0: the page crashed") == 2
        assert after.status == OK


@contextmanager
def pool_struck_mid_render(strike: str, after_s: float):
    """Two browsers on a Chromium whose armed strikes land while a sketch runs
    (tests/chromium_faults.py), and that Chromium. The struck render's retry runs
    LONG_RENDER again in a browser launched a moment before, beside a second
    relaunch: under CI's load on the 2 cores (a load average of 5) the 8 s test
    deadline stopped it in setup, twice (when both recordings shared one
    deadline). A timeout after a strike stays the sketch's verdict (else a
    sketch could dodge its 0 by crashing first), so the retry gets the
    production deadline."""
    with chromium_that_fails_mid_render(strike, after_s) as chromium, \
            RenderPool(replace(make_config(browsers=2, deadline_s=DEFAULT_DEADLINE_S),
                              chromium_path=str(chromium.path))) as pool:
        yield pool, chromium


class TestKilledFromOutside:
    """Each kill lands while the render is in flight: the relay in front of
    Chromium strikes only while the sketch's call into its page has not
    returned, and records each strike (a "missed" one killed nothing)."""

    def test_a_renderer_killed_mid_render_is_retried_not_blamed(self):
        """As the kernel's OOM killer would: every page's renderer process,
        while the sketch draws. The sketch did nothing wrong: it renders on
        the retry (or, should the retry be hit too, is unavailable)."""
        statuses = []
        with pool_struck_mid_render("renderers", after_s=0.5) as (pool, chromium):
            for attempt in range(1, 4):
                chromium.arm()
                outcome = render_text(pool, LONG_RENDER, 3)
                assert chromium.strikes() == ["struck renderers"] * attempt
                statuses.append(outcome.status)
                assert outcome.status in (OK, UNAVAILABLE), outcome.report()
            assert OK in statuses, statuses
            assert render_text(pool, LINES, 9).status == OK

    def test_browsers_killed_mid_render_are_relaunched_and_the_render_retried(self):
        with pool_struck_mid_render("browsers", after_s=0.5) as (pool, chromium):
            chromium.arm()
            outcome = render_text(pool, LONG_RENDER, 3)
            assert chromium.strikes() == ["struck browsers"]
            assert outcome.status == OK, outcome.report()
            assert render_text(pool, LINES, 9).status == OK

    def test_browsers_killed_again_and_again_leave_the_render_unavailable_never_crashed(self):
        """Something outside keeps killing every browser and page for a few
        seconds (retries and canaries are hit too), from a strike while the
        sketch ran: no verdict, or a render once it stops, and certainly no 0
        for the sketch."""
        stop = threading.Event()

        def keep_killing():
            while not chromium.strikes() and not stop.wait(0.01):
                pass
            ends = time.monotonic() + KILLING_FOR_S
            while time.monotonic() < ends and not stop.is_set():
                chromium.kill_browsers()
                chromium.kill_renderers()
                stop.wait(0.15)

        with pool_struck_mid_render("browsers", after_s=0.3) as (pool, chromium):
            killer = threading.Thread(target=keep_killing)
            chromium.arm()
            killer.start()
            try:
                outcome = render_text(pool, LONG_RENDER, 3)
            finally:
                stop.set()
                killer.join()
            assert chromium.strikes() == ["struck browsers"]
            assert outcome.status in (OK, UNAVAILABLE), outcome.report()
            assert gate.CRASHED not in outcome.violations
            assert render_text(pool, LINES, 9).status == OK


class TestIdleBrowsers:
    """The hand-out desk with plain strings for browsers."""

    def run(self, coro):
        return asyncio.run(coro)

    def test_a_waiter_gets_only_what_it_accepts_and_the_rest_stays_idle(self):
        async def scenario():
            desk = IdleBrowsers()
            picky = asyncio.ensure_future(desk.get(lambda b: b != "a"))
            await asyncio.sleep(0)
            desk.put("a")
            await asyncio.sleep(0)
            assert not picky.done()
            desk.put("b")
            assert await picky == "b"
            assert await desk.get() == "a"  # "a" waited idle meanwhile
        self.run(scenario())

    def test_a_waiter_at_the_front_is_served_first(self):
        async def scenario():
            desk = IdleBrowsers()
            plain = asyncio.ensure_future(desk.get())
            await asyncio.sleep(0)
            retry = asyncio.ensure_future(desk.get(first=True))
            await asyncio.sleep(0)
            desk.put("a")
            assert await retry == "a"
            desk.put("b")
            assert await plain == "b"
        self.run(scenario())

    def test_a_waiter_that_times_out_gets_none_and_loses_nothing(self):
        async def scenario():
            desk = IdleBrowsers()
            assert await desk.get(lambda b: b == "z", timeout=0.05) is None
            desk.put("a")
            assert await desk.get(timeout=0.05) == "a"
        self.run(scenario())

    def test_a_cancelled_waiter_hands_back_what_it_was_given(self):
        async def scenario():
            desk = IdleBrowsers()
            waiter = asyncio.ensure_future(desk.get())
            await asyncio.sleep(0)
            desk.put("a")  # handed over, but the waiter is cancelled before it resumes
            waiter.cancel()
            with pytest.raises(asyncio.CancelledError):
                await waiter
            assert await desk.get(timeout=0.05) == "a"
        self.run(scenario())

    def test_take_all_removes_the_idle_browsers_picked(self):
        async def scenario():
            desk = IdleBrowsers()
            for name in ("a", "b", "c"):
                desk.put(name)
            assert desk.take_all(lambda b: b != "b") == ["a", "c"]
            assert await desk.get(timeout=0.05) == "b"
            assert await desk.get(timeout=0.05) is None
        self.run(scenario())
