"""One sandboxed Chromium: renders one sketch at a time, each in a fresh
document that was loaded before the sketch arrived (so page start-up is off
the critical path), and tells a sketch's failure from the browser's.

Each render gets a new document: a tab is navigated to a fresh copy of the
sandbox page, which discards every global, timer and listener the previous
sketch left (the back-forward cache is off, so nothing lingers). Navigating
measured about 90 ms here against about 400 ms for a new tab, so a tab is
replaced only after a crash, a hang, a navigation away, or TAB_RENDERS uses.
Each browser keeps TABS tabs, so one is loaded and waiting while the last
one used reloads: back-to-back renders then never wait for a page load.
"""
from __future__ import annotations

import asyncio
import base64
import json
import logging
import time

from playwright.async_api import Browser, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from . import os_sandbox, record
from .config import SANDBOX_JS_MAX_OPT, RendererConfig
from .libraries import DEFAULT_BRUSH
from .page_run import PageRun
from .page_server import PageServer
from .paint import flatten_on_white

log = logging.getLogger(__name__)

# Readiness is polled with explicit evaluate calls (rAF-based waits stall on
# background pages); one evaluate costs about 1 ms, so 10 ms polls add little.
POLL_S = 0.01
# A page whose JavaScript is stuck may not close; past this the whole browser
# is killed and relaunched. A looping page closed in 0.6 s here.
CLOSE_TIMEOUT_S = 3.0
# Renders per tab before it is replaced, bounding what a renderer process can
# accumulate (library leaks, caches) over a long batch.
TAB_RENDERS = 100
# Two tabs: one renders while the other reloads (measured: waiting for the
# reload made the median per-render overhead 335 ms with one tab).
TABS = 2
PNG_DATA_URL = "data:image/png;base64,"
# What a render may leave on the page's origin (not the HTTP or shader caches,
# which keep p5 compiled across renders).
STORAGE_TYPES = "cookies,local_storage,indexeddb,cache_storage,file_systems,service_workers"
# After the sketch finishes, the page is given this long before its account is
# read again: a form submit, a javascript: URL, a refused frame or stylesheet
# report back in a later task (Content-Security-Policy violation events, the
# navigation), which a snapshot taken in the finishing task missed about 1 run
# in 5. Measured here (2026-11-30): with 50 ms, 15 of 15 runs each of a form
# submit, a refused frame, a javascript: URL, a setTimeout string, an @import
# and an SVG image were flagged.
SETTLE_S = 0.05
# Past the deadline, how long the sandbox may take to stop the sketch's script
# (Runtime.terminateExecution) and read what the page has so far; the verdict
# never waits longer than deadline + this. Measured here (2 cores shared with
# other tests, load 3-7, 2026-12-01), from the deadline to the verdict: an
# endless loop in setup() or draw() 0.01-0.25 s; the paced slow painting in
# tests/sketches/slow 0.23-0.39 s; a setup() stopped 2,000-6,500 lines into a
# 100,000-line pencil drawing 1.1-3.1 s (1 of 12 ran out: report kept, picture
# lost), nearly all of it SwiftShader drawing the strokes queued before the
# stop, which reading the canvas waits for.
STOP_GRACE_S = 3.0
# While the page has not answered, the script is terminated again this often: a
# timer the sketch set may have started another loop once the first was
# stopped. A report takes 3-30 ms to read from a stopped page here, so a quarter
# second rarely cuts off the harness's own read (which is then retried).
RETERMINATE_S = 0.25


class BrowserUnavailable(Exception):
    """The browser failed; the render may be retried. `sketch_ran`: it failed
    while the sketch's code ran (the pool weighs that as evidence against
    the sketch), not before."""

    def __init__(self, message: str, *, sketch_ran: bool = False) -> None:
        super().__init__(message)
        self.sketch_ran = sketch_ran


def js_flags(config: RendererConfig) -> str:
    """V8's flags for the sandbox's pages: their heap, and their top tier."""
    flags = [f"--max-old-space-size={config.js_heap_mb}"]
    if not config.js_turbofan:
        flags.append(f"--max-opt={SANDBOX_JS_MAX_OPT}")
    return " ".join(flags)


def chromium_args(config: RendererConfig, server: PageServer) -> list[str]:
    return [
        # Software WebGL: headless Chromium has no GPU here.
        "--use-angle=swiftshader",
        "--enable-unsafe-swiftshader",
        # Everything but the page server goes to a dead proxy; names never resolve.
        "--proxy-server=http://127.0.0.1:9",
        f"--proxy-bypass-list=<-loopback>;127.0.0.1:{server.port}",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--disable-features=BackForwardCache",
        "--no-first-run",
        "--mute-audio",
        f"--js-flags={js_flags(config)}",
    ] + ([
        # One Vulkan pipeline cache for the whole GPU process instead of one
        # per WebGL context. Every render has a new document, so a new context
        # whose programs SwiftShader compiles again; with the shared cache
        # much of that work is found done. Measured here (2026-12-01, one
        # browser each, side by side): a six-line pencil sketch drew in 255 ms
        # against 403. It is a cache: two renders of the same code differ
        # with it no more than two renders in one browser without it do.
        "--enable-angle-features=preferGlobalPipelineCache",
    ] if config.shared_pipeline_cache else [])


class _TabWatch:
    """Listeners on one tab, recording what its document did that we can see
    from outside it."""

    def __init__(self, page: Page, server: PageServer) -> None:
        self.crashed = False
        self._origin = server.origin
        self.reset()
        page.on("request", self._on_request)
        page.on("dialog", self._on_dialog)
        page.on("popup", self._on_popup)
        page.on("crash", self._on_crash)
        # Seen from outside, so a sketch cannot hide it: a child frame (even an
        # about:blank one) is a fresh window without the harness's traps.
        page.on("frameattached", self._on_frame)
        # A javascript: URL or document.open() replaces the document without
        # any request; the main frame committing anything new is a navigation.
        page.on("framenavigated", self._on_navigated)
        page.on("pageerror", lambda err: self.errors.append(str(err)[:500]))

    def reset(self) -> None:
        """Forget the previous document; watch the next once it has loaded."""
        self.observed: dict[str, str] = {}
        self.errors: list[str] = []
        self.loaded = False

    @property
    def left_page(self) -> bool:
        return "navigation" in self.observed

    def _observe(self, name: str, detail: str) -> None:
        self.observed.setdefault(name, detail[:300])

    def _on_request(self, request) -> None:
        if not self.loaded:
            return
        if request.is_navigation_request():
            self._observe("navigation", request.url)
        elif not request.url.startswith(self._origin + "/lib/"):
            self._observe("network_access", request.url)

    def _on_dialog(self, dialog) -> None:
        self._observe("dialog", f"{dialog.type}: {dialog.message}")
        asyncio.ensure_future(dialog.dismiss())

    def _on_popup(self, popup) -> None:
        self._observe("popup", popup.url)
        asyncio.ensure_future(popup.close())

    def _on_frame(self, frame) -> None:
        if self.loaded:
            self._observe("frame", frame.url or "about:blank")

    def _on_navigated(self, frame) -> None:
        if self.loaded and frame.parent_frame is None:
            self._observe("navigation", frame.url or "a replaced document")

    def _on_crash(self, _page) -> None:
        self.crashed = True


class _Tab:
    """One tab and its watch; `loaded` means a fresh document waits in it."""

    def __init__(self, page: Page, server: PageServer) -> None:
        self.page = page
        self.watch = _TabWatch(page, server)
        self.renders = 0
        self.loaded = False
        self.brush = DEFAULT_BRUSH  # the p5.brush version of the page loaded
        self.loading: asyncio.Task | None = None
        self.cdp = None  # a DevTools session on this tab (storage clearing)
        # Stuck in a loop or no longer our document: closed before reuse.
        self.discarded = False

    @property
    def spent(self) -> bool:
        return (self.discarded or self.watch.crashed or self.page.is_closed()
                or self.renders >= TAB_RENDERS)

    async def load(self, server: PageServer, brush: str = DEFAULT_BRUSH) -> None:
        self.watch.reset()
        await self.page.goto(server.page_url_for(brush), wait_until="load")
        self.brush = brush
        self.watch.loaded = True
        self.loaded = True


class BrowserSandbox:
    def __init__(self, playwright: Playwright, config: RendererConfig,
                 server: PageServer, name: str) -> None:
        self._playwright = playwright
        self._config = config
        self._server = server
        self.name = name
        self._browser: Browser | None = None
        self._context = None
        self._tabs: list[_Tab] = []
        # The page that paints recorded lists (paint by construction), and
        # the canvas size of the instance it keeps warm (None: load it afresh).
        self._replay_page: Page | None = None
        self._replay_kept: tuple[float, float, float] | None = None

    @property
    def alive(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    @property
    def ready(self) -> bool:
        """A render would start now: the browser runs and a fresh tab waits."""
        return self.alive and any(t.loaded and not t.spent for t in self._tabs)

    async def prepare(self) -> None:
        """Make sure a browser runs, every tab has a fresh document loaded or
        loading, and return once one is ready."""
        # Spent tabs first: closing a stuck one can cost the whole browser.
        for tab in [t for t in self._tabs if t.spent and t.loading is None]:
            await self._close_tab(tab)
        if not self.alive:
            await self._launch()
        while len(self._tabs) < TABS:
            tab = _Tab(await self._context.new_page(), self._server)
            tab.cdp = await self._context.new_cdp_session(tab.page)
            self._tabs.append(tab)
        for tab in self._tabs:
            if not tab.loaded and tab.loading is None:
                tab.loading = asyncio.ensure_future(self._load(tab))
        if not any(t.loaded for t in self._tabs):
            pending = [t.loading for t in self._tabs if t.loading is not None]
            done, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # a failed load raises here; the pool relaunches

    async def _load(self, tab: _Tab) -> None:
        try:
            await tab.load(self._server)
        finally:
            tab.loading = None

    async def _launch(self) -> None:
        await self.kill()
        # With Chromium's own sandbox on, as an unprivileged user if we are root.
        self._browser = await os_sandbox.launch(
            self._playwright.chromium, self._config,
            args=chromium_args(self._config, self._server),
            headless=True,
        )
        side = self._config.max_canvas_side
        self._context = await self._browser.new_context(
            viewport={"width": self._config.viewport_side,
                      "height": self._config.viewport_side},
            screen={"width": side, "height": side},
            device_scale_factor=1,
            # The same time zone and locale on every worker (dates and
            # number formats a sketch reads paint alike everywhere).
            timezone_id="UTC",
            locale="en-US",
            accept_downloads=False,
            service_workers="block",
        )

    async def kill(self) -> None:
        browser, self._browser, self._context = self._browser, None, None
        self._replay_page = None
        for tab in self._tabs:
            if tab.loading is not None:
                tab.loading.cancel()
        self._tabs = []
        if browser is not None:
            try:
                await asyncio.wait_for(browser.close(), CLOSE_TIMEOUT_S)
            except (TimeoutError, PlaywrightError):
                log.warning("browser %s did not close cleanly; abandoning it", self.name)

    async def render(self, code: str, seed: int, brush: str = DEFAULT_BRUSH,
                     deadline_s: float | None = None) -> PageRun:
        """Tabs wait with the default version's page loaded; a sketch for
        another version loads its page first (a navigation, about 90 ms).
        `deadline_s`: each recording's and the replay's (the configuration's
        by default)."""
        deadline_s = deadline_s or self._config.deadline_s
        # Not a tab whose renderer died while it waited: no sketch's doing.
        tab = next((t for t in self._tabs if t.loaded and not t.spent), None)
        if tab is None or not self.alive:
            raise BrowserUnavailable(f"browser {self.name} is not ready")
        page, watch = tab.page, tab.watch
        tab.loaded = False  # this document is spent, whatever happens next
        tab.renders += 1
        started = time.monotonic()
        ran_at = None
        recording = None
        snapshot: dict = {}
        png = None
        timed_out = stopped = False
        try:
            async with asyncio.timeout(deadline_s) as clock:
                if tab.brush != brush:
                    await tab.load(self._server, brush)
                    tab.loaded = False  # used by this render, like the one it replaced
                await self._clear_storage(tab)
                # The page that renders is the one shown: a background tab
                # gets no animation frames, so a sketch that draws over 12
                # frames ran to the deadline at frame 10 every other render.
                await page.bring_to_front()
                ran_at = time.monotonic()
                snapshot = await self._run(page, watch, code, seed)
                finished_at = time.monotonic()
                if snapshot.get("width", 0) > 0 and not (watch.crashed or watch.left_page):
                    if self._config.paint_by_replay:
                        recording = await page.evaluate("__paintrl.record()")
                    else:
                        png = await self._capture(page, snapshot)
                snapshot = await self._settle(page, watch, snapshot, finished_at)
                if recording is not None and self._config.record_twice:
                    # The second recording has a deadline of its own: sharing
                    # the first's halved the time a sketch may take (a 2.5 s
                    # setup stopped at an 8 s deadline on a loaded machine).
                    clock.reschedule(asyncio.get_running_loop().time() + deadline_s)
                    ran_at = time.monotonic()
                    recording = await self._record_again(tab, code, seed, brush, recording)
        except TimeoutError:
            timed_out = True
            # The page's clock stops only when the sketch finishes: its drawing
            # time so far is the time from run() to the deadline.
            draw_ms = (time.monotonic() - ran_at) * 1000 if ran_at is not None else 0.0
            read = await self._read_stopped(tab, self._config.paint_by_replay)
            if read is not None:
                stopped = True
                snapshot, png, recording = read
                if snapshot.get("phase") != "done":
                    snapshot["drawMs"] = draw_ms
        except PlaywrightError as exc:
            if not self.alive:
                raise BrowserUnavailable(f"browser {self.name} failed: {exc}",
                                         sketch_ran=ran_at is not None) from exc
            if not (watch.crashed or watch.left_page):
                watch.errors.append(f"renderer: {str(exc).splitlines()[0]}")
        painted = None
        if recording is not None and not (watch.crashed or watch.left_page):
            png, painted = await self._paint(recording, seed, brush, watch, deadline_s)
        if timed_out or watch.left_page:
            # The document may be stuck in a loop, or is not ours any more.
            # The pool closes it while recycling this browser (prepare()), so
            # the verdict does not wait for that: a page flooding the
            # DevTools pipe took over 3 s to close, then the browser was killed.
            tab.discarded = True
        return PageRun(
            snapshot=snapshot,
            png=png,
            observed=dict(watch.observed),
            page_errors=tuple(watch.errors),
            timed_out=timed_out,
            stopped_at_deadline=stopped,
            crashed=watch.crashed,
            elapsed_ms=round((time.monotonic() - started) * 1000),
            recording=painted,
        )

    async def _record_again(self, tab: _Tab, code: str, seed: int, brush: str,
                            first: str) -> str | None:
        """The same code and seed recorded again in a fresh document: `first`
        when the two lists agree; else None, with the sketch named
        `nondeterministic` (it painted by the real clock, the order of timers,
        the garbage collector or anything else the seed does not fix, and
        another worker would paint another picture). What the first run saw
        from outside (its violations and errors) is kept; the second run is
        only asked for its list."""
        watch = tab.watch
        observed, errors = dict(watch.observed), list(watch.errors)
        await tab.load(self._server, brush)
        tab.loaded = False
        await self._clear_storage(tab)
        await self._run(tab.page, watch, code, seed)
        second = None
        if not (watch.crashed or watch.left_page):
            second = await tab.page.evaluate("__paintrl.record()")
        crashed = watch.crashed
        watch.observed, watch.errors = observed, errors
        watch.crashed = crashed
        if second == first:
            return first
        watch.observed.setdefault(record.NONDETERMINISTIC, record.first_difference(first, second))
        return None

    async def _paint(self, raw: str, seed: int, brush: str, watch: _TabWatch,
                     deadline_s: float) -> tuple[bytes | None, str | None]:
        """The recorded list painted in the replay page (paint by
        construction): checked first (record.check), then painted by the real
        library in a fresh document that runs no sketch code. A list that is
        refused, or whose painting overruns the deadline, gets its violation
        in `watch.observed` (seen from outside the sketch's page) and no
        picture; a browser whose painting overran is replaced, never waited on.
        Answers the picture and the checked list it was painted from."""
        try:
            recording = record.check(raw, self._config.max_canvas_side, brush)
        except record.RecordRefused as refused:
            watch.observed.setdefault(refused.violation, refused.detail[:300])
            return None, None
        if not recording.width:
            return None, None
        if self._replay_page is None or self._replay_page.is_closed():
            self._replay_page = await self._context.new_page()
            self._replay_page.on("crash", self._on_replay_crash)
            self._replay_kept = None
        page = self._replay_page
        reuse = recording.keeps_page and self._replay_kept == recording.size
        self._replay_kept = None  # until this paint has ended well
        try:
            async with asyncio.timeout(deadline_s):
                if not reuse:
                    await page.goto(self._server.replay_url_for(brush), wait_until="load")
                data_url = await page.evaluate(
                    "([list, seed, reuse]) => __replay.paint(list, seed, reuse)",
                    [recording.text, seed, reuse])
        except TimeoutError:
            watch.observed.setdefault(
                record.PAINT_OVER_BUDGET, f"painting the {recording.calls} recorded calls did not "
                f"finish within the {deadline_s:g} s deadline")
            log.warning("browser %s: a replay overran its deadline; relaunching", self.name)
            await self.kill()
            return None, None
        except PlaywrightError as exc:
            if not self.alive:
                raise BrowserUnavailable(f"browser {self.name} failed while painting: {exc}",
                                         sketch_ran=True) from exc
            if page.is_closed() or self._replay_page is None:
                # The replay page crashed: as a crashed page, which the pool
                # retries and judges (a heavy list, or a fault from outside).
                watch.crashed = True
                return None, None
            watch.errors.append(f"replay: {str(exc).splitlines()[0][:300]}")
            return None, None
        if recording.keeps_page and self._config.keep_replay_page:
            self._replay_kept = recording.size
        png = self._decode(data_url)
        return png, recording.text if png is not None else None

    def _on_replay_crash(self, page: Page) -> None:
        if page is self._replay_page:
            self._replay_page = None
            self._replay_kept = None

    async def _run(self, page: Page, watch: _TabWatch, code: str, seed: int) -> dict:
        await page.evaluate("([code, seed]) => __paintrl.run(code, seed)", [code, seed])
        while True:
            snapshot = json.loads(await page.evaluate("__paintrl.snapshot()"))
            if snapshot.get("phase") == "done" or watch.crashed or watch.left_page:
                return snapshot
            await asyncio.sleep(POLL_S)

    async def _read_stopped(self, tab: _Tab, recorded: bool
                            ) -> tuple[dict, bytes | None, str | None] | None:
        """Past the deadline: stop the sketch's script and read the report and
        the picture so far (painting by construction, the calls recorded so
        far, which the replay paints), within STOP_GRACE_S. None where the
        page could not be read (crashed, gone, or still busy): the render then
        reports the timeout alone, as before. The report is read first, so a
        picture that cannot be had in time costs only the picture."""
        watch = tab.watch
        snapshot = None
        png = recording = None
        try:
            async with asyncio.timeout(STOP_GRACE_S):
                if watch.crashed or watch.left_page:
                    return None
                snapshot = json.loads(await self._evaluate_stopped(tab, "__paintrl.snapshot()"))
                if recorded:
                    recording = await tab.page.evaluate("__paintrl.record()")
                else:
                    png = self._decode(await tab.page.evaluate("__paintrl.captureNow()"))
        except (TimeoutError, PlaywrightError, TypeError, ValueError) as exc:
            log.info("browser %s: page read after the deadline incomplete (%s)",
                     self.name, type(exc).__name__)
        if not isinstance(snapshot, dict) or watch.crashed or watch.left_page:
            return None
        return snapshot, png, recording

    async def _evaluate_stopped(self, tab: _Tab, expression: str):
        """`expression` evaluated once the sketch's script is stopped: terminate
        whatever runs, and again while no answer comes (RETERMINATE_S)."""
        while True:
            await tab.cdp.send("Runtime.terminateExecution")
            try:
                return await asyncio.wait_for(tab.page.evaluate(expression), RETERMINATE_S)
            except TimeoutError:
                continue  # another loop started; stop it too
            except PlaywrightError:
                if (not self.alive or tab.watch.crashed or tab.watch.left_page
                        or tab.page.is_closed()):
                    raise
                # The last termination caught our own evaluate: ask again.

    async def _clear_storage(self, tab: _Tab) -> None:
        """Forget what an earlier render stored on the page's origin. The
        traps stop a sketch reaching storage directly, but an about:blank
        frame's window was not trapped (now flagged `frame`) and what it wrote
        made the next render of the same code and seed paint differently.
        Cleared before each render: only one runs at a time in a browser."""
        await tab.cdp.send("Storage.clearDataForOrigin", {
            "origin": self._server.origin,
            "storageTypes": STORAGE_TYPES,
        })

    async def _settle(self, page: Page, watch: _TabWatch, snapshot: dict,
                      finished_at: float) -> dict:
        """The page's account once what the sketch set off has had SETTLE_S
        since it finished to report (the capture's time counts); the first one
        where the document went away meanwhile (the watch has seen why)."""
        if watch.crashed or watch.left_page:
            return snapshot
        await asyncio.sleep(max(0.0, finished_at + SETTLE_S - time.monotonic()))
        if watch.crashed or watch.left_page:
            return snapshot
        try:
            return json.loads(await page.evaluate("__paintrl.snapshot()"))
        except PlaywrightError:
            if not self.alive:
                raise
            return snapshot

    async def _capture(self, page: Page, snapshot: dict) -> bytes:
        """The canvas as the harness read it when the sketch finished, on white;
        a screenshot only when the page could not read its own canvas."""
        png = self._decode(await page.evaluate("__paintrl.capture()"))
        if png is not None:
            return png
        side = self._config.max_canvas_side
        width = max(1, min(int(snapshot["width"]), side))
        height = max(1, min(int(snapshot["height"]), side))
        # The viewport is smaller than the canvas (viewport_side): the sketch
        # has finished, so its page may grow to show it.
        await page.set_viewport_size({"width": width, "height": height})
        return await page.screenshot(
            clip={"x": 0, "y": 0, "width": width, "height": height}, type="png"
        )

    @staticmethod
    def _decode(data_url) -> bytes | None:
        """A capture from the harness as a PNG on white; None if it is none."""
        if isinstance(data_url, str) and data_url.startswith(PNG_DATA_URL):
            try:
                return flatten_on_white(base64.b64decode(data_url[len(PNG_DATA_URL):]))
            except (ValueError, OSError):
                log.warning("unreadable canvas capture")
        return None

    async def _close_tab(self, tab: _Tab) -> None:
        if tab in self._tabs:
            self._tabs.remove(tab)
        try:
            await asyncio.wait_for(tab.page.close(run_before_unload=False), CLOSE_TIMEOUT_S)
        except (TimeoutError, PlaywrightError):
            log.warning("tab in browser %s would not close; relaunching the browser", self.name)
            await self.kill()
