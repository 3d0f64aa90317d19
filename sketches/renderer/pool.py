"""A pool of sandboxed browsers behind a plain, thread-safe, blocking API.

Playwright's async API runs on one event loop in a background thread; callers
(Celery tasks, management commands, benchmarks) submit work from any thread.
Concurrency comes from several browsers, because SwiftShader serialises
inside one. A browser that dies is relaunched, and the render it held is
retried once on another.

Who broke it? A render that fails twice is judged on evidence. A sketch that
crashes its page or its browser (memory exhausted past the heap cap, a
renderer fault) paints nothing; were that `unavailable` it would get no
reward, which GRPO turns into advantage 0, better than a poor picture's
negative one, and a policy would learn to crash. So a crash is the sketch's
doing (`PageRun.crashed`, the gate's `crashed`, a 0) when
  - both attempts failed while the sketch itself ran, and nothing else
    failed meanwhile (a browser found broken before the sketch started in
    it means something outside was failing: a launch, a killed process),
  - on two different browsers (two separate processes failed on this code),
  - and each of those browsers, relaunched, then renders a known-good sketch
    (CANARY): the fault followed the code, not the machine.
Anything short of that (a browser killed from outside on one attempt, a pool
of one browser with no second opinion, a browser that fails the canary too)
stays `unavailable`: no verdict, no reward, counted as such.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass

from playwright.async_api import async_playwright

from .config import RendererConfig
from .idle import IdleBrowsers
from .libraries import BRUSH_VERSIONS, DEFAULT_BRUSH
from .page_run import PageRun
from .page_server import PageServer
from .sandbox import STOP_GRACE_S, BrowserSandbox, BrowserUnavailable

log = logging.getLogger(__name__)

# Tries of a render whose page or browser failed while the sketch ran: one
# retry covers a browser or page killed from outside, and a second failure, on
# another browser, is the evidence against the sketch (module docstring); a
# sketch that kills every browser it touches is not retried for ever.
ATTEMPTS = 2
# A browser found broken before the sketch started (killed while it waited, a
# page that would not load) is no attempt of the sketch's: tried again on
# another, at most this many times more.
NOT_READY_TRIES = 2
# How long a start-up may take before the pool reports the browser missing.
START_TIMEOUT_S = 60.0
# A render waiting for an idle browser looks this often whether every browser
# keeps failing to relaunch (then it is `unavailable` rather than waiting on).
ACQUIRE_CHECK_S = 1.0
# After a failed try, the pool waits this long before the retry, then looks for
# damage elsewhere in the pool. Measured here (2026-12, every renderer of a
# two-browser pool killed mid-render): a retry started at once ran in a tab
# killed in the same instant but not yet reported, and the honest sketch was
# judged `crashed`, 1 time in 8; after 0.3 s, 0 in 14 (each ok on the retry).
CRASH_SETTLE_S = 0.3
# Past the deadline, how long a retry waits for a browser other than the one
# that failed (and the canary for its browser): another render holds a browser
# for at most its deadline plus the sandbox's stop grace (3 s), and a relaunch
# took about 1 s here; the rest is slack for a loaded machine. A retry that
# waits longer takes any browser (its failure then stays `unavailable`).
BROWSER_WAIT_MARGIN_S = 15.0
# The known-good sketch that tells a working browser from a broken one: a
# pencil line on a small canvas, about 0.1 s here.
CANARY = """
function setup() {
  createCanvas(40, 40, WEBGL);
  background(250);
  brush.set("HB", "#222", 1);
  brush.line(-15, -15, 15, 15);
}
"""


@dataclass(frozen=True)
class Attempt:
    """One try of one render that did not give a verdict."""

    browser: str  # BrowserSandbox.name: the slot, relaunched in place
    # The sketch's code was running when it failed: its page crashed, or its
    # browser died under it. False for a browser that failed before the sketch
    # started (dead when picked, storage clearing failed): never evidence.
    sketch_ran: bool
    reason: str

    def __str__(self) -> str:
        return f"{self.browser}: {self.reason}"


def render_bound_s(config: RendererConfig) -> float:
    """The longest one `RenderPool.render` can take, from the constants above,
    for a caller that must tell a slow render from a lost one (sketches/
    fleet.py): starting the pool (a worker's first render), then every try
    waiting its longest for a browser and running to the deadline and the
    sandbox's stop grace, then a canary on each of two browsers, each waited
    for as long again. Far above what renders take (a few seconds, the
    deadline for runaway code): only a stuck render gets near it."""
    tries = ATTEMPTS + NOT_READY_TRIES
    # Painting by construction, a render is the sketch's run, its second
    # recording and then the replay of its list, each within the deadline.
    runs = 1 + (1 + config.record_twice if config.paint_by_replay else 0)
    render = config.deadline_s * runs
    wait = render + BROWSER_WAIT_MARGIN_S
    return (START_TIMEOUT_S + tries * (wait + render + STOP_GRACE_S)
            + ATTEMPTS * (wait + STOP_GRACE_S))


class RendererUnavailable(RuntimeError):
    """Chromium could not be started at all."""


class RenderPool:
    def __init__(self, config: RendererConfig | None = None) -> None:
        self.config = config or RendererConfig()
        if not os.access(self.config.chromium_path, os.X_OK):
            raise RendererUnavailable(
                f"Chromium not found at {self.config.chromium_path}: install Debian's "
                "`chromium` package (apt-get install chromium; make demo/test do this as root) "
                "or set PAINTRL_CHROMIUM_PATH."
            )
        self._server = PageServer(self.config)
        self.library_versions = self._server.library_versions
        # {p5.brush version: {library: version}} of every pair it renders with.
        self.libraries = self._server.libraries
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever,
                                        name="paintrl-render-pool", daemon=True)
        self._thread.start()
        self._closed = False
        self._stopping = False
        try:
            self._call(self._start(), timeout=START_TIMEOUT_S)
        except Exception as exc:
            self.close()
            raise RendererUnavailable(f"could not start Chromium: {exc}") from exc

    # -- public, blocking -------------------------------------------------

    def render(self, code: str, seed: int = 0, brush: str = DEFAULT_BRUSH,
               deadline_s: float | None = None) -> PageRun:
        """`brush`: the p5.brush version (libraries.BRUSH_VERSIONS) to render with.
        `deadline_s`: this render's deadline instead of the configuration's
        (an import's, sketches/importing/conf.py)."""
        if brush not in BRUSH_VERSIONS:
            raise ValueError(f"unknown p5.brush version {brush!r}: "
                             f"one of {', '.join(BRUSH_VERSIONS)}")
        if deadline_s is not None and not deadline_s > 0:
            raise ValueError(f"deadline_s must be positive, got {deadline_s}")
        return self._call(self._render(code, seed, brush,
                                       deadline_s or self.config.deadline_s))

    def close(self) -> None:
        if self._closed:
            return
        try:
            self._call(self._stop(), timeout=30)
        except Exception:  # noqa: BLE001 - closing must not raise
            log.exception("render pool did not stop cleanly")
        self._closed = True
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=5)
        self._server.close()

    def __enter__(self) -> RenderPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- event-loop side --------------------------------------------------

    def _submit(self, coro) -> Future:
        if self._closed:
            coro.close()
            raise RendererUnavailable("the render pool is closed")
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    def _call(self, coro, timeout: float | None = None):
        return self._submit(coro).result(timeout)

    async def _start(self) -> None:
        self._playwright = await async_playwright().start()
        self._idle: IdleBrowsers[BrowserSandbox] = IdleBrowsers()
        self._sandboxes = [
            BrowserSandbox(self._playwright, self.config, self._server, f"browser-{i}")
            for i in range(self.config.browsers)
        ]
        await asyncio.gather(*(s.prepare() for s in self._sandboxes))
        for sandbox in self._sandboxes:
            self._idle.put(sandbox)
        self._recycling: set[asyncio.Task] = set()
        # Browsers whose relaunch is failing now: how many times in a row, and
        # the last error (_acquire stops waiting when every one keeps failing).
        self._failures: dict[str, tuple[int, str]] = {}

    async def _render(self, code: str, seed: int, brush: str, deadline_s: float) -> PageRun:
        started = time.monotonic()
        self._mend_idle()  # damage from before this render is no evidence about it
        failed: list[Attempt] = []
        for _try in range(ATTEMPTS + NOT_READY_TRIES):
            crashes = [a for a in failed if a.sketch_ran]
            if len(crashes) >= ATTEMPTS:
                break
            if failed:
                # Whatever killed the last try from outside has hit the rest
                # of the pool by now too: that damage is seen before the retry.
                await asyncio.sleep(CRASH_SETTLE_S)
                failed += [Attempt(name, False, "broke while the render was retried")
                           for name in self._mend_idle()]
            sandbox = await self._acquire(avoid={a.browser for a in crashes})
            if sandbox is None:
                failed.append(Attempt("pool", False, "no browser could be started: " + "; ".join(
                    f"{name}: {error}" for name, (_, error) in sorted(self._failures.items()))))
                break
            try:
                if not sandbox.ready:
                    raise BrowserUnavailable(f"browser {sandbox.name} broke before the "
                                             "sketch started in it")
                run = await sandbox.render(code, seed, brush, deadline_s)
            except BrowserUnavailable as exc:
                failed.append(Attempt(sandbox.name, exc.sketch_ran, str(exc)))
                log.warning("render retried after browser failure: %s", exc)
                continue
            finally:
                self._release(sandbox)
            if not run.crashed:
                return run
            failed.append(Attempt(sandbox.name, True, "the page crashed"))
            log.warning("render retried after its page crashed in %s", sandbox.name)
        return await self._judge_failures(failed, started)

    def _mend_idle(self) -> list[str]:
        """Recycle the idle browsers that broke while they waited (a tab or
        the browser killed from outside); their names."""
        broken = self._idle.take_all(lambda s: not s.ready)
        for sandbox in broken:
            self._release(sandbox)
        return [s.name for s in broken]

    async def _acquire(self, avoid: set[str]) -> BrowserSandbox | None:
        """An idle browser; for a retry, one that has not failed this render
        yet if the pool has one (waiting at the front of the line, at most
        the deadline and BROWSER_WAIT_MARGIN_S), else any. None once every
        browser of the pool has failed to relaunch again since this wait
        began: a queue of renders may wait long for a working browser, but
        never for ever on dead ones (one back-off round, at most 10 s)."""
        if avoid and len(self._sandboxes) > len(avoid):
            other = await self._idle.get(lambda s: s.name not in avoid, first=True,
                                         timeout=self._browser_wait_s)
            if other is not None:
                return other
        before = {name: count for name, (count, _) in self._failures.items()}
        while True:
            sandbox = await self._idle.get(first=bool(avoid), timeout=ACQUIRE_CHECK_S)
            if sandbox is not None:
                return sandbox
            if all(self._failures.get(s.name, (0, ""))[0] > before.get(s.name, 0)
                   for s in self._sandboxes):
                return None

    def _release(self, sandbox: BrowserSandbox) -> None:
        task = asyncio.ensure_future(self._recycle(sandbox))
        self._recycling.add(task)
        task.add_done_callback(self._recycling.discard)

    @property
    def _browser_wait_s(self) -> float:
        return self.config.deadline_s + BROWSER_WAIT_MARGIN_S

    async def _judge_failures(self, failed: list[Attempt], started: float) -> PageRun:
        """Every try failed: the sketch's crash (module docstring) or no verdict."""
        attempts = "; ".join(map(str, failed)) or "no attempt made"
        browsers = sorted({a.browser for a in failed})
        if not all(a.sketch_ran for a in failed):
            # A browser broke while this sketch was not running in it: something
            # outside was failing meanwhile, so no crash here proves anything.
            return PageRun(unavailable=attempts, elapsed_ms=self._since(started))
        if len(browsers) < ATTEMPTS:
            return PageRun(unavailable=f"{attempts}; no second browser to tell the sketch's "
                                       "fault from the browser's", elapsed_ms=self._since(started))
        broken = [name for name in browsers if not await self._renders_canary(name)]
        if broken:
            return PageRun(unavailable=f"{attempts}; then {', '.join(broken)} failed a "
                                       "known-good sketch too", elapsed_ms=self._since(started))
        return PageRun(crashed=True, elapsed_ms=self._since(started), crash_evidence=(
            f"crashed on {len(failed)} attempts in {len(browsers)} browsers ({attempts}); "
            "each then rendered a known-good sketch"))

    @staticmethod
    def _since(started: float) -> int:
        return round((time.monotonic() - started) * 1000)

    async def _renders_canary(self, name: str) -> bool:
        """Does browser `name`, once recycled, render CANARY to the end?"""
        sandbox = await self._idle.get(lambda s: s.name == name, first=True,
                                       timeout=self._browser_wait_s)
        if sandbox is None:
            return False
        try:
            run = await sandbox.render(CANARY, 0)
        except BrowserUnavailable:
            return False
        finally:
            self._release(sandbox)
        return not (run.crashed or run.timed_out) and run.snapshot.get("phase") == "done"

    async def _recycle(self, sandbox: BrowserSandbox) -> None:
        """Load the next page (relaunching a dead browser) and hand the
        sandbox back; retry with back-off rather than lose a browser. While
        it keeps failing, self._failures has its count and last error."""
        delay = 0.5
        while not self._stopping:
            try:
                await sandbox.prepare()
                self._failures.pop(sandbox.name, None)
                break
            except Exception as exc:  # noqa: BLE001 - any failure means relaunch
                log.warning("%s failed to prepare (%s); relaunching", sandbox.name, exc)
                count, _ = self._failures.get(sandbox.name, (0, ""))
                self._failures[sandbox.name] = (count + 1, str(exc).splitlines()[0][:300])
                await sandbox.kill()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
        self._idle.put(sandbox)

    async def _stop(self) -> None:
        self._stopping = True
        for task in list(getattr(self, "_recycling", ())):
            task.cancel()
        for sandbox in getattr(self, "_sandboxes", ()):
            await sandbox.kill()
        if getattr(self, "_playwright", None) is not None:
            await self._playwright.stop()

