"""Hostile sketches on real Chromium: each is rejected with the violation it
earns, within the deadline, and leaves the pool able to render an honest
sketch. Requests aimed at a local server never arrive: the only host the
browser reaches is its own page server.

The corpus lives in tests/sketches/hostile/, one case a file; each file names
the violations it must earn in its first line (`// expect: a, b`)."""
from __future__ import annotations

import re
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from sketches import gate
from sketches.rendering import render_text
from tests.conftest import SKETCHES_DIR, TEST_DEADLINE_S, read_sketch

HOSTILE_DIR = SKETCHES_DIR / "hostile"
EXPECT = re.compile(r"expect:\s*([\w, ]+)")
# Closing a stuck tab and capturing the screenshot come on top of the deadline.
DEADLINE_MARGIN_MS = 2000

# A few dark pencil lines: cheap (well under a second) and clearly not blank.
GOOD_SKETCH = """
function setup() {
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#222", 1);
  brush.line(-70, -70, 70, 70);
  brush.line(-70, 70, 70, -70);
  brush.line(-70, 0, 70, 0);
}
"""

# Cases the renderer currently gets wrong: file name -> what goes wrong.
# Each becomes a strict xfail, so a fix shows up as an unexpected pass.
# (The blank-iframe escapes are now named `frame`, seen from outside the page.)
KNOWN_RENDERER_BUGS: dict[str, str] = {}


def expected_violations(text: str) -> list[str]:
    match = EXPECT.search(text.splitlines()[0])
    assert match, "a hostile sketch names its expected violations in its first line"
    return [name.strip() for name in match.group(1).split(",") if name.strip()]


def hostile_cases() -> list:
    cases = []
    for path in sorted(HOSTILE_DIR.iterdir()):
        marks = ()
        if path.name in KNOWN_RENDERER_BUGS:
            marks = pytest.mark.xfail(strict=True, reason=KNOWN_RENDERER_BUGS[path.name])
        cases.append(pytest.param(path.name, id=path.stem, marks=marks))
    return cases


def test_corpus_covers_every_kind_of_hostile_sketch():
    named = {v for path in HOSTILE_DIR.iterdir() for v in expected_violations(path.read_text())}
    assert len(list(HOSTILE_DIR.iterdir())) >= 16
    # Every expectation is a violation the gate can actually return.
    known = {value for key, value in vars(gate).items() if key.isupper() and isinstance(value, str)}
    assert named <= known, named - known
    must_cover = {gate.NO_CODE, gate.TRUNCATED, gate.SYNTAX_ERROR, gate.NO_SETUP, gate.NOT_WEBGL,
                  gate.PLAIN_PRIMITIVES_ONLY, gate.UNKNOWN_BRUSH_METHOD, gate.NETWORK_ACCESS,
                  gate.EXTERNAL_ASSET, gate.TEXT_ON_CANVAS, gate.BLANK_CANVAS,
                  gate.RUNTIME_ERROR, gate.TIMEOUT, gate.CRASHED, gate.CANVAS_TOO_LARGE,
                  gate.DIALOG, gate.NAVIGATION, gate.POPUP, gate.STORAGE_ACCESS, gate.WORKER,
                  gate.TAMPERING}
    assert must_cover <= named, must_cover - named


def render_good_on_both_browsers(pool) -> list:
    """Two honest renders at once, so both browsers of the pool take one
    (one of them is still recycling after the hostile sketch)."""
    with ThreadPoolExecutor(max_workers=2) as workers:
        return list(workers.map(lambda seed: render_text(pool, GOOD_SKETCH, seed=seed), (0, 1)))


def test_good_sketch_renders_ok(render_pool):
    for outcome in render_good_on_both_browsers(render_pool):
        assert outcome.status == "ok", outcome.details
        assert outcome.paint_fraction > 0.01


@pytest.mark.parametrize("name", hostile_cases())
def test_hostile_sketch_is_rejected_with_its_violation_in_time_and_pool_still_renders(
        render_pool, name):
    text = read_sketch(f"hostile/{name}")
    outcome = render_text(render_pool, text, seed=0)
    after = render_good_on_both_browsers(render_pool)

    assert outcome.status == "rejected", outcome.report()
    for violation in expected_violations(text):
        assert violation in outcome.violations, outcome.report()
    assert outcome.elapsed_ms <= TEST_DEADLINE_S * 1000 + DEADLINE_MARGIN_MS, outcome.report()
    for good in after:
        assert good.status == "ok", good.report()


# -- nothing leaves the machine ----------------------------------------------

# Ways a sketch might reach a host, each wrapped in try/catch so the sketch
# carries on and paints: the verdict must come from the sandbox noticing, not
# from the sketch falling over. {url} is a unique URL on the counting server.
ESCAPES = {
    "fetch": 'fetch("{url}");',
    "fetch_hidden_name": 'window["fe" + "tch"]("{url}");',
    "fetch_from_blank_iframe": """
        const frame = document.createElement("iframe");
        document.body.appendChild(frame);
        frame.contentWindow["fe" + "tch"]("{url}").catch(() => {{}});""",
    "xml_http_request_from_blank_iframe": """
        const frame = document.createElement("iframe");
        document.body.appendChild(frame);
        const x = new frame.contentWindow.XMLHttpRequest();
        x.onerror = () => {{}};
        x.open("GET", "{url}");
        x.send();""",
    "xml_http_request": 'const x = new XMLHttpRequest(); x.open("GET", "{url}"); x.send();',
    "websocket": 'new WebSocket("{url}".replace("http", "ws"));',
    "event_source": 'new EventSource("{url}");',
    "send_beacon": 'navigator.sendBeacon("{url}", "x");',
    "dynamic_import": 'import("{url}").catch(() => {{}});',
    "load_image": 'loadImage("{url}").catch(() => {{}});',
    "image_element": 'new Image().src = "{url}";',
    "css_background": 'document.body.style.backgroundImage = "url({url})";',
    "script_element": """
        const s = document.createElement("script");
        s.src = "{url}";
        document.head.appendChild(s);""",
    "link_prefetch": """
        const l = document.createElement("link");
        l.rel = "prefetch";
        l.href = "{url}";
        document.head.appendChild(l);""",
    "iframe_src": """
        const f = document.createElement("iframe");
        f.src = "{url}";
        document.body.appendChild(f);""",
    "location_href": 'location.href = "{url}";',
    "location_assign_hidden_name": 'window["loc" + "ation"]["ass" + "ign"]("{url}");',
    "anchor_click": """
        const a = document.createElement("a");
        a.href = "{url}";
        document.body.appendChild(a);
        a.click();""",
    "form_submit": """
        const form = document.createElement("form");
        form.action = "{url}";
        form.method = "GET";
        document.body.appendChild(form);
        form.submit();""",
    "meta_refresh": """
        const m = document.createElement("meta");
        m.httpEquiv = "refresh";
        m.content = "0;url={url}";
        document.head.appendChild(m);""",
    "window_open": 'window.open("{url}");',
    "fetch_localhost_name": 'fetch("{url}".replace("127.0.0.1", "localhost"));',
    "location_localhost_name": 'location.href = "{url}".replace("127.0.0.1", "localhost");',
}

ESCAPE_SKETCH = """
function setup() {{
  createCanvas(160, 160, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#222", 1);
  brush.line(-70, -70, 70, 70);
  brush.line(-70, 70, 70, -70);
  try {{
    {attempt}
  }} catch (e) {{ /* carry on painting */ }}
  brush.line(-70, 0, 70, 0);
}}
"""

# Escape attempts that send nothing but the gate does not (always) flag:
# name -> (why, strict). A race that the sandbox usually wins is a non-strict
# xfail: it shows up as XPASS most runs and as XFAIL when the race is lost.
LATE_CSP_RACE = (
    "the Content-Security-Policy refusal reaches the harness asynchronously; when the sketch "
    "finishes in the same task, the snapshot is read before the violation event (about 1 run in 5)")
KNOWN_UNFLAGGED_ESCAPES: dict[str, tuple[str, bool]] = {
    "iframe_src": ("frame-src: " + LATE_CSP_RACE, False),
    "form_submit": ("form-action: " + LATE_CSP_RACE, False),
}


class CountingServer:
    """An HTTP server on a free loopback port that records every path asked for."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        hits = self.paths

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                hits.append(self.path)
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            do_POST = do_GET  # noqa: N815

            def log_message(self, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="module")
def escape_results(render_pool):
    """Every escape attempt rendered once against one counting server:
    (outcome per attempt, paths the server saw from the browser)."""
    server = CountingServer()
    try:
        # The counter works: a request from this process arrives.
        with urllib.request.urlopen(server.origin + "/control", timeout=5) as response:
            assert response.read() == b"ok"
        assert server.paths == ["/control"]
        server.paths.clear()
        outcomes = {}
        for name, attempt in ESCAPES.items():
            code = ESCAPE_SKETCH.format(attempt=attempt.format(url=f"{server.origin}/{name}"))
            outcomes[name] = render_text(render_pool, code, seed=0)
        time.sleep(0.5)  # a late request (a navigation, a beacon) would arrive by now
        return outcomes, list(server.paths)
    finally:
        server.close()


def test_no_escape_attempt_reaches_a_local_server(escape_results):
    _outcomes, arrived = escape_results
    assert arrived == []


def escape_cases() -> list:
    return [
        pytest.param(name, id=name, marks=(
            pytest.mark.xfail(strict=KNOWN_UNFLAGGED_ESCAPES[name][1],
                              reason=KNOWN_UNFLAGGED_ESCAPES[name][0])
            if name in KNOWN_UNFLAGGED_ESCAPES else ()))
        for name in ESCAPES
    ]


@pytest.mark.parametrize("name", escape_cases())
def test_escape_attempt_is_rejected_with_a_sandbox_violation(escape_results, name):
    outcome = escape_results[0][name]
    assert outcome.status == "rejected", outcome.report()
    sandbox_violations = {gate.NETWORK_ACCESS, gate.EXTERNAL_ASSET, gate.NAVIGATION, gate.POPUP,
                          gate.FRAME}
    assert sandbox_violations & set(outcome.violations), outcome.report()


# -- nothing carries over from one render to the next -------------------------

STORAGE_COUNTER_SKETCH = """
function setup() {
  createCanvas(160, 160, WEBGL);
  background(250);
  // One more pencil line for every earlier render that ran this code.
  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  const store = frame.contentWindow.localStorage;
  const earlier = Number(store.getItem("paintrl-hostile-counter") || 0);
  store.setItem("paintrl-hostile-counter", String(earlier + 1));
  brush.set("HB", "#222", 1);
  for (let i = 0; i <= earlier; i++) brush.line(-70, -70 + i * 20, 70, -70 + i * 20);
}
"""


@pytest.mark.xfail(strict=True, reason=(
    "localStorage (and cookies) written through an about:blank iframe persist in the browser "
    "context, so a later render of the same code and seed on that browser paints differently "
    "(the iframe itself is now rejected as `frame`, but the storage is not cleared)"))
def test_same_code_and_seed_paint_the_same_after_a_render_wrote_storage(render_pool):
    # Three renders on a two-browser pool: at least two share a browser.
    outcomes = [render_text(render_pool, STORAGE_COUNTER_SKETCH, seed=0) for _ in range(3)]
    assert [o.status for o in outcomes] == ["ok"] * 3 or all(
        o.status == "rejected" for o in outcomes), [o.report() for o in outcomes]
    assert len({o.png for o in outcomes}) == 1, [o.paint_fraction for o in outcomes]
