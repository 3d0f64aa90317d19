"""Serves the sandbox page and its libraries from memory on a loopback port.

A real HTTP origin (rather than Playwright request routing, which turns the
browser cache off) lets Chromium cache and pre-compile the 1 MB of p5 across
renders. The Content-Security-Policy is the first wall around a sketch: no
connections, no scripts or images from anywhere else, no frames, no forms.
"""
from __future__ import annotations

import html
import json
import secrets
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources

from ..brush_api import BRUSH_1, PLAIN_PRIMITIVES, paint_methods_for
from . import record
from .config import MAX_BUFFER_SIDE, MIN_PIXEL_DENSITY, RendererConfig
from .libraries import (
    BRUSH_VERSIONS,
    DEFAULT_BRUSH,
    load_brush,
    load_companions,
    load_p5,
    shader_sources,
)

# One page per p5.brush version, each loading its own pair of libraries.
PAGE_PATH = "/sandbox"
# The trusted pages that paint recorded call lists (replay.js), one per version.
REPLAY_PATH = "/replay"
# The seed Math.random starts from while the libraries load; run() re-seeds.
BOOT_SEED = 1
# 'report-sample' puts the start of a refused script (a javascript: URL) in the
# violation event, so the harness can name it a navigation.
CSP_TEMPLATE = "; ".join([
    "default-src 'none'",
    "script-src 'self' 'nonce-{nonce}' 'unsafe-eval' 'report-sample'",
    "style-src 'unsafe-inline'",
    "img-src data: blob:",
    "font-src data:",
    "connect-src 'none'",
    "worker-src 'none'",
    "frame-src 'none'",
    "object-src 'none'",
    "media-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
])


def content_security_policy(nonce: str) -> str:
    """Inline scripts run only with the page's nonce (the harness, and the
    sketch's script, which the harness tags): without 'unsafe-inline' a
    javascript: URL is refused and reported, where it used to run unseen
    after the sketch finished. 'unsafe-eval' stays: sketches may eval."""
    return CSP_TEMPLATE.format(nonce=nonce)


def page_path(brush: str) -> str:
    return PAGE_PATH if brush == DEFAULT_BRUSH else f"{PAGE_PATH}-{brush}"


def replay_path(brush: str) -> str:
    return REPLAY_PATH if brush == DEFAULT_BRUSH else f"{REPLAY_PATH}-{brush}"


def library_path(brush: str, name: str) -> str:
    return f"/lib/{name}" if brush == DEFAULT_BRUSH else f"/lib/{brush}/{name}"


def inline_script(name: str, data: dict, nonce: str | None) -> str:
    """One of this package's scripts inline, with `data` as its config."""
    source = resources.files(__package__).joinpath(name).read_text()
    nonce_attr = f' nonce="{html.escape(nonce)}"' if nonce else ""
    return f'<script{nonce_attr} data-config="{html.escape(json.dumps(data))}">{source}</script>'


def harness_script(config: RendererConfig, nonce: str | None = None,
                   silence_console: bool = False, brush: str = DEFAULT_BRUSH,
                   record_calls: bool = False) -> str:
    """The harness as an inline <script> carrying its configuration. It must
    come before p5 and p5.brush; the editor's live preview uses it too, so a
    sketch runs there as it does here. The renderer's page silences the
    sketch's console (nobody reads it there, and DevTools ships every line to
    the pool: an endless stream of large lines made its tab unclosable); the
    editor keeps it for debugging."""
    harness_config = {
        "record": record_calls,
        "bootSeed": BOOT_SEED,
        "seed": BOOT_SEED,
        "maxFrames": config.max_frames,
        "maxCanvasSide": config.max_canvas_side,
        "maxCanvasPixels": config.max_canvas_side ** 2,
        "maxBufferSide": MAX_BUFFER_SIDE,
        "minPixelDensity": MIN_PIXEL_DENSITY,
        "brushVersion": brush,
        "brushPaintMethods": sorted(paint_methods_for(brush)),
        "plainPrimitives": list(PLAIN_PRIMITIVES),
        "nonce": nonce,
        "silenceConsole": silence_console,
        "brushShaders": list(shader_sources(load_brush(config.library_dir, brush))),
    }
    return (speed_script(config, nonce, brush)
            + inline_script("harness.js", harness_config, nonce))


def speed_script(config: RendererConfig, nonce: str | None, brush: str = DEFAULT_BRUSH,
                 replay: bool = False) -> str:
    """paint_speed.js: before the harness and the libraries in every page
    that paints with p5.brush; p5.brush 1.x's replay page puts its blend
    mask on the CPU too (RendererConfig.cpu_canvases_1x) and limits its blend
    passes to what they change (RendererConfig.blend_bounds_1x: only where
    no sketch code runs)."""
    cpu_canvases = config.cpu_canvases_1x and brush == BRUSH_1
    blend_bounds = config.blend_bounds_1x and brush == BRUSH_1 and replay
    return inline_script("paint_speed.js", {"cpuFillMasks": config.cpu_fill_masks,
                                            "cpuCanvases": cpu_canvases,
                                            "blendBounds": blend_bounds,
                                            "leanBlend": config.lean_blend}, nonce)


def build_page(config: RendererConfig, nonce: str, brush: str = DEFAULT_BRUSH) -> bytes:
    companions = "".join(f'<script src="{library_path(brush, library.name)}"></script>\n'
                         for library in load_companions(config.library_dir, brush))
    # Recording, the recorder stands where p5.brush would: the library is
    # never loaded where sketch code runs.
    brush_script = (inline_script("recorder.js", record.page_vocabulary(brush), nonce)
                    if config.paint_by_replay
                    else f'<script src="{library_path(brush, "p5.brush.js")}"></script>')
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>paintrl sandbox</title>
<style>html,body{{margin:0;padding:0;background:#fff;overflow:hidden}}canvas{{display:block}}</style>
{harness_script(config, nonce, silence_console=True, brush=brush,
                record_calls=config.paint_by_replay)}
<script src="{library_path(brush, 'p5.js')}"></script>
{companions}{brush_script}
</head><body></body></html>""".encode()


def build_replay_page(config: RendererConfig, nonce: str, brush: str = DEFAULT_BRUSH) -> bytes:
    """The page that paints `brush`'s recorded lists: the libraries and the
    replayer, no harness and no sketch code (replay.js)."""
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>paintrl replay</title>
<style>html,body{{margin:0;padding:0;background:#fff;overflow:hidden}}canvas{{display:block}}</style>
{speed_script(config, nonce, brush, replay=True)}
<script src="{library_path(brush, 'p5.js')}"></script>
<script src="{library_path(brush, 'p5.brush.js')}"></script>
{inline_script("replay.js", record.page_vocabulary(brush), nonce)}
</head><body></body></html>""".encode()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        # A browser closed mid-download (a pool shutting down, a tab closed
        # while loading) is routine, not worth a traceback.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class PageServer:
    """A threaded HTTP server bound to 127.0.0.1 on a free port."""

    def __init__(self, config: RendererConfig) -> None:
        # Fixed for the server's life: it only tells our inline scripts from
        # injected markup (sketches may eval anyway), it guards no secret.
        nonce = secrets.token_urlsafe(16)
        csp = content_security_policy(nonce)
        cache = "public, max-age=31536000, immutable"
        routes = {}
        # {brush version: {library: version}}; library_versions is the default's.
        self.libraries: dict[str, dict[str, str]] = {}
        for version in BRUSH_VERSIONS:
            p5 = load_p5(config.library_dir, version)
            brush = load_brush(config.library_dir, version)
            companions = load_companions(config.library_dir, version)
            self.libraries[version] = {library.name: library.version
                                       for library in (p5, brush, *companions)}
            for library in companions:
                routes[library_path(version, library.name)] = (library.source,
                                                               "text/javascript", cache)
            routes[page_path(version)] = (build_page(config, nonce, version),
                                          "text/html; charset=utf-8", "no-store")
            routes[library_path(version, "p5.js")] = (p5.source, "text/javascript", cache)
            routes[library_path(version, "p5.brush.js")] = (brush.source, "text/javascript", cache)
            routes[replay_path(version)] = (build_replay_page(config, nonce, version),
                                            "text/html; charset=utf-8", "no-store")
        self.library_versions = self.libraries[DEFAULT_BRUSH]

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                route = routes.get(self.path)
                if route is None:
                    self.send_error(404)
                    return
                body, content_type, cache = route
                self.send_response(200)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", cache)
                self.send_header("Content-Security-Policy", csp)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self._server = _QuietServer(("127.0.0.1", 0), Handler)
        self.port = self._server.server_address[1]
        self.origin = f"http://127.0.0.1:{self.port}"
        self.page_url = self.page_url_for(DEFAULT_BRUSH)
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="paintrl-page-server", daemon=True
        )
        self._thread.start()

    def page_url_for(self, brush: str) -> str:
        return self.origin + page_path(brush)

    def replay_url_for(self, brush: str) -> str:
        return self.origin + replay_path(brush)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
