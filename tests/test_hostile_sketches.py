"""Hostile sketches on real Chromium: each is rejected with the violation it
earns, within the deadline, and leaves the pool able to render an honest
sketch. Requests aimed at a local server never arrive: the only host the
browser reaches is its own page server.

The corpus lives in tests/sketches/hostile/, one case a file; each file names
the violations it must earn in its first line (`// expect: a, b`)."""
from __future__ import annotations

import json
import re
import threading
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest

from sketches import gate
from sketches.renderer import RenderPool
from sketches.renderer.sandbox import STOP_GRACE_S
from sketches.rendering import render_text
from tests.chromium import TEST_DEADLINE_S, make_config
from tests.sketch_files import SKETCHES_DIR, read_sketch

pytestmark = pytest.mark.browser

HOSTILE_DIR = SKETCHES_DIR / "hostile"
EXPECT = re.compile(r"expect:\s*([\w, ]+)")
# Stopping a sketch at the deadline and reading its page (STOP_GRACE_S at most)
# come on top of the deadline, and a second of slack for the loaded event loop.
DEADLINE_MARGIN_MS = STOP_GRACE_S * 1000 + 1000
# A verdict is stored and shown: whatever a sketch prints, throws or calls, its
# report stays small (a normal one is under 1 KB).
MAX_REPORT_BYTES = 20_000

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
    assert len(list(HOSTILE_DIR.iterdir())) >= 25
    # Every expectation is a violation the gate can actually return.
    known = {value for key, value in vars(gate).items() if key.isupper() and isinstance(value, str)}
    assert named <= known, named - known
    must_cover = {gate.NO_CODE, gate.TRUNCATED, gate.SYNTAX_ERROR, gate.NO_SETUP, gate.NOT_WEBGL,
                  gate.PLAIN_PRIMITIVES_ONLY, gate.UNKNOWN_BRUSH_METHOD, gate.NETWORK_ACCESS,
                  gate.EXTERNAL_ASSET, gate.TEXT_ON_CANVAS, gate.BLANK_CANVAS,
                  gate.RUNTIME_ERROR, gate.TIMEOUT, gate.CRASHED, gate.CANVAS_TOO_LARGE,
                  gate.DIALOG, gate.NAVIGATION, gate.POPUP, gate.STORAGE_ACCESS, gate.WORKER,
                  gate.TAMPERING, gate.FRAME, gate.PLAIN_PAINTING, gate.DIRECT_PIXELS,
                  gate.EMBEDDED_IMAGE, gate.RAW_WEBGL, gate.OVERLAY, gate.PAINTED_WORDS}
    assert must_cover <= named, must_cover - named


def render_good_on_both_browsers(pool) -> list:
    """Two honest renders at once, so both browsers of the pool take one
    (one of them is still recycling after the hostile sketch)."""
    with ThreadPoolExecutor(max_workers=2) as workers:
        return list(workers.map(lambda seed: render_text(pool, GOOD_SKETCH, seed=seed), (0, 1)))


def test_good_sketch_renders_ok(browser_pool):
    for outcome in render_good_on_both_browsers(browser_pool):
        assert outcome.status == "ok", outcome.details
        assert outcome.paint_fraction > 0.01


@pytest.mark.parametrize("name", hostile_cases())
def test_hostile_sketch_is_rejected_with_its_violation_in_time_and_pool_still_renders(
        browser_pool, name):
    text = read_sketch(f"hostile/{name}")
    # Each with the p5.brush its calls are written for (the *_brush1.js cases: 1.x).
    outcome = render_text(browser_pool, text, seed=0, brush="auto")
    after = render_good_on_both_browsers(browser_pool)

    assert outcome.status == "rejected", outcome.report()
    for violation in expected_violations(text):
        assert violation in outcome.violations, outcome.report()
    assert outcome.elapsed_ms <= TEST_DEADLINE_S * 1000 + DEADLINE_MARGIN_MS, outcome.report()
    assert len(json.dumps(outcome.report())) <= MAX_REPORT_BYTES, outcome.violations
    for good in after:
        assert good.status == "ok", good.report()


SHIFTING_SIZE_SKETCH = """
// Sizes that answer small to the first look and huge ever after.
let looks = 0;
const side = { valueOf() { looks += 1; return looks <= 2 ? 100 : 20000; } };
function setup() {
  createCanvas(side, side, WEBGL);
  brush.set("HB", "#222", 1);
  brush.line(-40, -40, 40, 40);
}
"""


def test_canvas_gets_the_size_the_check_read(browser_pool):
    # Before the size guard read each size once, p5 read 20000 here and
    # allocated a 20000 px canvas (blank, 4.5 s) behind the check's back.
    outcome = render_text(browser_pool, SHIFTING_SIZE_SKETCH, seed=0)
    assert (outcome.width, outcome.height) == (100, 100), outcome.report()
    assert outcome.status == "ok", outcome.report()


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
    "send_beacon_from_prototype":
        'Navigator.prototype["send" + "Beacon"].call(navigator, "{url}");',
    "rtc_peer_connection_hidden_name": """
        const pc = new window["RTCPeer" + "Connection"]({{
          iceServers: [{{ urls: "turn:{host}?transport=tcp", username: "u", credential: "c" }}]}});
        pc.createDataChannel("x");
        pc.createOffer().then((o) => pc.setLocalDescription(o)).catch(() => {{}});""",
    "shared_worker": 'new window["Shared" + "Worker"]("{url}");',
    "service_worker_register": 'navigator.serviceWorker.register("{url}").catch(() => {{}});',
    "svg_image": """
        const holder = document.createElement("div");
        holder.innerHTML = '<svg><image href="{url}" width="9" height="9"/></svg>';
        document.body.appendChild(holder);""",
    "css_import_and_font": """
        const style = document.createElement("style");
        style.textContent = '@import url("{url}/css"); @font-face {{ font-family: x; '
          + 'src: url("{url}/font") }} body {{ font-family: x }}';
        document.head.appendChild(style);
        document.body.append("x");""",
    "javascript_url": """
        location.href = "javascript:void(document.body.appendChild("
          + "document.createElement('img')).src='{url}')";""",
    "string_timer_hidden_fetch": 'setTimeout("window[\'fe\' + \'tch\'](\'{url}\')", 0);',
    "eval_hidden_xhr": """
        const x = new (eval("XML" + "Http" + "Request"))();
        x.open("GET", "{url}");
        x.send();""",
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
# (The late Content-Security-Policy reports of iframe_src and form_submit are
# now waited for: the sandbox reads the page again SETTLE_S after it finishes.)
KNOWN_UNFLAGGED_ESCAPES: dict[str, tuple[str, bool]] = {}


class CountingServer:
    """An HTTP server on a free loopback port that records every path asked for,
    and every connection, HTTP or not (a TURN client speaks its own protocol).
    It handles one connection at a time, in the order they reached it, so its
    `barrier()` answered means every connection that came before was handled."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.connections: list[tuple] = []
        hits, connections = self.paths, self.connections

        class Handler(BaseHTTPRequestHandler):
            timeout = 2  # a connection that never sends a request is dropped after this

            def setup(self) -> None:
                connections.append(self.client_address)
                super().setup()

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

        self._server = HTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def barrier(self) -> None:
        """Return once every connection that reached the server before this call
        has been handled; the barrier's own request is not recorded."""
        with urllib.request.urlopen(self.origin + "/barrier", timeout=60) as response:
            assert response.read() == b"ok"
        assert self.paths.pop() == "/barrier"
        self.connections.pop()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="module")
def escape_results():
    """Every escape attempt rendered once, in browsers of its own, against one
    counting server: (outcome per attempt, paths and connections the server saw
    from the browsers)."""
    server = CountingServer()
    try:
        # The counter works: a request from this process arrives.
        with urllib.request.urlopen(server.origin + "/control", timeout=5) as response:
            assert response.read() == b"ok"
        assert server.paths == ["/control"] and len(server.connections) == 1
        server.paths.clear()
        server.connections.clear()
        outcomes = {}
        with RenderPool(make_config(browsers=2)) as pool:
            for name, attempt in ESCAPES.items():
                url = f"{server.origin}/{name}"
                host = server.origin.removeprefix("http://")
                code = ESCAPE_SKETCH.format(attempt=attempt.format(url=url, host=host))
                outcomes[name] = render_text(pool, code, seed=0)
        # The browsers have exited, so nothing more can be sent; a late request (a
        # navigation, a beacon) that reached the server is handled before the barrier.
        server.barrier()
        return outcomes, list(server.paths), list(server.connections)
    finally:
        server.close()


def test_no_escape_attempt_reaches_a_local_server(escape_results):
    _outcomes, arrived, connections = escape_results
    assert arrived == []
    assert connections == []


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
                          gate.FRAME, gate.WORKER}
    assert sandbox_violations & set(outcome.violations), outcome.report()


# -- nothing carries over from one render to the next -------------------------

STORAGE_COUNTER_SKETCH = """
function setup() {
  createCanvas(160, 160, WEBGL);
  background(250);
  // One more pencil line for every earlier render that ran this code.
  const frame = document.createElement("iframe");
  document.body.appendChild(frame);
  const w = frame.contentWindow;
  const key = "paintrl-hostile-counter";
  const cookie = w.document.cookie.split("; ").find((c) => c.startsWith(key + "="));
  const earlier = Math.max(Number(w.localStorage.getItem(key) || 0),
                           Number(w.sessionStorage.getItem(key) || 0),
                           Number(cookie ? cookie.split("=")[1] : 0));
  w.localStorage.setItem(key, String(earlier + 1));
  w.sessionStorage.setItem(key, String(earlier + 1));
  w.document.cookie = key + "=" + (earlier + 1);
  brush.set("HB", "#222", 1);
  for (let i = 0; i <= earlier; i++) brush.line(-70, -70 + i * 20, 70, -70 + i * 20);
}
"""


def test_same_code_and_seed_paint_the_same_after_a_render_wrote_storage(browser_pool):
    # Three renders on a two-browser pool: at least two share a browser.
    outcomes = [render_text(browser_pool, STORAGE_COUNTER_SKETCH, seed=0) for _ in range(3)]
    assert [o.status for o in outcomes] == ["ok"] * 3 or all(
        o.status == "rejected" for o in outcomes), [o.report() for o in outcomes]
    assert len({o.png for o in outcomes}) == 1, [o.paint_fraction for o in outcomes]
