"""One sandboxed Chromium: renders one sketch at a time, each in a fresh
document that was loaded before the sketch arrived (so page start-up is off
the critical path), and tells a sketch's failure from the browser's.

Each render gets a new document: the tab is navigated to a fresh copy of the
sandbox page, which discards every global, timer and listener the previous
sketch left (the back-forward cache is off, so nothing lingers). Navigating
measured about 90 ms here against about 400 ms for a new tab, so a tab is
replaced only after a crash, a hang, a navigation away, or TAB_RENDERS uses.
"""
from __future__ import annotations

import asyncio
import json
import logging
import time

from playwright.async_api import Browser, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from .config import RendererConfig
from .page_run import PageRun
from .page_server import PageServer

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


class BrowserUnavailable(Exception):
    """The browser, not the sketch, failed; the render may be retried."""


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
        f"--js-flags=--max-old-space-size={config.js_heap_mb}",
    ]


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

    def _on_crash(self, _page) -> None:
        self.crashed = True


class BrowserSandbox:
    def __init__(self, playwright: Playwright, config: RendererConfig,
                 server: PageServer, name: str) -> None:
        self._playwright = playwright
        self._config = config
        self._server = server
        self.name = name
        self._browser: Browser | None = None
        self._context = None
        self._tab: tuple[Page, _TabWatch] | None = None
        self._tab_renders = 0
        self._loaded = False

    @property
    def alive(self) -> bool:
        return self._browser is not None and self._browser.is_connected()

    async def prepare(self) -> None:
        """Make sure a browser runs and a fresh sandbox document waits, loaded."""
        if not self.alive:
            await self._launch()
        if self._tab is not None and (self._tab[1].crashed or self._tab_renders >= TAB_RENDERS):
            await self._close_tab()
        if self._tab is None:
            page = await self._context.new_page()
            self._tab = (page, _TabWatch(page, self._server))
            self._tab_renders = 0
        if not self._loaded:
            page, watch = self._tab
            watch.reset()
            await page.goto(self._server.page_url, wait_until="load")
            watch.loaded = True
            self._loaded = True

    async def _launch(self) -> None:
        await self.kill()
        self._browser = await self._playwright.chromium.launch(
            executable_path=self._config.chromium_path,
            args=chromium_args(self._config, self._server),
            headless=True,
        )
        side = self._config.max_canvas_side
        self._context = await self._browser.new_context(
            viewport={"width": side, "height": side},
            device_scale_factor=1,
            accept_downloads=False,
            service_workers="block",
        )

    async def kill(self) -> None:
        browser, self._browser, self._context = self._browser, None, None
        self._tab, self._loaded = None, False
        if browser is not None:
            try:
                await asyncio.wait_for(browser.close(), CLOSE_TIMEOUT_S)
            except (TimeoutError, PlaywrightError):
                log.warning("browser %s did not close cleanly; abandoning it", self.name)

    async def render(self, code: str, seed: int) -> PageRun:
        if not (self._loaded and self.alive):
            raise BrowserUnavailable(f"browser {self.name} is not ready")
        page, watch = self._tab
        self._loaded = False  # this document is spent, whatever happens next
        self._tab_renders += 1
        started = time.monotonic()
        snapshot: dict = {}
        png = None
        timed_out = False
        try:
            async with asyncio.timeout(self._config.deadline_s):
                snapshot = await self._run(page, watch, code, seed)
                if snapshot.get("width", 0) > 0 and not (watch.crashed or watch.left_page):
                    png = await self._capture(page, snapshot)
        except TimeoutError:
            timed_out = True
        except PlaywrightError as exc:
            if not self.alive:
                raise BrowserUnavailable(f"browser {self.name} failed: {exc}") from exc
            if not (watch.crashed or watch.left_page):
                watch.errors.append(f"renderer: {str(exc).splitlines()[0]}")
        if timed_out or watch.left_page:
            # The document may be stuck in a loop, or is not ours any more.
            await self._close_tab()
        return PageRun(
            snapshot=snapshot,
            png=png,
            observed=dict(watch.observed),
            page_errors=tuple(watch.errors),
            timed_out=timed_out,
            crashed=watch.crashed,
            elapsed_ms=round((time.monotonic() - started) * 1000),
        )

    async def _run(self, page: Page, watch: _TabWatch, code: str, seed: int) -> dict:
        await page.evaluate("([code, seed]) => __paintrl.run(code, seed)", [code, seed])
        while True:
            snapshot = json.loads(await page.evaluate("__paintrl.snapshot()"))
            if snapshot.get("phase") == "done" or watch.crashed or watch.left_page:
                return snapshot
            await asyncio.sleep(POLL_S)

    async def _capture(self, page: Page, snapshot: dict) -> bytes:
        side = self._config.max_canvas_side
        width = max(1, min(int(snapshot["width"]), side))
        height = max(1, min(int(snapshot["height"]), side))
        return await page.screenshot(
            clip={"x": 0, "y": 0, "width": width, "height": height}, type="png"
        )

    async def _close_tab(self) -> None:
        tab, self._tab, self._loaded = self._tab, None, False
        if tab is None:
            return
        try:
            await asyncio.wait_for(tab[0].close(run_before_unload=False), CLOSE_TIMEOUT_S)
        except (TimeoutError, PlaywrightError):
            log.warning("tab in browser %s would not close; relaunching the browser", self.name)
            await self.kill()
