"""A pool of sandboxed browsers behind a plain, thread-safe, blocking API.

Playwright's async API runs on one event loop in a background thread; callers
(Celery tasks, management commands, benchmarks) submit work from any thread.
Concurrency comes from several browsers, because SwiftShader serialises
inside one. A browser that dies is relaunched, and the render it held is
retried once on another; only then is it reported `unavailable`.
"""
from __future__ import annotations

import asyncio
import logging
import os
import threading
from concurrent.futures import Future

import psutil
from playwright.async_api import async_playwright

from .config import RendererConfig
from .page_run import PageRun
from .page_server import PageServer
from .sandbox import BrowserSandbox, BrowserUnavailable

log = logging.getLogger(__name__)

# One retry covers a browser killed mid-render; a sketch that kills every
# browser it touches is not retried for ever.
ATTEMPTS = 2
# How long a start-up may take before the pool reports the browser missing.
START_TIMEOUT_S = 60.0


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

    def render(self, code: str, seed: int = 0) -> PageRun:
        return self._call(self._render(code, seed))

    def kill_browsers_for_test(self) -> None:
        """Kill every browser process, as a crash would (recovery tests)."""
        self._call(self._kill_processes())

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
        self._idle: asyncio.Queue[BrowserSandbox] = asyncio.Queue()
        self._sandboxes = [
            BrowserSandbox(self._playwright, self.config, self._server, f"browser-{i}")
            for i in range(self.config.browsers)
        ]
        await asyncio.gather(*(s.prepare() for s in self._sandboxes))
        for sandbox in self._sandboxes:
            self._idle.put_nowait(sandbox)
        self._recycling: set[asyncio.Task] = set()

    async def _render(self, code: str, seed: int) -> PageRun:
        failure = "no attempt made"
        for _attempt in range(ATTEMPTS):
            sandbox = await self._idle.get()
            try:
                return await sandbox.render(code, seed)
            except BrowserUnavailable as exc:
                failure = str(exc)
                log.warning("render retried after browser failure: %s", exc)
            finally:
                task = asyncio.ensure_future(self._recycle(sandbox))
                self._recycling.add(task)
                task.add_done_callback(self._recycling.discard)
        return PageRun(unavailable=failure)

    async def _recycle(self, sandbox: BrowserSandbox) -> None:
        """Load the next page (relaunching a dead browser) and hand the
        sandbox back; retry with back-off rather than lose a browser."""
        delay = 0.5
        while not self._stopping:
            try:
                await sandbox.prepare()
                break
            except Exception as exc:  # noqa: BLE001 - any failure means relaunch
                log.warning("%s failed to prepare (%s); relaunching", sandbox.name, exc)
                await sandbox.kill()
                await asyncio.sleep(delay)
                delay = min(delay * 2, 10.0)
        self._idle.put_nowait(sandbox)

    async def _kill_processes(self) -> None:
        marker = f"127.0.0.1:{self._server.port}"
        for proc in psutil.Process().children(recursive=True):
            try:
                if any(marker in arg for arg in proc.cmdline()):
                    proc.kill()
            except psutil.Error:
                pass

    async def _stop(self) -> None:
        self._stopping = True
        for task in list(getattr(self, "_recycling", ())):
            task.cancel()
        for sandbox in getattr(self, "_sandboxes", ()):
            await sandbox.kill()
        if getattr(self, "_playwright", None) is not None:
            await self._playwright.stop()

