"""Grading benchmark: does a curator ever wait?

Two questions, on PostgreSQL, with 1,664 renders (the size of the article's
graded set) and four curators grading the same queue at once:

  (a) server   How long does the server take to "grade and fetch next" (one
               POST to rating:act: save the grade, tend and top up the
               curator's claims, answer the renders to hold next)? Four
               curators post over HTTP, each from its own thread: in (a) as
               fast as the server answers (the machine saturated: latency is
               then queueing), in (a') one grade every 250 ms each, several
               times faster than anyone grades for long. Measured inside the
               server process around the whole Django handler (middleware,
               session, view, database), with the serving thread's CPU time,
               and reported next to the round trip the client saw.
  (b) browser  In Chromium, how long from a grade key pressed to the next
               render painted? One curator grades by keyboard in the real
               page while three others grade over HTTP at a brisk pace.
               "Painted" is Chromium's own Element Timing for the new image
               (the frame it was painted in); the time to the next animation
               frame after the swap is printed beside it.

Targets (issue 4): server p95 <= 30 ms; keypress-to-painted p95 <= 150 ms.
It prints figures and PASS/MISS lines and asserts nothing.

With --compare, the same questions for the comparing page (issue 17): the
renders come in prompts of PER_PROMPT, scored by an active reward model so
pairs are chosen least sure first; (a') four curators compare over HTTP at a
brisk pace ("compare and fetch next": one POST to rating:compare_act), and
(b) one compares by keyboard in Chromium, "painted" being the later of the
pair's two images (Element Timing). Targets: server p95 <= 30 ms, keypress to
next pair painted p95 <= 150 ms.

The server runs in subprocesses of this script, one per core sharing one port
as a production server's workers would: Django's threaded WSGI server (the one
behind runserver) with persistent database connections
(PAINTRL_DB_CONN_MAX_AGE=60), serving static files itself. It uses its own
database (dropped and recreated each run) and a temporary media folder.

    .venv/bin/python benchmarks/rating_bench.py [--renders 1664] [--grades-each 200]
        [--keypresses 150] [--database-url postgres://postgres@127.0.0.1:5432/paintrl_rating_bench]
        [--compare]

Figures depend on the machine and what else runs on it; compare runs on the
same machine only.
"""
from __future__ import annotations

import argparse
import http.client
import io
import json
import logging
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlparse

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/paintrl_rating_bench"
TARGET_SERVER_P95_MS = 30.0
TARGET_PAINT_P95_MS = 150.0
CURATORS = 4
PREFETCH = 5
# The browser curator's pause between keys, and the three HTTP curators'
# pause between grades while it works: faster than anyone grades for long
# (the article's curators took about two seconds a render).
BROWSER_PAUSE_S = 0.25
COMPANION_PAUSE_S = 0.25
RENDER_SIDE = 512
# --compare: renders per prompt (8 give 28 pairs a prompt: 5,824 pairs of 1,664 renders).
PER_PROMPT = 8
CSRF_SECRET = "b" * 32  # any 32 characters: sent as cookie and header alike


# ---- the server subprocess ----------------------------------------------------------

def serve(port: int) -> None:
    """Run the site on `port`, adding Server-Timing entries that span the whole
    Django handler (taken when the response starts, its body computed): "wsgi"
    the wall time, "cpu" the CPU time of the thread serving the request.
    Several of these processes share the port (SO_REUSEPORT), as a production
    server's worker processes would."""
    import django

    django.setup()
    from django.contrib.staticfiles.handlers import StaticFilesHandler
    from django.core.handlers.wsgi import WSGIHandler
    from django.core.servers.basehttp import WSGIServer, run

    class SharedPortServer(WSGIServer):
        allow_reuse_port = True

    logging.getLogger("django.server").setLevel(logging.WARNING)
    app = StaticFilesHandler(WSGIHandler())

    def timed(environ, start_response):
        started, cpu_started = time.perf_counter(), time.thread_time()

        def start(status, headers, exc_info=None):
            wall = (time.perf_counter() - started) * 1000
            cpu = (time.thread_time() - cpu_started) * 1000
            headers.append(("Server-Timing", f"wsgi;dur={wall:.2f}, cpu;dur={cpu:.2f}"))
            return start_response(status, headers, exc_info)

        return app(environ, start)

    run("127.0.0.1", port, timed, threading=True, server_cls=SharedPortServer)


# ---- set-up ---------------------------------------------------------------------------

def database_recreate(url: str) -> None:
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True, connect_timeout=5) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def png_bytes(index: int) -> bytes:
    """A render-sized PNG with some structure (washes and strokes), distinct per index."""
    from PIL import Image, ImageDraw

    rng = random.Random(index)
    image = Image.new("RGB", (RENDER_SIDE, RENDER_SIDE), (247, 243, 236))
    draw = ImageDraw.Draw(image, "RGBA")
    for _ in range(14):
        x, y = rng.randrange(RENDER_SIDE), rng.randrange(RENDER_SIDE)
        r = rng.randrange(30, 160)
        colour = tuple(rng.randrange(40, 230) for _ in range(3)) + (rng.randrange(50, 140),)
        draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    for _ in range(30):
        points = [(rng.randrange(RENDER_SIDE), rng.randrange(RENDER_SIDE)) for _ in range(3)]
        draw.line(points, fill=(43, 38, 34, 160), width=rng.randrange(1, 5))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


def seed(renders: int, per_prompt: int = 1) -> list:
    """`renders` gradable renders with images on disk, and four curators.
    With `per_prompt` above 1 the renders share prompts that many at a time,
    and an active reward model has scored them (the comparing queue's order)."""
    from django.core.files.storage import default_storage
    from django.db import connection
    from django.utils import timezone

    from rating.services import curator_group
    from sketches.models import Render, Sketch, code_hash

    subjects = ["hibiscus", "pond at dusk", "pear", "harbour", "fern", "lighthouse", "teacup"]
    origins = list(Sketch.Origin.values)
    code = "function setup(){ createCanvas(512, 512); brush.line(10, 10, 500, 500); }"
    sketches = Sketch.objects.bulk_create([
        Sketch(code=code, code_sha256=code_hash(code), origin=origins[i % len(origins)],
               prompt=f"a {subjects[i // per_prompt % len(subjects)]} in watercolour, "
                      f"study {i // per_prompt}",
               meta={"subject": subjects[i // per_prompt % len(subjects)]})
        for i in range(renders)])
    now = timezone.now()
    rows = []
    for i, sketch in enumerate(sketches):
        name = default_storage.save(f"renders/bench/{sketch.pk}.png", io.BytesIO(png_bytes(i)))
        rows.append(Render(sketch=sketch, seed=0, status=Render.Status.OK, png=name,
                           width=RENDER_SIDE, height=RENDER_SIDE, rendered=now))
    if per_prompt > 1:
        from pool.models import RewardModel
        from pool.reward.scoring import model_label

        model = RewardModel.objects.create(version=1, status=RewardModel.Status.DONE,
                                           active=True)
        rng = random.Random(0)
        for row in rows:
            row.taste_score, row.taste_model = rng.gauss(0, 1.5), model_label(model)
    Render.objects.bulk_create(rows)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would after a bulk import
    from django.contrib.auth import get_user_model

    group = curator_group()
    curators = []
    for i in range(CURATORS):
        user = get_user_model().objects.create_user(f"bench{i}", password=secrets.token_hex(8))
        user.groups.add(group)
        curators.append(user)
    return curators


def session_cookie(user) -> str:
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def grading_reset() -> None:
    from rating.models import Claim, Comparison, Grade, PairClaim, Skip

    for model in (Claim, Skip, Grade, PairClaim, Comparison):
        model.objects.all().delete()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until_up(port: int, process: subprocess.Popen) -> None:
    deadline = time.time() + 60
    while time.time() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"the server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("the server did not start within 60 s")


# ---- HTTP curators ------------------------------------------------------------------

@dataclass
class Timings:
    server_ms: list[float] = field(default_factory=list)
    cpu_ms: list[float] = field(default_factory=list)
    round_trip_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, server_ms: float, cpu_ms: float, round_trip_ms: float) -> None:
        with self.lock:
            self.server_ms.append(server_ms)
            self.cpu_ms.append(cpu_ms)
            self.round_trip_ms.append(round_trip_ms)


def server_timing(header: str, name: str = "wsgi") -> float:
    """The duration of one entry of a Server-Timing header ("app;dur=1.2, wsgi;dur=3.4")."""
    for entry in header.split(","):
        metric, _, duration = entry.strip().partition(";dur=")
        if metric == name:
            return float(duration)
    return float("nan")


class HttpCurator:
    """One curator grading over HTTP the way grading.js does: hold a few
    renders, post each grade with what it still holds, take what comes back."""

    def __init__(self, port: int, session: str):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Cookie": f"sessionid={session}; csrftoken={CSRF_SECRET}",
                        "X-CSRFToken": CSRF_SECRET, "Accept": "application/json"}
        self.upcoming: list[int] = []

    def request(self, method: str, path: str, body: dict | None = None):
        headers = dict(self.headers)
        payload = None
        if body is not None:
            payload = urlencode(body)
            headers["Content-Type"] = "application/x-www-form-urlencoded"
        started = time.perf_counter()
        self.conn.request(method, path, body=payload, headers=headers)
        response = self.conn.getresponse()
        data = response.read()
        round_trip = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise RuntimeError(f"{method} {path}: {response.status} {data[:200]!r}")
        timing = response.getheader("Server-Timing", "")
        return json.loads(data), (server_timing(timing), server_timing(timing, "cpu")), round_trip

    def start(self) -> None:
        body, _, _ = self.request("GET", f"/rate/next/?want={PREFETCH}")
        self.upcoming = [e["id"] for e in body["entries"]]

    def grade_next(self, rng: random.Random) -> tuple[float, float, float] | None:
        if not self.upcoming:
            return None
        render = self.upcoming.pop(0)
        body, server, round_trip = self.request("POST", "/rate/act/", {
            "op": "grade", "render": render, "value": rng.choice(["love", "okay", "nope"]),
            "shown_ms": 900, "want": PREFETCH, "have": ",".join(map(str, self.upcoming))})
        self.upcoming += [e["id"] for e in body["entries"]]
        return *server, round_trip


class HttpComparer(HttpCurator):
    """One curator comparing over HTTP the way compare.js does: hold a few
    pairs, post each choice with the pairs it still holds."""

    def start(self) -> None:
        body, _, _ = self.request("GET", f"/rate/compare/next/?want={PREFETCH}")
        self.upcoming = [e["key"] for e in body["entries"]]

    def grade_next(self, rng: random.Random) -> tuple[float, float, float] | None:
        if not self.upcoming:
            return None
        left, right = self.upcoming.pop(0).split("-")
        body, server, round_trip = self.request("POST", "/rate/compare/act/", {
            "op": "compare", "left": left, "right": right,
            "choice": rng.choice(["left", "right", "tie"]), "shown_ms": 1400,
            "want": PREFETCH, "have": ",".join(self.upcoming)})
        self.upcoming += [e["key"] for e in body["entries"]]
        return *server, round_trip


def run_http_curators(port: int, sessions: list[str], grades_each: int, timings: Timings,
                      pause_s: float = 0.0, stop: threading.Event | None = None,
                      kind: type[HttpCurator] = HttpCurator) -> None:
    def work(index: int) -> None:
        curator, rng = kind(port, sessions[index]), random.Random(index)
        try:
            curator.start()
            for _ in range(grades_each):
                if stop is not None and stop.is_set():
                    return
                result = curator.grade_next(rng)
                if result is None:
                    timings.errors.append(f"curator {index} ran out of renders")
                    return
                timings.add(*result)
                if pause_s:
                    # Jittered, so the curators' requests arrive independently rather
                    # than in lockstep bursts of four.
                    time.sleep(rng.uniform(0.5, 1.5) * pause_s)
        except Exception as exc:  # noqa: BLE001 - counted and printed, never hidden
            timings.errors.append(f"curator {index}: {exc}")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(sessions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


# ---- the browser curator ------------------------------------------------------------

@dataclass(frozen=True)
class PageSpec:
    """What the browser curator drives: the grading page, or the comparing page."""

    path: str
    ready: str  # the element the page's script marks once it runs
    stage_img: str  # the stage's image(s), loaded before the first key
    keys: tuple[str, ...]  # pressed at random
    act: str  # the action endpoint, whose Server-Timing is collected
    shown_event: str  # the page's event when the next item is on stage
    images: int  # images painted per keypress: the new item's


GRADING_PAGE = PageSpec("/rate/", "#grading.js", "#stage img", ("1", "2", "3"), "/rate/act/",
                        "grading:shown", 1)
COMPARING_PAGE = PageSpec("/rate/compare/", "#comparing.js", "#pair-stage img",
                          ("ArrowLeft", "ArrowRight", "1", "2", "t"), "/rate/compare/act/",
                          "compare:shown", 2)

# Installed before the page's own scripts: a capture-phase keydown listener
# stamps the key, Element Timing reports when the swapped-in image(s) are
# painted (the later of a pair's two), and the page's "shown" event gives the
# next-animation-frame time too.
PAGE_PROBE = """
const spec = __SPEC__;
window.__bench = { t0: null, waiting: 0, latest: 0, painted: [], frame: [], server: [], cpu: [] };
document.addEventListener("keydown", (e) => {
  if (!spec.keys.includes(e.key)) return;
  Object.assign(window.__bench, { t0: performance.now(), waiting: spec.images, latest: 0 });
}, true);
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const b = window.__bench;
    if (b.t0 === null || !entry.renderTime || entry.renderTime < b.t0 || !b.waiting) continue;
    b.latest = Math.max(b.latest, entry.renderTime);
    b.waiting -= 1;
    if (!b.waiting) b.painted.push(b.latest - b.t0);
  }
}).observe({ type: "element", buffered: false });
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    if (!entry.name.includes(spec.act)) continue;
    for (const t of entry.serverTiming || []) {
      if (t.name === "wsgi") window.__bench.server.push(t.duration);
      if (t.name === "cpu") window.__bench.cpu.push(t.duration);
    }
  }
}).observe({ type: "resource", buffered: false });
document.addEventListener(spec.shown, () => {
  const b = window.__bench;
  if (b.t0 === null) return;
  const t0 = b.t0;
  requestAnimationFrame(() => setTimeout(() => b.frame.push(performance.now() - t0), 0));
}, true);
"""


def run_browser(port: int, session: str, keypresses: int, spec: PageSpec = GRADING_PAGE) -> dict:
    from playwright.sync_api import sync_playwright

    base = f"http://127.0.0.1:{port}"
    chromium = os.environ.get("PAINTRL_CHROMIUM_PATH", "/usr/bin/chromium")
    probe = PAGE_PROBE.replace("__SPEC__", json.dumps(
        {"keys": spec.keys, "images": spec.images, "act": spec.act, "shown": spec.shown_event}))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
        context.add_init_script(probe)
        page = context.new_page()
        page.goto(f"{base}{spec.path}")
        page.wait_for_selector(spec.ready)
        page.wait_for_function(f"() => [...document.querySelectorAll('{spec.stage_img}')]"
                               ".every(img => img.complete)")
        page.wait_for_timeout(500)  # let the first preloads land, as a curator's first look would
        rng = random.Random(7)
        for i in range(keypresses):
            page.keyboard.press(rng.choice(spec.keys))
            page.wait_for_function(f"() => window.__bench.frame.length > {i}")
            page.wait_for_timeout(BROWSER_PAUSE_S * 1000)
        page.wait_for_function(
            "() => document.getElementById('save-status').dataset.pending === '0'")
        result = page.evaluate("() => window.__bench")
        result["saved"] = int(page.get_attribute("#save-status", "data-saved"))
        browser.close()
    return result


# ---- report -------------------------------------------------------------------------

def percentiles(values: list[float]) -> tuple[float, float, float]:
    if len(values) < 2:
        return (values[0],) * 3 if values else (float("nan"),) * 3
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return statistics.median(values), cuts[94], max(values)


def line(label: str, values: list[float]) -> str:
    p50, p95, top = percentiles(values)
    return f"  {label:<44} n={len(values):<5} p50 {p50:7.1f}   p95 {p95:7.1f}   max {top:7.1f}"


def verdict(name: str, value: float, target: float) -> str:
    mark = "PASS" if value <= target else "MISS"
    return f"{mark}  {name}: p95 {value:.1f} ms (target <= {target:.0f} ms)"


def database_check() -> str:
    from rating.models import Grade

    graded = Grade.objects.count()
    distinct = Grade.objects.values("render").distinct().count()
    return (f"database: {graded} grades on {distinct} renders "
            f"(no render twice: {graded == distinct})")


def http_phase(title: str, port: int, sessions: list[str], grades_each: int,
               pause_s: float) -> Timings:
    print(f"\n{title}")
    timings = Timings()
    started = time.perf_counter()
    run_http_curators(port, sessions, grades_each, timings, pause_s)
    wall = time.perf_counter() - started
    print(line("server: grade and fetch next (ms)", timings.server_ms))
    print(line("  of which CPU in the serving thread (ms)", timings.cpu_ms))
    print(line("client round trip (ms)", timings.round_trip_ms))
    print(f"  {len(timings.server_ms)} grades in {wall:.1f} s "
          f"({len(timings.server_ms) / wall:.0f}/s); errors: {timings.errors or 'none'}")
    print(f"  {database_check()}")
    return timings


def browser_phase(title: str, port: int, sessions: list[str], keypresses: int, *,
                  renders: int, spec: PageSpec = GRADING_PAGE,
                  kind: type[HttpCurator] = HttpCurator) -> tuple[Timings, dict]:
    """One curator by keyboard in Chromium while the others act over HTTP."""
    print(f"\n{title}, one every {BROWSER_PAUSE_S * 1000:.0f} ms, while {CURATORS - 1} "
          f"curators act over HTTP about every {COMPANION_PAUSE_S * 1000:.0f} ms")
    companions, stop = Timings(), threading.Event()
    background = threading.Thread(target=run_http_curators, args=(
        port, sessions[1:], renders, companions, COMPANION_PAUSE_S, stop, kind))
    background.start()
    try:
        browser = run_browser(port, sessions[0], keypresses, spec)
    finally:
        stop.set()
        background.join()
    item = "pair" if spec is COMPARING_PAGE else "image"
    print(line(f"keypress to next {item} painted (ms)", browser["painted"]))
    print(line("keypress to next animation frame (ms)", browser["frame"]))
    print(line("server, the browser's actions (ms)", browser["server"]))
    print(line("server, the other curators' actions (ms)", companions.server_ms))
    print(line("  CPU, all actions (ms)", companions.cpu_ms + browser["cpu"]))
    print(f"  browser saved {browser['saved']} actions; other curators: "
          f"{len(companions.server_ms)} actions, errors: {companions.errors or 'none'}")
    print(f"  {comparison_check() if spec is COMPARING_PAGE else database_check()}")
    return companions, browser


def comparison_check() -> str:
    from rating.models import Comparison
    from rating.pairs import pair_key

    keys = [pair_key(a, b) for a, b in Comparison.objects.values_list("left", "right")]
    return (f"database: {len(keys)} comparisons of {len(set(keys))} pairs "
            f"(no pair twice at overlap 1: {len(keys) == len(set(keys))})")


def compare_main(port: int, sessions: list[str], args) -> None:
    """(a') and (b) for the comparing page (module docstring)."""
    print(f"\n(a') {CURATORS} curators compare over HTTP, one pair every "
          f"{COMPANION_PAUSE_S * 1000:.0f} ms on average each, {args.paced_grades} each")
    paced = Timings()
    run_http_curators(port, sessions, args.paced_grades, paced, COMPANION_PAUSE_S,
                      kind=HttpComparer)
    print(line("server: compare and fetch next (ms)", paced.server_ms))
    print(line("  of which CPU in the serving thread (ms)", paced.cpu_ms))
    print(line("client round trip (ms)", paced.round_trip_ms))
    print(f"  errors: {paced.errors or 'none'}; {comparison_check()}")
    grading_reset()
    companions, browser = browser_phase(
        f"(b) Chromium: {args.keypresses} pairs compared by keyboard", port, sessions,
        args.keypresses, renders=args.renders, spec=COMPARING_PAGE, kind=HttpComparer)
    print()
    print(verdict("server, compare and fetch next, 4 curators at a brisk pace",
                  percentiles(paced.server_ms)[1], TARGET_SERVER_P95_MS))
    print(verdict("server, compare and fetch next, while the browser compares",
                  percentiles(companions.server_ms + browser["server"])[1],
                  TARGET_SERVER_P95_MS))
    print(verdict("keypress to next pair painted", percentiles(browser["painted"]
                                                               or browser["frame"])[1],
                  TARGET_PAINT_P95_MS))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--renders", type=int, default=1664)
    parser.add_argument("--grades-each", type=int, default=200,
                        help="grades per curator in (a)")
    parser.add_argument("--paced-grades", type=int, default=150,
                        help="grades per curator in (a')")
    parser.add_argument("--keypresses", type=int, default=150, help="grades by keyboard in (b)")
    parser.add_argument("--database-url",
                        default=os.environ.get("PAINTRL_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--server-processes", type=int, default=os.cpu_count() or 1,
                        help="server processes sharing the port (default: one per core)")
    parser.add_argument("--compare", action="store_true",
                        help="measure the comparing page instead of the grading page")
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve)
        return
    if not args.database_url.startswith("postgres"):
        raise SystemExit("this benchmark is about row locks: it needs a PostgreSQL URL")
    if CURATORS * args.grades_each > args.renders - CURATORS * PREFETCH:
        raise SystemExit("--grades-each too large for --renders")

    media = tempfile.mkdtemp(prefix="paintrl-rating-bench-")
    env = {**os.environ, "DATABASE_URL": args.database_url, "PAINTRL_MEDIA_ROOT": media,
           "PAINTRL_DEBUG": "0", "PAINTRL_SECRET_KEY": secrets.token_urlsafe(50),
           "PAINTRL_DB_CONN_MAX_AGE": "60", "PAINTRL_GRADE_PREFETCH": str(PREFETCH),
           "PAINTRL_GRADE_OVERLAP": "1", "DJANGO_SETTINGS_MODULE": "paintrl_site.settings"}
    os.environ.update(env)
    database_recreate(args.database_url)
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    curators = seed(args.renders, PER_PROMPT if args.compare else 1)
    sessions = [session_cookie(c) for c in curators]
    print(f"seeded {args.renders} renders ({RENDER_SIDE} px PNGs) and {CURATORS} curators "
          f"in {time.perf_counter() - started:.1f} s; database {args.database_url}")

    port = free_port()
    servers = [subprocess.Popen([sys.executable, __file__, "--serve", str(port)], cwd=ROOT,
                                env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
               for _ in range(args.server_processes)]
    print(f"server: {args.server_processes} process(es) sharing port {port}, "
          f"threaded, persistent database connections")
    try:
        for server in servers:
            wait_until_up(port, server)
        if args.compare:
            compare_main(port, sessions, args)
            return
        server_a = http_phase(f"(a) {CURATORS} curators over HTTP, flat out, "
                              f"{args.grades_each} grades each", port, sessions,
                              args.grades_each, pause_s=0.0)
        grading_reset()
        server_paced = http_phase(
            f"(a') {CURATORS} curators over HTTP, one grade every "
            f"{COMPANION_PAUSE_S * 1000:.0f} ms on average each, {args.paced_grades} grades each",
            port, sessions, args.paced_grades, pause_s=COMPANION_PAUSE_S)
        grading_reset()
        companions, browser = browser_phase(
            f"(b) Chromium: {args.keypresses} grades by keyboard", port, sessions,
            args.keypresses, renders=args.renders)
        print()
        print(verdict("server, grade and fetch next, 4 curators flat out",
                      percentiles(server_a.server_ms)[1], TARGET_SERVER_P95_MS))
        print(verdict("server, grade and fetch next, 4 curators at a brisk pace",
                      percentiles(server_paced.server_ms)[1], TARGET_SERVER_P95_MS))
        print(verdict("server, grade and fetch next, while the browser grades",
                      percentiles(companions.server_ms + browser["server"])[1],
                      TARGET_SERVER_P95_MS))
        paint = browser["painted"] or browser["frame"]
        print(verdict("keypress to next image painted", percentiles(paint)[1],
                      TARGET_PAINT_P95_MS))
    finally:
        for server in servers:
            server.terminate()
            try:
                _, errors = server.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                _, errors = server.communicate()
            if errors and b"Traceback" in errors:
                print("server errors:\n" + errors.decode()[-3000:])


if __name__ == "__main__":
    main()
