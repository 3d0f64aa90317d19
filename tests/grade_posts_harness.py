"""The grade-posts harness: curators posting grades to the API through
gunicorn as the production profile runs it (scripts/web.sh), each grade with
a key of its own, retried with that key when its answer does not come, as
the grading page's outbox retries. tests/test_grading_load.py runs it for a
few seconds, abandoning requests early so that retries meet grades already
saved, and asserts integrity; benchmarks/grade_posts_load.py runs it for a
minute beside CPU-heavy processes and prints figures.

Loopback only; every loop ends at a deadline, every request under a socket
timeout. Import this after django.setup(): the seeding and the checks use
the ORM."""
from __future__ import annotations

import http.client
import json
import os
import random
import secrets
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from django.db.models import Count

from api.tokens import token_create
from rating.models import Grade, GradeChange
from tests.ports import free_port
from tests.rating_data import curator_create

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"
VALUES = ("love", "okay", "nope")
# A grade not answered is sent again after this pause, with the same key.
RETRY_PAUSE_S = 0.2
# gunicorn listens long before its workers have loaded the app.
BOOT_WAIT_S = 180.0


@dataclass
class Curator:
    name: str
    token: str
    renders: list[int]
    acked: dict[int, str] = field(default_factory=dict)  # render -> the value answered
    unsaved: list[int] = field(default_factory=list)  # never answered before giving up
    attempts_ms: list[float] = field(default_factory=list)
    grades_ms: list[float] = field(default_factory=list)  # first send to answer
    timeouts: int = 0
    server_errors: int = 0
    refused: int = 0
    connect_errors: int = 0
    retries: int = 0
    abandoned: int = 0


def curators_create(count: int, render_ids: list[int]) -> list[Curator]:
    """`count` curators with a token each, each to grade every render in an order of its own."""
    curators = []
    for i in range(count):
        user = curator_create(f"poster-{i}")
        token = token_create(user=user, name="grade posts")[1]
        curators.append(Curator(user.username, token,
                                random.Random(i).sample(render_ids, len(render_ids))))
    return curators


def _headers(token: str) -> dict[str, str]:
    # The production profile redirects plain http unless a TLS proxy says https.
    return {"Authorization": f"Bearer {token}", "X-Forwarded-Proto": "https", "Host": HOST}


def answers(port: int, token: str) -> bool:
    """Whether the app itself answers (not only gunicorn's socket)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("GET", "/api/v1/", headers=_headers(token))
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()


def post_grade(port: int, curator: Curator, body: dict, timeout_s: float,
               abandon: bool = False) -> tuple[int | None, dict | None]:
    """One attempt: (status, answer), or (None, None) when none came in time.
    `abandon`: send it and hang up without waiting, as a client whose answer
    was lost (the server still saves it)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=timeout_s)
    started = time.perf_counter()
    try:
        conn.request("POST", "/api/v1/grades", body=json.dumps(body),
                     headers={**_headers(curator.token), "Content-Type": "application/json"})
        if abandon:
            curator.abandoned += 1
            return None, None
        response = conn.getresponse()
        status, raw = response.status, response.read()
    except TimeoutError:
        curator.timeouts += 1
        return None, None
    except (ConnectionError, http.client.HTTPException, OSError):
        curator.connect_errors += 1
        return None, None
    finally:
        curator.attempts_ms.append((time.perf_counter() - started) * 1000)
        conn.close()
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


def grade_loop(port: int, curator: Curator, *, deadline: float, give_up: float,
               timeout_s: float, abandon_first: bool = False) -> None:
    """Grade the curator's renders in order until `deadline`; a grade not
    answered is retried with its key until `give_up`. `abandon_first`: every
    grade's first request is abandoned, so each grade is sent at least twice."""
    rng = random.Random(curator.name)
    for render in curator.renders:
        if time.monotonic() >= deadline:
            return
        body = {"render": render, "value": rng.choice(VALUES), "key": secrets.token_hex(16)}
        first, abandon = time.perf_counter(), abandon_first
        while True:
            status, answer = post_grade(port, curator, body, timeout_s, abandon)
            if status == 201:
                curator.acked[render] = answer["value"]
                curator.grades_ms.append((time.perf_counter() - first) * 1000)
                break
            if status is not None and status < 500:
                curator.refused += 1  # the server said no: a retry would too
                break
            if status is not None:
                curator.server_errors += 1
            if time.monotonic() >= give_up:
                curator.unsaved.append(render)
                break
            curator.retries += 1
            if not abandon:  # an abandoned copy is chased at once: the retry races it
                time.sleep(RETRY_PAUSE_S)
            abandon = False


@dataclass(frozen=True)
class Integrity:
    lost: int  # acknowledged, but not stored with the value last acknowledged
    doubled: int  # grades with more than one history row: each was given once
    unsaved: int
    stored: int


def integrity_check(curators: list[Curator]) -> Integrity:
    stored = {(g.curator.username, g.render_id): g.value
              for g in Grade.objects.select_related("curator")}
    lost = sum(1 for c in curators for render, value in c.acked.items()
               if stored.get((c.name, render)) != value)
    doubled = (GradeChange.objects.values("grade").annotate(n=Count("pk")).filter(n__gt=1)
               .count())
    return Integrity(lost, doubled, sum(len(c.unsaved) for c in curators), len(stored))


def _gunicorn_shim(folder: Path) -> Path:
    """A folder whose `gunicorn` (what scripts/web.sh runs) is this
    interpreter's: a copied virtual environment's own script names another."""
    bin_dir = folder / "bin"
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "gunicorn"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m gunicorn "$@"\n')
    shim.chmod(0o755)
    return bin_dir


@contextmanager
def web_production(env: dict[str, str], folder: Path, token: str) -> Iterator[int]:
    """scripts/web.sh under the production profile on `env` (DATABASE_URL,
    media...), its log in folder/web.log with each request's time in the
    server (microseconds, last on the line). Yields the port once the app answers."""
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "paintrl_site.settings",
           "PAINTRL_PROFILE": "production", "PAINTRL_SECRET_KEY": secrets.token_urlsafe(50),
           "PAINTRL_ALLOWED_HOSTS": HOST, "PAINTRL_BEHIND_TLS_PROXY": "1",
           "PAINTRL_HOST": HOST, "PAINTRL_PORT": str(port),
           "GUNICORN_CMD_ARGS": "--access-logformat '%(t)s %(p)s %(r)s %(s)s %(D)s'",
           "PATH": f"{_gunicorn_shim(folder)}:{os.environ['PATH']}", **env}
    log_path = folder / "web.log"
    with open(log_path, "wb") as log:
        web = subprocess.Popen(["sh", "scripts/web.sh"], cwd=ROOT, env=env, stdout=log,
                               stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + BOOT_WAIT_S
            while not answers(port, token):
                if web.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the web server did not come up:\n"
                                       + log_path.read_text(errors="replace")[-3000:])
                time.sleep(0.2)
            yield port
        finally:
            web.terminate()
            try:
                web.wait(timeout=30)
            except subprocess.TimeoutExpired:
                web.kill()
                web.wait()
