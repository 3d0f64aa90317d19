"""Eight curators grading at once for a few seconds, over HTTP against the
real app server (runserver, as the Procfile runs it), while a staff user
imports renders through the upload page and a real Celery worker on the
default queue runs the imports. Newest renders come first in the queue, so
the curators grade imported renders as they arrive.

test_rating_concurrency.py proves four curators at overlap 1 in-process; this
runs at overlap 2 (the seat-counting path of rating.queue), through the
login form, CSRF, the grading page and rating:next, with imports writing at
the same time. It asserts integrity only, never timings: every acknowledged
grade stored with its value, nothing stored unacknowledged (a grade undone
is gone), no curator handed a render twice or one they skipped, no render
over the overlap, the imports finished. The curators also skip and undo, as
the page lets them, which moves seats between grades and claims.
benchmarks/grading_load.py runs the same harness for a minute and prints
figures.

Like test_rating_concurrency.py, it always runs on PostgreSQL, as the issue
asks: under the default SQLite settings it reruns itself there
(PAINTRL_TEST_POSTGRES_URL). It never skips. (Run on SQLite by hand, it
failed with "database is locked" while transactions were deferred, and
passes since settings.py begins them IMMEDIATE.)"""
from __future__ import annotations

import time

import redis
from django.contrib.auth import get_user_model
from django.db.models import Count

from rating.models import Grade, GradeReceipt
from sketches.models import Render
from tests import grade_posts_harness as posts
from tests.load_harness import (
    app_stack,
    integrity_check,
    load_run,
    renders_seed,
    report_lines,
    users_create,
)
from tests.postgresql import on_postgresql, run_at_once
from tests.workers import TEST_REDIS_URL, database_url

CURATORS = 8
SECONDS = 8
OVERLAP = 2
PREFETCH = 5
RENDERS = 400
IMPORT_ITEMS = 10
User = get_user_model()


def test_eight_curators_grading_during_imports_lose_and_duplicate_no_grade(
        media, request, transactional_db, tmp_path, settings):
    if not on_postgresql(request):
        return
    renders_seed(RENDERS)
    curators, staff = users_create(CURATORS)
    redis.Redis.from_url(TEST_REDIS_URL).flushdb()  # no stale import tasks from another run
    env = {"DATABASE_URL": database_url(), "REDIS_URL": TEST_REDIS_URL,
           "PAINTRL_MEDIA_ROOT": str(settings.MEDIA_ROOT),
           "PAINTRL_GRADE_OVERLAP": str(OVERLAP), "PAINTRL_GRADE_PREFETCH": str(PREFETCH)}

    with app_stack(env, log_dir=str(tmp_path)) as port:
        run = load_run(port, curators=curators, staff=staff, seconds=SECONDS,
                       prefetch=PREFETCH, import_items=IMPORT_ITEMS)

    integrity = integrity_check(run, overlap=OVERLAP)
    report = "\n".join(report_lines(run, integrity, overlap=OVERLAP))
    print(report)  # shown with -s, and with the failure when an assertion fails
    assert integrity.request_errors == 0, report
    assert all(c.count("grade") for c in run.curators), report  # every curator got to grade
    assert integrity.lost == 0, report
    assert integrity.unacknowledged == 0, report
    assert integrity.stored == integrity.acknowledged, report
    assert integrity.handed_twice == 0 and integrity.duplicate_rows == 0, report
    assert integrity.handed_skipped == 0, report
    assert integrity.over_overlap == 0 and integrity.seats_over == 0, report
    assert integrity.imports_done >= 1 and integrity.imports_not_done == 0, report
    assert integrity.renders_imported == integrity.imports_done * IMPORT_ITEMS, report
    assert integrity.ok, report

    # The checks can fail: a stored grade gone is lost, a third grader breaks overlap 2.
    Grade.objects.filter(curator__username=curators[0]).first().delete()
    full = (Grade.objects.values("render").annotate(n=Count("pk")).filter(n=OVERLAP)
            .order_by("render").first())
    Grade.objects.create(render_id=full["render"], curator=User.objects.get(username=staff),
                         value="okay")
    broken = integrity_check(run, overlap=OVERLAP)
    assert (broken.lost, broken.over_overlap, broken.ok) == (1, 1, False)


POSTERS = 4
POST_SECONDS = 6
POST_RENDERS = 300


def test_grade_posts_whose_answers_are_lost_land_once_when_retried(
        media, transactional_db, tmp_path, settings):
    """Curators post grades to the API through gunicorn (scripts/web.sh, the
    production profile), on the suite's database: each grade's first request
    is abandoned unanswered and sent again at once with its key, as the
    outbox does after a timeout, so retries race the copies the server is
    still saving, or find them saved. Every grade is then stored once, with
    the value answered, and one history row. Integrity only, never timings."""
    renders_seed(POST_RENDERS)
    curators = posts.curators_create(POSTERS, list(Render.objects.values_list("pk", flat=True)))
    env = {"DATABASE_URL": database_url(), "PAINTRL_MEDIA_ROOT": str(settings.MEDIA_ROOT)}
    with posts.web_production(env, tmp_path, curators[0].token) as port:
        deadline = time.monotonic() + POST_SECONDS
        run_at_once(lambda i: posts.grade_loop(port, curators[i], deadline=deadline,
                                         give_up=deadline + 120, timeout_s=60,
                                         abandon_first=True), POSTERS)

    checks = posts.integrity_check(curators)
    acked = sum(len(c.acked) for c in curators)
    report = (f"{checks}; acknowledged {acked}; abandoned "
              f"{sum(c.abandoned for c in curators)}; server errors "
              f"{sum(c.server_errors for c in curators)}; refused "
              f"{sum(c.refused for c in curators)}")
    assert all(c.acked for c in curators), report  # every curator got grades in
    assert sum(c.abandoned for c in curators) >= acked, report  # each was sent twice at least
    assert sum(c.server_errors + c.refused for c in curators) == 0, report
    assert (checks.lost, checks.doubled, checks.unsaved) == (0, 0, 0), report
    assert checks.stored == acked == GradeReceipt.objects.count(), report
