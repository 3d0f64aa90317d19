"""Grading under load: eight curators grading at once for a minute on
PostgreSQL while renders are imported; nothing lost, nothing duplicated, and
how long each request took.

The app runs as the demo runs it (Procfile): `manage.py runserver --noreload`
(Django's threaded development server, one process, a new database
connection per request unless PAINTRL_DB_CONN_MAX_AGE says otherwise) and a
Celery worker on the default queue. The curators are threads of this script,
each with its own session: they log in through the login form, open the
grading page, then grade as grading.js does (fetch the render's PNG, POST
rating:act, which saves the grade and answers the renders to hold next;
rating:next when the queue runs dry; the htmx progress fragment every 2 s),
as fast as the server answers. Meanwhile a staff user uploads zips of renders
through the import page, one after another, following each job's page until
the worker has imported it. Newest renders come first in the queue, so
imported renders are graded as they arrive.

Printed side by side: grades per curator, total, grades and requests per
second, latency p50/p95/p99/max per endpoint (the round trip measured by the
client on loopback, with the view's own Server-Timing under it where it sends
one), the imports, and the integrity checks (grades stored == grades
acknowledged; none lost; none unacknowledged; no curator handed a render
twice; no render over PAINTRL_GRADE_OVERLAP, counting grades, and grades plus
live claims, as rating.queue counts seats). It asserts nothing about speed;
it exits 1 when an integrity check fails.

The database is dropped and recreated each run; the Redis database (the
broker) is flushed, so give it one nothing else uses. Loopback only.

    .venv/bin/python benchmarks/grading_load.py [--seconds 60] [--curators 8]
        [--overlap 2] [--renders 4000] [--import-items 20]
        [--database-url postgres://postgres@127.0.0.1:5432/load_bench]
        [--redis-url redis://127.0.0.1:6379/14]

Figures depend on the machine and what else runs on it; compare runs on the
same machine only. The harness is tests/load_harness.py, shared with
tests/test_grading_load.py.
"""
from __future__ import annotations

import argparse
import os
import secrets
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rating_bench import database_recreate  # noqa: E402 - benchmarks/ is this script's path

DEFAULT_DATABASE_URL = "postgres://postgres@127.0.0.1:5432/load_bench"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/14"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--curators", type=int, default=8)
    parser.add_argument("--overlap", type=int, default=2,
                        help="PAINTRL_GRADE_OVERLAP: curators per render (default 2)")
    parser.add_argument("--prefetch", type=int, default=5, help="PAINTRL_GRADE_PREFETCH")
    parser.add_argument("--renders", type=int, default=4000,
                        help="renders seeded before the run (imports add more)")
    parser.add_argument("--import-items", type=int, default=20,
                        help="renders in each uploaded zip")
    parser.add_argument("--database-url",
                        default=os.environ.get("PAINTRL_BENCH_DATABASE_URL", DEFAULT_DATABASE_URL))
    parser.add_argument("--redis-url",
                        default=os.environ.get("PAINTRL_BENCH_REDIS_URL", DEFAULT_REDIS_URL))
    args = parser.parse_args()
    if not args.database_url.startswith("postgres"):
        raise SystemExit("this benchmark is about PostgreSQL's row locks: give a postgres:// URL")

    media = tempfile.mkdtemp(prefix="paintrl-load-bench-")
    env = {"DATABASE_URL": args.database_url, "REDIS_URL": args.redis_url,
           "PAINTRL_MEDIA_ROOT": media, "PAINTRL_SECRET_KEY": secrets.token_urlsafe(50),
           "PAINTRL_GRADE_OVERLAP": str(args.overlap),
           "PAINTRL_GRADE_PREFETCH": str(args.prefetch),
           "DJANGO_SETTINGS_MODULE": "paintrl_site.settings"}
    os.environ.update(env)
    database_recreate(args.database_url)
    import django

    django.setup()
    import redis
    from django.core.management import call_command
    from django.db import connection

    from tests.load_harness import (
        app_stack,
        integrity_check,
        load_run,
        renders_seed,
        report_lines,
        users_create,
    )

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    renders_seed(args.renders)
    curators, staff = users_create(args.curators)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would after a bulk load
    connection.close()  # the database is the server's now
    redis.Redis.from_url(args.redis_url).flushdb()
    print(f"seeded {args.renders} renders (48 px PNGs), {args.curators} curators and a staff "
          f"importer in {time.perf_counter() - started:.1f} s; {args.database_url}, "
          f"broker {args.redis_url}")
    print(f"overlap {args.overlap}, prefetch {args.prefetch}; server: manage.py runserver "
          f"--noreload (threaded, DEBUG={os.environ.get('PAINTRL_DEBUG', 'on (default)')}, "
          f"PAINTRL_DB_CONN_MAX_AGE={os.environ.get('PAINTRL_DB_CONN_MAX_AGE', '0')}); "
          f"a Celery worker on the default queue; curators grade flat out for {args.seconds:.0f} s")

    print(f"load average before: {' '.join(f'{x:.1f}' for x in os.getloadavg())} "
          f"on {os.cpu_count()} cores")
    log_dir = tempfile.mkdtemp(prefix="paintrl-load-logs-")
    try:
        with app_stack(env, log_dir=log_dir) as port:
            run = load_run(port, curators=curators, staff=staff, seconds=args.seconds,
                           prefetch=args.prefetch, import_items=args.import_items)
    finally:
        shutil.rmtree(media, ignore_errors=True)  # thousands of PNGs; the rows stay
    integrity = integrity_check(run, overlap=args.overlap)
    print()
    print("\n".join(report_lines(run, integrity, overlap=args.overlap)))
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; "
          f"server and worker logs: {log_dir}")
    return 0 if integrity.ok else 1


if __name__ == "__main__":
    sys.exit(main())
