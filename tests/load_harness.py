"""The grading load harness: curators grading over HTTP while a staff user
imports renders through the upload page, against the real app server
(`manage.py runserver --noreload`, as the Procfile runs it) and a real Celery
worker on the default queue. tests/test_grading_load.py runs it for a few
seconds and asserts integrity; benchmarks/grading_load.py runs it for a minute
and prints figures.

Everything speaks HTTP to 127.0.0.1 only, and every loop ends: the curators'
and the importer's at a shared deadline (the importer then waits, bounded, for
the job it started), each request under a socket timeout.

Import this after django.setup(): the seeding and the checks use the ORM.
"""
from __future__ import annotations

import http.client
import io
import json
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from collections import Counter, defaultdict
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlencode

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db.models import Count
from django.utils import timezone

from rating.models import Claim, Grade
from sketches.models import ImportJob, Render, Sketch, code_hash
from tests.ports import free_port
from tests.rating_data import PASSWORD, curator_create, png_bytes

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"  # loopback only: nothing here may reach another machine
REQUEST_TIMEOUT_S = 30.0
# How long the importer waits for its last job after the deadline, and how
# often it polls the job page (the page itself polls every second).
IMPORT_FINISH_S = 120.0
IMPORT_POLL_S = 0.5
# The grading page refreshes its progress figures with htmx at most every 2 s.
PROGRESS_EVERY_S = 2.0
# A curator whose queue is empty (everything claimed) asks again this often.
EMPTY_QUEUE_WAIT_S = 0.2
# Every user logged in and on their page within this, or the run is off.
LOGIN_WAIT_S = 180.0
VALUES = ("love", "okay", "nope")
CSRF_INPUT = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')
GRADING_DATA = re.compile(r'<script id="grading-data" type="application/json">(.*?)</script>',
                          re.S)
JOB_STATUS = re.compile(r'class="status status-(\w+)"')


# ---- data -----------------------------------------------------------------------------

def renders_seed(count: int, *, start: int = 0) -> None:
    """`count` gradable renders with small real PNGs (48 px, one colour each),
    written in bulk: a minute of load needs thousands."""
    codes = [f"// load seed {i}\nfunction setup() {{ createCanvas(48, 48); }}"
             for i in range(start, start + count)]
    sketches = Sketch.objects.bulk_create(
        [Sketch(code=code, code_sha256=code_hash(code), prompt=f"a load-test study {i}",
                origin=Sketch.Origin.IMPORTED) for i, code in enumerate(codes, start=start)])
    now = timezone.now()
    rows = []
    for i, sketch in enumerate(sketches, start=start):
        name = default_storage.save(f"renders/load/{sketch.pk}.png",
                                    ContentFile(png_bytes(i)))
        rows.append(Render(sketch=sketch, seed=0, status=Render.Status.OK, png=name,
                           width=48, height=48, rendered=now))
    Render.objects.bulk_create(rows)


def users_create(curators: int) -> tuple[list[str], str]:
    """Curators load0.. and one staff user who imports; all log in with PASSWORD."""
    names = [f"load{i}" for i in range(curators)]
    for name in names:
        curator_create(name)
    curator_create("loadstaff", staff=True)
    return names, "loadstaff"


def import_zip(tag: str, size: int) -> bytes:
    """A zip as curators upload it: .js sketches, a PNG for each, a manifest
    naming both. `tag` makes the code (and so its SHA-256) new every time."""
    buffer = io.BytesIO()
    lines = []
    with zipfile.ZipFile(buffer, "w") as archive:
        for i in range(size):
            archive.writestr(f"s{i}.js", f"// load import {tag} {i}\nfunction setup() {{}}\n")
            archive.writestr(f"s{i}.png", png_bytes(hash((tag, i)) % 100_000))
            lines.append(json.dumps({"file": f"s{i}.js", "png": f"s{i}.png",
                                     "prompt": f"imported {tag} {i}"}))
        archive.writestr("manifest.jsonl", "\n".join(lines) + "\n")
    return buffer.getvalue()


# ---- processes: the app server and the default-queue worker ---------------------------

@contextmanager
def app_stack(env: dict[str, str], *, log_dir: str | None = None):
    """The web server as the Procfile's `web` line runs it and the `worker`
    line's Celery worker, both on `env` (DATABASE_URL, REDIS_URL, media...).
    Yields the port. Their output goes to files (a pipe nobody reads would
    stall the server); the tail is in the error when either dies early."""
    log_dir = log_dir or tempfile.mkdtemp(prefix="paintrl-load-")
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "paintrl_site.settings", **env}
    logs = {name: open(Path(log_dir) / f"{name}.log", "wb") for name in ("web", "worker")}
    procs = {
        "web": subprocess.Popen(
            [sys.executable, "manage.py", "runserver", f"{HOST}:{port}", "--noreload"],
            cwd=ROOT, env=env, stdout=logs["web"], stderr=subprocess.STDOUT),
        "worker": subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "paintrl_site", "worker", "-Q", "default",
             "-c", "1", "-n", f"load-default-{os.getpid()}@%h", "--without-heartbeat",
             "--without-gossip", "--without-mingle", "--loglevel", "WARNING"],
            cwd=ROOT, env=env, stdout=logs["worker"], stderr=subprocess.STDOUT),
    }
    try:
        wait_until_up(port, procs, log_dir)
        yield port
    finally:
        for proc in procs.values():
            proc.terminate()
        for proc in procs.values():
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs.values():
            log.close()


def wait_until_up(port: int, procs: dict, log_dir: str, timeout: float = 60.0) -> None:
    """Until something listens on `port`; a process of `procs` (name -> Popen,
    its output in log_dir/<name>.log) that exits first fails it with its log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for name, proc in procs.items():
            if proc.poll() is not None:
                raise RuntimeError(f"the {name} process exited with {proc.returncode}:\n"
                                   + log_tail(log_dir, name))
        try:
            socket.create_connection((HOST, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError(f"the server did not start within {timeout:.0f} s:\n"
                       + log_tail(log_dir, "web"))


def log_tail(log_dir: str, name: str, chars: int = 3000) -> str:
    path = Path(log_dir) / f"{name}.log"
    return path.read_text(errors="replace")[-chars:] if path.exists() else ""


# ---- HTTP -----------------------------------------------------------------------------

class Latency:
    """Round-trip times per endpoint, measured by the client on loopback."""

    def __init__(self):
        self.ms: dict[str, list[float]] = defaultdict(list)
        self.server_ms: dict[str, list[float]] = defaultdict(list)  # the views' Server-Timing
        self.lock = threading.Lock()

    def add(self, endpoint: str, ms: float, server_ms: float | None) -> None:
        with self.lock:
            self.ms[endpoint].append(ms)
            if server_ms is not None:
                self.server_ms[endpoint].append(server_ms)

    def requests(self) -> int:
        return sum(len(v) for v in self.ms.values())


class Session:
    """One user's browser: a keep-alive connection to the server and its cookies."""

    def __init__(self, port: int, latency: Latency):
        self.port, self.latency = port, latency
        self.conn = http.client.HTTPConnection(HOST, port, timeout=REQUEST_TIMEOUT_S)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, endpoint: str, *, body: bytes | None = None,
                headers: dict | None = None) -> tuple[int, http.client.HTTPResponse, bytes]:
        headers = {"Host": f"{HOST}:{self.port}", **(headers or {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if method == "POST":
            # Django's CSRF check wants a same-origin Referer/Origin on HTTPS only;
            # a browser sends Origin anyway.
            headers.setdefault("Origin", f"http://{HOST}:{self.port}")
        started = time.perf_counter()
        try:
            self.conn.request(method, path, body=body, headers=headers)
            response = self.conn.getresponse()
            data = response.read()
        except (http.client.HTTPException, OSError):
            self.conn.close()  # the next request opens a new connection
            raise
        elapsed = (time.perf_counter() - started) * 1000
        self.latency.add(endpoint, elapsed, _server_timing(response.getheader("Server-Timing")))
        for raw in response.msg.get_all("Set-Cookie") or []:
            for name, morsel in SimpleCookie(raw).items():
                self.cookies[name] = morsel.value
        return response.status, response, data

    def form_post(self, path: str, endpoint: str, fields: dict, **kwargs):
        return self.request("POST", path, endpoint, body=urlencode(fields, doseq=True).encode(),
                            headers={"Content-Type": "application/x-www-form-urlencoded",
                                     **kwargs.pop("headers", {})}, **kwargs)

    def login(self, username: str, password: str = PASSWORD) -> None:
        """Through the real login form, with its CSRF token."""
        status, _, page = self.request("GET", "/login/", "login page")
        token = _csrf_input(page, "the login page")
        status, response, _ = self.form_post("/login/", "login", {
            "username": username, "password": password, "csrfmiddlewaretoken": token,
            "next": "/"})
        if status != 302 or "sessionid" not in self.cookies:
            raise RuntimeError(f"login as {username} failed: {status}")

    def close(self) -> None:
        self.conn.close()


def _server_timing(header: str | None) -> float | None:
    if header and "app;dur=" in header:
        return float(header.split("app;dur=")[1].split(",")[0].split(";")[0])
    return None


def _csrf_input(page: bytes, where: str) -> str:
    match = CSRF_INPUT.search(page.decode("utf-8", "replace"))
    if match is None:
        raise RuntimeError(f"no CSRF token on {where}")
    return match.group(1)


# ---- the curators ---------------------------------------------------------------------

@dataclass
class Ack:
    """One action the server acknowledged (200 from rating:act)."""
    op: str  # grade | skip | undo (an undo here withdraws a new grade)
    render: int
    value: str = ""  # the grade's value after the action; "" when withdrawn or skipped
    previous: str = ""  # the value the server says the grade had before: "" for a new grade
    held: bool = False  # after an undo: the render is claimed for the curator again


@dataclass
class CuratorRun:
    username: str
    acks: list[Ack] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    empty_waits: int = 0  # times the queue came back empty and the curator waited

    def count(self, op: str) -> int:
        return sum(1 for a in self.acks if a.op == op)


def curator_work(run: CuratorRun, port: int, latency: Latency, stop: threading.Event,
                 ready: threading.Barrier, prefetch: int, seed: int, *,
                 skip_rate: float = 0.05, undo_rate: float = 0.05) -> None:
    """Log in and open the grading page, wait for everyone (`ready`), then
    grade as grading.js does: the page's entries first, then one POST to
    rating:act per action carrying what the browser still holds, its answer
    topping the queue up; rating:next when the queue runs dry; each render's
    PNG fetched before it is graded; the progress fragment every 2 s. Some
    renders are skipped (`skip_rate`) and some grades undone at once
    (`undo_rate`): the render comes back, held for this curator, and is
    graded again."""
    rng = random.Random(seed)
    session = Session(port, latency)
    try:
        try:
            session.login(run.username)
            status, _, page = session.request("GET", "/rate/", "grading page")
            if status != 200:
                raise RuntimeError(f"grading page: {status}")
        finally:
            ready.wait()  # a failed curator still lets the others start
        token = _csrf_input(page, "the grading page")
        data = json.loads(GRADING_DATA.search(page.decode()).group(1))
        upcoming = [(e["id"], e["png"]) for e in data["entries"]]
        last_progress = time.monotonic()

        def act(fields: dict, label: str) -> dict | None:
            """POST one action; the answer's new entries join the queue."""
            status, _, body = session.form_post(
                "/rate/act/", label,
                {**fields, "want": prefetch, "have": ",".join(str(pk) for pk, _ in upcoming)},
                headers={"X-CSRFToken": token, "Accept": "application/json"})
            if status != 200:
                run.errors.append(f"{label} on {fields['render']}: {status} {body[:200]!r}")
                return None
            answer = json.loads(body)
            held = {pk for pk, _ in upcoming}
            upcoming.extend((e["id"], e["png"]) for e in answer["entries"] if e["id"] not in held)
            return answer["saved"]

        while not stop.is_set():
            if not upcoming:
                status, _, body = session.request(
                    "GET", f"/rate/next/?{urlencode({'want': prefetch, 'have': ''})}", "next",
                    headers={"Accept": "application/json"})
                if status != 200:
                    run.errors.append(f"next: {status} {body[:200]!r}")
                    return
                upcoming = [(e["id"], e["png"]) for e in json.loads(body)["entries"]]
                if not upcoming:
                    run.empty_waits += 1
                    stop.wait(EMPTY_QUEUE_WAIT_S)
                    continue
            render, png = upcoming.pop(0)
            status, _, image = session.request("GET", png, "png")
            if status != 200 or not image.startswith(b"\x89PNG"):
                run.errors.append(f"png of {render}: {status}")
                return
            if rng.random() < skip_rate:
                saved = act({"op": "skip", "render": render}, "act (skip)")
                if saved is None:
                    return
                run.acks.append(Ack("skip", render))
                continue
            value = rng.choice(VALUES)
            saved = act({"op": "grade", "render": render, "value": value,
                         "shown_ms": rng.randint(300, 3000)}, "act (grade)")
            if saved is None:
                return
            if (saved["op"], saved["render"], saved["value"]) != ("grade", render, value):
                run.errors.append(f"grade of {render} answered {saved}")
                return
            run.acks.append(Ack("grade", render, value, saved["previous"]))
            if rng.random() < undo_rate and not saved["previous"]:
                # As the page's undo key does: the render goes back on stage first.
                upcoming.insert(0, (render, png))
                saved = act({"op": "undo", "render": render, "restore": ""}, "act (undo)")
                if saved is None:
                    return
                run.acks.append(Ack("undo", render, saved["value"], held=saved["held"]))
                if saved["value"] or not saved["held"]:
                    run.errors.append(f"undo of {render} answered {saved}")
                    return
            if time.monotonic() - last_progress >= PROGRESS_EVERY_S:
                last_progress = time.monotonic()
                status, _, _ = session.request("GET", "/rate/progress/", "progress (htmx)",
                                               headers={"HX-Request": "true"})
                if status != 200:
                    run.errors.append(f"progress: {status}")
                    return
    except Exception as exc:  # noqa: BLE001 - reported with the curator it hit
        run.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        session.close()


# ---- the importer ---------------------------------------------------------------------

@dataclass
class ImportRun:
    jobs: list[tuple[int, str, float]] = field(default_factory=list)  # (pk, status, seconds)
    items_each: int = 0
    errors: list[str] = field(default_factory=list)


def importer_work(run: ImportRun, port: int, latency: Latency, stop: threading.Event,
                  ready: threading.Barrier, username: str, items_each: int, tag: str) -> None:
    """Log in, wait for the curators (`ready`), then upload a zip through the
    import page, follow the job page (as its htmx fragment polls) until the
    worker finishes it, and again until the deadline. The job under way at
    the deadline is waited for, bounded."""
    run.items_each = items_each
    session = Session(port, latency)
    try:
        try:
            session.login(username)
        finally:
            ready.wait()
        n = 0
        while not stop.is_set():
            status, _, page = session.request("GET", "/sketches/import/", "import page")
            token = _csrf_input(page, "the import page")
            body, content_type = _multipart({"csrfmiddlewaretoken": token},
                                            "archive", f"load-{tag}-{n}.zip",
                                            import_zip(f"{tag}-{n}", items_each))
            status, response, data = session.request(
                "POST", "/sketches/import/", "import upload", body=body,
                headers={"Content-Type": content_type})
            location = response.getheader("Location", "")
            match = re.search(r"/sketches/import/(\d+)/", location)
            if status != 302 or match is None:
                run.errors.append(f"upload {n}: {status} {data[:300]!r}")
                return
            job, started, state = int(match.group(1)), time.monotonic(), ""
            limit = time.monotonic() + IMPORT_FINISH_S
            while time.monotonic() < limit:
                status, _, fragment = session.request(
                    "GET", f"/sketches/import/{job}/", "import job (htmx)",
                    headers={"HX-Request": "true"})
                state = (JOB_STATUS.search(fragment.decode()) or [None, f"http {status}"])[1]
                if state in ("done", "failed"):
                    break
                time.sleep(IMPORT_POLL_S)
            run.jobs.append((job, state, time.monotonic() - started))
            if state != "done":
                run.errors.append(f"import job {job} ended {state}")
                return
            n += 1
    except Exception as exc:  # noqa: BLE001 - reported below
        run.errors.append(f"{type(exc).__name__}: {exc}")
    finally:
        session.close()


def _multipart(fields: dict, file_field: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = f"----paintrl-load-{random.getrandbits(64):x}"
    parts = [f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
             for k, v in fields.items()]
    parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{file_field}"; '
                 f'filename="{filename}"\r\nContent-Type: application/zip\r\n\r\n'.encode()
                 + content + b"\r\n")
    parts.append(f"--{boundary}--\r\n".encode())
    return b"".join(parts), f"multipart/form-data; boundary={boundary}"


# ---- one run --------------------------------------------------------------------------

@dataclass
class LoadRun:
    seconds: float  # the grading window: from all logged in to the last curator stopped
    curators: list[CuratorRun]
    imports: ImportRun
    latency: Latency


def load_run(port: int, *, curators: list[str], staff: str, seconds: float, prefetch: int,
             import_items: int) -> LoadRun:
    """The curators and the importer at once, for `seconds` from when all
    have logged in (logins hash passwords: slow on purpose, and not grading)."""
    latency, stop = Latency(), threading.Event()
    runs = [CuratorRun(name) for name in curators]
    imports = ImportRun()
    ready = threading.Barrier(len(runs) + 2, timeout=LOGIN_WAIT_S)
    threads = [threading.Thread(target=curator_work, name=run.username,
                                args=(run, port, latency, stop, ready, prefetch, i))
               for i, run in enumerate(runs)]
    threads.append(threading.Thread(
        target=importer_work, name="importer",
        args=(imports, port, latency, stop, ready, staff, import_items,
              f"{os.getpid()}-{time.time_ns()}")))
    for thread in threads:
        thread.start()
    try:
        ready.wait()
    except threading.BrokenBarrierError:
        stop.set()  # someone could not log in in time; their thread reports why
    started = time.monotonic()
    stop.wait(seconds)
    stop.set()
    graded_for = None
    for thread in threads:  # the curators first: the grading window ends with them
        thread.join(timeout=IMPORT_FINISH_S + 2 * REQUEST_TIMEOUT_S)
        if thread.is_alive():
            raise RuntimeError(f"thread {thread.name} did not stop")
        if thread.name == "importer":
            continue
        graded_for = time.monotonic() - started
    return LoadRun(graded_for or seconds, runs, imports, latency)


# ---- integrity ------------------------------------------------------------------------

@dataclass
class Integrity:
    acknowledged: int  # grades the server's answers say exist now (undone ones left out)
    stored: int  # the curators' grades in the database
    lost: int  # acknowledged, but not in the database with that value
    unacknowledged: int  # in the database, never acknowledged
    handed_twice: int  # a curator given a render they had already graded
    handed_skipped: int  # a curator given a render they had skipped
    duplicate_rows: int  # (curator, render) pairs with more than one grade row
    over_overlap: int  # renders graded by more curators than the overlap allows
    seats_over: int  # renders with more grades + live claims than the overlap allows
    max_graders: int  # the most curators on one render
    request_errors: int  # failed requests, curators' and importer's
    imports_done: int
    imports_not_done: int  # jobs not finished "done", or imported fewer items than sent
    renders_imported: int
    grades_on_imported: int  # grades the curators gave renders imported during the run

    @property
    def ok(self) -> bool:
        return not (self.lost or self.unacknowledged or self.handed_twice or self.handed_skipped
                    or self.duplicate_rows or self.over_overlap or self.seats_over
                    or self.request_errors or self.imports_not_done
                    or self.acknowledged != self.stored or not self.imports_done)


def expected_grades(curator: CuratorRun) -> tuple[dict[int, str], int, int]:
    """What the server's answers say this curator's grades are now (render ->
    value), replaying them in order; with how many times the curator was
    handed a render they had graded (and not withdrawn) or had skipped."""
    grades: dict[int, str] = {}
    skipped: set[int] = set()
    handed_twice = handed_skipped = 0
    for ack in curator.acks:
        if ack.op == "grade":
            # The server saying the grade existed, or our own record of one, means
            # the queue handed a graded render back (nobody here re-grades on purpose).
            handed_twice += bool(ack.previous or ack.render in grades)
            handed_skipped += ack.render in skipped
            grades[ack.render] = ack.value
        elif ack.op == "undo":
            grades.pop(ack.render, None)
        elif ack.op == "skip":
            handed_twice += ack.render in grades
            handed_skipped += ack.render in skipped
            skipped.add(ack.render)
    return grades, handed_twice, handed_skipped


def integrity_check(run: LoadRun, *, overlap: int) -> Integrity:
    names = [c.username for c in run.curators]
    acked: dict[tuple[str, int], str] = {}
    handed_twice = handed_skipped = 0
    for curator in run.curators:
        grades, twice, skipped = expected_grades(curator)
        handed_twice += twice
        handed_skipped += skipped
        acked.update({(curator.username, render): value for render, value in grades.items()})
    rows = list(Grade.objects.filter(curator__username__in=names)
                .values_list("curator__username", "render_id", "value"))
    stored = {(u, r): v for u, r, v in rows}
    lost = sum(1 for key, value in acked.items() if stored.get(key) != value)
    unacknowledged = sum(1 for key in stored if key not in acked)
    duplicate_rows = (Grade.objects.values("render", "curator").annotate(n=Count("pk"))
                      .filter(n__gt=1).count())
    per_render = Counter(Grade.objects.values_list("render_id", flat=True))
    live = Counter(Claim.objects.filter(expires__gt=timezone.now())
                   .values_list("render_id", flat=True))
    seats = per_render + live
    # The uploads are named load-*.zip, which the import records as each sketch's source.
    imported = Render.objects.filter(sketch__meta__import__source__startswith="load-")
    jobs = ImportJob.objects.filter(pk__in=[pk for pk, _, _ in run.imports.jobs])
    done = [j for j in jobs if j.status == ImportJob.Status.DONE
            and (j.report or {}).get("counts", {}).get("imported") == run.imports.items_each]
    return Integrity(
        acknowledged=len(acked), stored=len(rows), lost=lost,
        unacknowledged=unacknowledged, handed_twice=handed_twice,
        handed_skipped=handed_skipped, duplicate_rows=duplicate_rows,
        over_overlap=sum(1 for n in per_render.values() if n > overlap),
        seats_over=sum(1 for n in seats.values() if n > overlap),
        max_graders=max(per_render.values(), default=0),
        request_errors=sum(len(c.errors) for c in run.curators) + len(run.imports.errors),
        imports_done=len(done), imports_not_done=len(run.imports.jobs) - len(done),
        renders_imported=imported.count(),
        grades_on_imported=Grade.objects.filter(render__in=imported).count())


# ---- report ---------------------------------------------------------------------------

def percentiles(values: list[float]) -> tuple[float, float, float, float]:
    """p50, p95, p99, max."""
    if len(values) < 2:
        return (values[0],) * 4 if values else (float("nan"),) * 4
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49], cuts[94], cuts[98], max(values)


def report_lines(run: LoadRun, integrity: Integrity, *, overlap: int) -> list[str]:
    lines = [f"grades posted per curator ({run.seconds:.1f} s):"]
    lines += [f"  {c.username:<10} {c.count('grade'):6d}   ({c.count('skip')} skips, "
              f"{c.count('undo')} undone)"
              + (f"   waited on an empty queue {c.empty_waits}x" if c.empty_waits else "")
              + (f"   ERRORS: {c.errors}" if c.errors else "") for c in run.curators]
    total = sum(c.count("grade") for c in run.curators)
    lines.append(f"  {'total':<10} {total:6d}   {total / run.seconds:.1f} grades/s; "
                 f"{run.latency.requests()} requests, "
                 f"{run.latency.requests() / run.seconds:.1f} requests/s (all endpoints)")
    lines.append("latency per endpoint, ms: round trip measured by the client on loopback "
                 "(server time plus loopback; 'view' = the view's own Server-Timing)")
    lines.append(f"  {'endpoint':<20} {'n':>6} {'p50':>8} {'p95':>8} {'p99':>8} {'max':>8}")
    for endpoint in sorted(run.latency.ms, key=lambda e: -len(run.latency.ms[e])):
        p50, p95, p99, top = percentiles(run.latency.ms[endpoint])
        lines.append(f"  {endpoint:<20} {len(run.latency.ms[endpoint]):6d} "
                     f"{p50:8.1f} {p95:8.1f} {p99:8.1f} {top:8.1f}")
        if endpoint in run.latency.server_ms:
            p50, p95, p99, top = percentiles(run.latency.server_ms[endpoint])
            lines.append(f"  {'  view':<20} {len(run.latency.server_ms[endpoint]):6d} "
                         f"{p50:8.1f} {p95:8.1f} {p99:8.1f} {top:8.1f}")
    times = [s for _, _, s in run.imports.jobs]
    lines.append(f"imports: {integrity.imports_done} jobs done of {len(run.imports.jobs)} "
                 f"({run.imports.items_each} renders each, {integrity.renders_imported} renders "
                 f"imported, {integrity.grades_on_imported} grades given them), upload to done p50 "
                 f"{statistics.median(times) if times else float('nan'):.1f} s"
                 + (f"; ERRORS: {run.imports.errors}" if run.imports.errors else ""))
    checks = [
        ("grades in the database == grades acknowledged (less those undone)",
         integrity.stored == integrity.acknowledged,
         f"{integrity.stored} == {integrity.acknowledged}"),
        ("acknowledged grades lost", not integrity.lost, integrity.lost),
        ("stored grades never acknowledged", not integrity.unacknowledged,
         integrity.unacknowledged),
        ("(curator, render) graded twice", not (integrity.handed_twice
                                                or integrity.duplicate_rows),
         f"{integrity.handed_twice} handed again, {integrity.duplicate_rows} duplicate rows"),
        ("skipped renders handed back", not integrity.handed_skipped, integrity.handed_skipped),
        (f"renders over the overlap of {overlap}",
         not (integrity.over_overlap or integrity.seats_over),
         f"{integrity.over_overlap} by grades, {integrity.seats_over} by grades + live claims "
         f"(most graders on one render: {integrity.max_graders})"),
        ("request errors", not integrity.request_errors, integrity.request_errors),
        ("imports finished", integrity.imports_done and not integrity.imports_not_done,
         f"{integrity.imports_done} done, {integrity.imports_not_done} not"),
    ]
    lines.append("integrity:")
    lines += [f"  {'OK  ' if good else 'FAIL'} {label}: {detail}" for label, good, detail in checks]
    return lines
