"""Four curators comparing pairs at the same time, on PostgreSQL: at overlap 2
no pair is judged by more than two curators, no curator is handed a pair
twice, and no comparison is lost.

This test is about the pair-claiming lock, so it always runs on PostgreSQL.
Under the default SQLite settings it reruns itself in a subprocess with
DATABASE_URL pointing at PAINTRL_TEST_POSTGRES_URL (default: the CI
database), and fails, saying so, when PostgreSQL cannot be reached. It never
skips."""
from __future__ import annotations

import threading
from collections import Counter

from django.db import connection
from django.urls import reverse

from rating.models import Comparison, PairClaim
from rating.pairs import pair_key
from sketches.models import Render, Sketch, code_hash
from tests.postgresql import clients_logged_in, on_postgresql, run_at_once
from tests.rating_data import curator_create

CURATORS = 4
COMPARISONS_EACH = 40
PREFETCH = 5
OVERLAP = 2
PER_PROMPT = 4  # 6 pairs a prompt


def test_four_curators_comparing_at_once_never_exceed_the_overlap_or_repeat_a_pair(
        request, settings, transactional_db):
    if not on_postgresql(request):
        return
    settings.PAINTRL_COMPARE_OVERLAP = OVERLAP
    settings.PAINTRL_GRADE_PREFETCH = PREFETCH
    # Enough pairs for every seat asked for plus the pairs each curator still holds at the end.
    seats = CURATORS * (COMPARISONS_EACH + PREFETCH)
    _renders_in_prompts(prompts=-(-seats // OVERLAP // 6) + 1)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    curators = [curator_create(f"curator{i}") for i in range(CURATORS)]
    clients = clients_logged_in(curators)

    start = threading.Barrier(CURATORS)
    handed: dict[int, list[str]] = {}
    compared: dict[int, list[str]] = {}
    errors: list[str] = []

    def compare_as(index: int) -> None:
        client, seen, mine = clients[index], [], []
        try:
            start.wait()
            upcoming = [e["key"] for e in client.get(reverse("rating:compare_next"),
                                                     {"want": PREFETCH}).json()["entries"]]
            seen += upcoming
            while len(mine) < COMPARISONS_EACH:
                if not upcoming:
                    errors.append(f"curator{index} ran out of pairs after {len(mine)}")
                    return
                key = upcoming.pop(0)
                left, right = key.split("-")
                response = client.post(reverse("rating:compare_act"), {
                    "op": "compare", "left": left, "right": right,
                    "choice": "left right tie".split()[len(mine) % 3], "shown_ms": 700,
                    "want": PREFETCH, "have": ",".join(upcoming)})
                if response.status_code != 200:
                    errors.append(f"curator{index}: {response.status_code} {response.content!r}")
                    return
                mine.append(key)
                fresh = [e["key"] for e in response.json()["entries"]]
                seen += fresh
                upcoming += fresh
        except Exception as exc:  # noqa: BLE001 - reported below, with the thread it hit
            errors.append(f"curator{index}: {exc!r}")
        finally:
            handed[index], compared[index] = seen, mine
            connection.close()  # each thread's own connection, or the test DB cannot be dropped

    run_at_once(compare_as, CURATORS)

    assert errors == []
    for index, seen in handed.items():
        keys = [pair_key(*map(int, key.split("-"))) for key in seen]
        twice = [key for key, n in Counter(keys).items() if n > 1]
        assert twice == [], f"curator{index} was handed pairs twice: {twice[:10]}"
    stored = Counter(pair_key(a, b) for a, b in Comparison.objects.values_list("left", "right"))
    assert sum(stored.values()) == CURATORS * COMPARISONS_EACH  # none lost
    assert max(stored.values()) <= OVERLAP, [k for k, n in stored.items() if n > OVERLAP][:10]
    assert max(stored.values()) == OVERLAP  # the overlap was used, not just respected
    for index, curator in enumerate(curators):
        mine = {pair_key(a, b) for a, b in Comparison.objects.filter(curator=curator)
                .values_list("left", "right")}
        assert mine == {pair_key(*map(int, key.split("-"))) for key in compared[index]}
    # Seats at the end: judgements plus live claims, never above the overlap.
    seats = stored + Counter(pair_key(a, b) for a, b in PairClaim.objects.values_list(
        "left", "right"))
    assert max(seats.values()) <= OVERLAP


def _renders_in_prompts(*, prompts: int) -> None:
    """Rows that passed the gate with an image path, PER_PROMPT to a prompt;
    this test never loads the images, so no files are written."""
    code = "function setup() { createCanvas(10, 10); }"
    sketches = Sketch.objects.bulk_create(
        [Sketch(code=code, code_sha256=code_hash(code), prompt=f"prompt {i // PER_PROMPT}")
         for i in range(prompts * PER_PROMPT)])
    Render.objects.bulk_create(
        [Render(sketch=s, seed=0, status=Render.Status.OK, png=f"renders/{s.pk}.png")
         for s in sketches])
