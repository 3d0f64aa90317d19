"""Grade posts under load: curators posting grades to the API (POST
/api/v1/grades) as fast as the server answers, through gunicorn as the
production profile runs it (scripts/web.sh), on SQLite or PostgreSQL, while
CPU-heavy processes keep the machine busy as a render batch does. Does every
grade arrive once, and how long does a grade take?

Each curator is a thread of this script with its own API token. It grades
renders in its own order, one request at a time, each grade with a key of
its own (rating.services.grade_submit). A request that times out on the
client (REQUEST_TIMEOUT_S), fails to connect, or answers 5xx is sent again
with the same key, as the grading page's outbox does, until it is answered
or the run's grace period is over. The harness is tests/grade_posts_harness.py,
shared with tests/test_grading_load.py. The clock starts once the app
answers (gunicorn listens long before its workers have loaded the app).

Printed: grades acknowledged, per second; each request's round trip and each
grade's (first send to answer) at p50, p95 and max; timeouts, server errors,
retries, gunicorn's worker timeouts (from its log); and the integrity checks:
lost (acknowledged, but not stored with the value last acknowledged),
unsaved (never acknowledged before the grace ran out), doubled (a grade with
more than one history row, when each was given once). It asserts nothing
about speed; it exits 1 when a grade is lost or doubled.

    .venv/bin/python benchmarks/grade_posts_load.py --database sqlite|postgres
        [--seconds 60] [--curators 8] [--workers 2] [--busy 2] [--renders 3000]
        [--postgres-url postgres://postgres@127.0.0.1:5432/grade_posts_bench]

The database is made afresh each run (a file in a temporary folder for
SQLite; the PostgreSQL database named is dropped and recreated). Loopback
only. Compare runs on one machine only; docs/benchmarks.md has the figures.
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rating_bench import database_recreate  # noqa: E402 - benchmarks/ is this script's path

# A client gives up on an answer after this and sends the grade again, as a
# browser's abandoned fetch would be; gunicorn's own worker timeout is 30 s.
REQUEST_TIMEOUT_S = 30.0
# After the run's end, how long unanswered grades keep being retried.
GRACE_S = 90.0
DEFAULT_POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/grade_posts_bench"


def burn(stop) -> None:
    """A CPU-bound process, as each browser of a render batch is."""
    x = 0
    while not stop.is_set():
        for i in range(200_000):
            x = (x * 31 + i) % 1_000_003


def spread(values: list[float]) -> str:
    if not values:
        return "-"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
    return (f"p50 {statistics.median(ordered):7.0f} ms  p95 {p95:7.0f} ms  "
            f"max {ordered[-1]:7.0f} ms")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", choices=("sqlite", "postgres"), required=True)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--curators", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2, help="PAINTRL_WEB_WORKERS")
    parser.add_argument("--busy", type=int, default=2,
                        help="CPU-bound processes beside the server (a render batch's load)")
    parser.add_argument("--renders", type=int, default=3000)
    parser.add_argument("--postgres-url", default=DEFAULT_POSTGRES_URL)
    parser.add_argument("--server-log", help="keep gunicorn's log (each request's own time, "
                                             "in microseconds, last on its line) here")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="paintrl-grade-posts-"))
    if args.database == "sqlite":
        database_url = f"sqlite:///{folder}/bench.sqlite3"
    else:
        database_recreate(args.postgres_url)
        database_url = args.postgres_url
    env = {"DATABASE_URL": database_url, "PAINTRL_MEDIA_ROOT": str(folder),
           "PAINTRL_WEB_WORKERS": str(args.workers)}
    os.environ.update(env, DJANGO_SETTINGS_MODULE="paintrl_site.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from sketches.models import Render
    from tests.grade_posts_harness import (
        curators_create,
        grade_loop,
        integrity_check,
        web_production,
    )
    from tests.load_harness import renders_seed

    call_command("migrate", verbosity=0)
    renders_seed(args.renders)
    curators = curators_create(args.curators, list(Render.objects.values_list("pk", flat=True)))
    connection.close()  # the server's processes are the only writers during the run

    stop = multiprocessing.Event()
    burners = [multiprocessing.Process(target=burn, args=(stop,)) for _ in range(args.busy)]
    try:
        with web_production(env, folder, curators[0].token) as port:
            for burner in burners:
                burner.start()
            started = time.monotonic()
            deadline, give_up = started + args.seconds, started + args.seconds + GRACE_S
            threads = [threading.Thread(target=grade_loop, args=(port, c), kwargs={
                "deadline": deadline, "give_up": give_up, "timeout_s": REQUEST_TIMEOUT_S})
                for c in curators]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.monotonic() - started
    finally:
        stop.set()
        for burner in burners:
            if burner.pid is not None:
                burner.join()

    web_log = (folder / "web.log").read_text(errors="replace")
    checks = integrity_check(curators)
    acked = sum(len(c.acked) for c in curators)
    total = {name: sum(getattr(c, name) for c in curators)
             for name in ("timeouts", "server_errors", "connect_errors", "retries", "refused")}
    server_ms = [int(line.rsplit(" ", 1)[1]) / 1000 for line in web_log.splitlines()
                 if "POST /api/v1/grades" in line]
    print(f"{args.database}, gunicorn {args.workers} workers (scripts/web.sh), "
          f"{args.curators} curators, {args.busy} busy processes, {args.seconds:.0f} s "
          f"(ran {elapsed:.0f} s)")
    print(f"grades acknowledged {acked} ({acked / elapsed:.1f}/s), stored {checks.stored}")
    print(f"request   {spread([m for c in curators for m in c.attempts_ms])}  (client)")
    print(f"in server {spread(server_ms)}")
    print(f"grade     {spread([m for c in curators for m in c.grades_ms])}  (first send to answer)")
    print(", ".join(f"{name.replace('_', ' ')} {n}" for name, n in total.items())
          + f", worker timeouts {web_log.count('WORKER TIMEOUT')}")
    print(f"lost {checks.lost}, unsaved {checks.unsaved}, doubled {checks.doubled}")
    if args.server_log:
        shutil.copy(folder / "web.log", args.server_log)
    shutil.rmtree(folder, ignore_errors=True)
    return 1 if checks.lost or checks.doubled else 0


if __name__ == "__main__":
    sys.exit(main())
