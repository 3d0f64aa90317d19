"""Four curators grading one queue at the same time, on PostgreSQL: at overlap
1 no render is graded twice and no grade is lost.

This test is about row locks, so it always runs on PostgreSQL. Under the
default SQLite settings it reruns itself in a subprocess with DATABASE_URL
pointing at PAINTRL_TEST_POSTGRES_URL (default: the CI database), and fails,
saying so, when PostgreSQL cannot be reached. It never skips."""
from __future__ import annotations

import threading
from collections import Counter

from django.db import connection
from django.urls import reverse

from rating.models import Claim, Grade
from sketches.models import Render, Sketch, code_hash
from tests.postgresql import clients_logged_in, on_postgresql, run_at_once
from tests.rating_data import curator_create

CURATORS = 4
GRADES_EACH = 200
PREFETCH = 5


def test_four_curators_grading_at_once_never_double_grade_or_lose_a_grade(
        request, settings, transactional_db):
    if not on_postgresql(request):
        return
    settings.PAINTRL_GRADE_OVERLAP = 1
    settings.PAINTRL_GRADE_PREFETCH = PREFETCH
    # Enough for every curator's 200 grades plus the renders each still holds at the end.
    _gradable_renders(CURATORS * GRADES_EACH + CURATORS * PREFETCH)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # as autovacuum would soon: plan for 820 rows, not none
    curators = [curator_create(f"curator{i}") for i in range(CURATORS)]
    clients = clients_logged_in(curators)

    start = threading.Barrier(CURATORS)
    graded: dict[int, list[int]] = {}
    errors: list[str] = []

    def grade_as(index: int) -> None:
        client, mine = clients[index], []
        try:
            start.wait()
            upcoming = [e["id"] for e in client.get(reverse("rating:next"),
                                                    {"want": PREFETCH}).json()["entries"]]
            while len(mine) < GRADES_EACH:
                if not upcoming:
                    errors.append(f"curator{index} ran out of renders after {len(mine)}")
                    return
                render_id = upcoming.pop(0)
                response = client.post(reverse("rating:act"), {
                    "op": "grade", "render": render_id, "value": "love okay nope".split()[
                        render_id % 3], "shown_ms": 500, "want": PREFETCH,
                    "have": ",".join(map(str, upcoming))})
                if response.status_code != 200:
                    errors.append(f"curator{index}: {response.status_code} {response.content!r}")
                    return
                mine.append(render_id)
                upcoming += [e["id"] for e in response.json()["entries"]]
        except Exception as exc:  # noqa: BLE001 - reported below, with the thread it hit
            errors.append(f"curator{index}: {exc!r}")
        finally:
            graded[index] = mine
            connection.close()  # each thread's own connection, or the test DB cannot be dropped

    run_at_once(grade_as, CURATORS)

    assert errors == []
    sent = [render_id for mine in graded.values() for render_id in mine]
    assert len(sent) == CURATORS * GRADES_EACH
    twice = [render_id for render_id, n in Counter(sent).items() if n > 1]
    assert twice == [], f"renders handed to two curators: {twice[:10]}"
    stored = Counter(Grade.objects.values_list("render_id", flat=True))
    assert sum(stored.values()) == CURATORS * GRADES_EACH  # none lost
    assert max(stored.values()) == 1  # none graded twice
    for index, curator in enumerate(curators):
        assert set(Grade.objects.filter(curator=curator).values_list("render_id", flat=True)) \
            == set(graded[index])
    held = Counter(Claim.objects.values_list("render_id", flat=True))
    assert not held or max(held.values()) == 1  # nor held by two at the end
    assert not set(held) & set(stored)


def _gradable_renders(count: int) -> None:
    """Rows that passed the gate with an image path; this test never loads the
    images, so no files are written."""
    code = "function setup() { createCanvas(10, 10); }"
    sketches = Sketch.objects.bulk_create(
        [Sketch(code=code, code_sha256=code_hash(code), prompt=f"prompt {i}")
         for i in range(count)])
    Render.objects.bulk_create(
        [Render(sketch=s, seed=0, status=Render.Status.OK, png=f"renders/{s.pk}.png")
         for s in sketches])
