"""Per-curator statistics on the agreement page: sessions and grades per
hour, time per grade, value shares and kappa against the others."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from django.utils import timezone

from rating.curator_stats import SESSION_GAP, curator_stats
from rating.models import Grade
from rating.services import curator_get_or_create, grade_record
from sketches import services as sketch_services
from sketches.models import Render

START = timezone.now().replace(microsecond=0) - timedelta(days=1)


def grade_at(render, curator, value, minute, shown_ms=None, source=Grade.Source.APP):
    grade = grade_record(render=render, curator=curator, value=value, shown_ms=shown_ms,
                         source=source)
    Grade.objects.filter(pk=grade.pk).update(created=START + timedelta(minutes=minute))


@pytest.fixture
def renders(db):
    sketch = sketch_services.sketch_create(code="function setup(){}", prompt="a red kite")
    return [Render.objects.create(sketch=sketch, status="ok", seed=i) for i in range(7)]


@pytest.fixture
def graded(renders):
    """alice grades the first six renders in two sessions (minutes 0-3 and
    30-32); bob says okay to the first four, one untimed; carol imports the
    last three, 20 minutes apart, the seventh graded by no one else; the
    simulated curator loves everything."""
    alice, bob, carol, sim = (curator_get_or_create(username=n)
                              for n in ("alice", "bob", "carol", "simulated-curator"))
    plan = [("love", 0, 2000), ("love", 1, 4000), ("love", 2, 6000), ("okay", 3, 8000),
            ("okay", 30, 1000), ("nope", 32, 3000)]
    for render, (value, minute, ms) in zip(renders[:6], plan, strict=True):
        grade_at(render, alice, value, minute, ms)
    for render, (minute, ms) in zip(renders[:4], [(0, 5000), (2, 5000), (4, 7000), (6, None)],
                                    strict=True):
        grade_at(render, bob, "okay", minute, ms)
    grade_at(renders[4], carol, "okay", 0, source=Grade.Source.IMPORT)
    grade_at(renders[5], carol, "nope", 20, source=Grade.Source.IMPORT)
    grade_at(renders[6], carol, "love", 40, source=Grade.Source.IMPORT)
    for minute, render in enumerate(renders):
        grade_at(render, sim, "love", minute, 1000, source=Grade.Source.SIMULATED)
    return renders


def by_name():
    return {row.curator: row for row in curator_stats()}


class TestCuratorStats:
    def test_the_simulated_curator_is_left_out(self, graded):
        assert list(by_name()) == ["alice", "bob", "carol"]

    def test_sessions_split_at_the_gap_and_per_hour_counts_grades_within_them(self, graded):
        assert SESSION_GAP == timedelta(minutes=10)
        stats = by_name()
        # alice: spans 3 + 2 minutes holding 3 + 1 grades after each session's first.
        assert (stats["alice"].sessions, stats["alice"].hours) == (2, pytest.approx(5 / 60))
        assert stats["alice"].per_hour == pytest.approx(48)
        assert stats["bob"].sessions == 1 and stats["bob"].per_hour == pytest.approx(30)
        # carol's three grades are 20 minutes apart: three sessions of no length.
        assert (stats["carol"].sessions, stats["carol"].hours) == (3, 0)
        assert stats["carol"].per_hour is None

    def test_a_burst_of_grades_gives_no_rate_per_hour(self, renders):
        """18 grades within a minute once read as 4,649 an hour: under
        MIN_RATE_SPAN of grading, no rate is given."""
        from rating.curator_stats import MIN_RATE_SPAN

        dave = curator_get_or_create(username="dave")
        for render, minute in zip(renders[:3], (0, 0.5, 1), strict=True):
            grade_at(render, dave, "love", minute, 1000)
        assert MIN_RATE_SPAN > timedelta(minutes=1)
        assert by_name()["dave"].hours > 0 and by_name()["dave"].per_hour is None

    def test_median_time_per_grade_uses_the_timed_grades_only(self, graded):
        stats = by_name()
        assert (stats["alice"].median_seconds, stats["alice"].timed) == (3.5, 6)
        assert (stats["bob"].median_seconds, stats["bob"].timed) == (5.0, 3)
        assert (stats["carol"].median_seconds, stats["carol"].timed) == (None, 0)

    def test_value_shares(self, graded):
        stats = by_name()
        assert stats["alice"].shares == [("Love", 0.5), ("Okay", pytest.approx(1 / 3)),
                                         ("Nope", pytest.approx(1 / 6))]
        assert stats["bob"].shares == [("Love", 0), ("Okay", 1), ("Nope", 0)]

    def test_kappa_against_the_pooled_others_on_shared_renders(self, graded):
        stats = by_name()
        # alice vs bob (love, love, love, okay against okay) and carol (okay, nope
        # against okay, nope): quadratic kappa by hand, 1 - (3/24) / (8.5/36) = 8/17.
        assert (stats["alice"].kappa, stats["alice"].shared) == (pytest.approx(8 / 17), 6)
        # Always okay: exactly what chance gives, not the simulated curator's loves.
        assert (stats["bob"].kappa, stats["bob"].shared) == (pytest.approx(0), 4)
        # carol's seventh render has no other grade: not shared, no pair.
        assert (stats["carol"].kappa, stats["carol"].shared) == (pytest.approx(1), 2)

    def test_no_grades_no_rows(self, db):
        assert curator_stats() == []

    @pytest.mark.parametrize("curators", [2, 10])
    def test_one_query_however_many_curators(self, renders, curators,
                                             django_assert_max_num_queries):
        for i in range(curators):
            curator = curator_get_or_create(username=f"c{i}")
            for minute, render in enumerate(renders):
                grade_at(render, curator, "okay", minute, 1000)
        with django_assert_max_num_queries(1):
            assert len(curator_stats()) == curators


class TestCuratorTable:
    def test_the_agreement_page_shows_the_figures(self, client, graded):
        staff = get_user_model().objects.create_user("boss", password="x-long-pass-1",
                                                     is_staff=True)
        client.force_login(staff)
        content = client.get(reverse("rating:agreement")).content.decode()
        table = content[content.index("<h2>Curators</h2>"):
                        content.index("<h2>Most disagreement</h2>")]
        assert "simulated-curator" not in table
        assert "less than\n10 minutes apart" in table
        alice = table[table.index("<td>alice</td>"):table.index("<td>bob</td>")]
        for figure in ['<td class="stat">6</td>', '<td class="stat">0.08</td>',
                       '<td class="stat">48</td>', "3.5 s", "Love 50%", "Okay 33%", "Nope 17%",
                       '<td class="stat">0.471</td>', "6 renders"]:
            assert figure in alice, figure
        bob = table[table.index("<td>bob</td>"):table.index("<td>carol</td>")]
        assert "5.0 s" in bob and "(3 of 4 timed)" in bob and "Okay 100%" in bob
        assert '<td class="stat">0.000</td>' in bob
        carol = table[table.index("<td>carol</td>"):]
        assert "(not timed)" in carol and "2 renders" in carol

    def test_says_so_when_no_person_has_graded(self, client, db):
        staff = get_user_model().objects.create_user("boss", password="x-long-pass-1",
                                                     is_staff=True)
        client.force_login(staff)
        assert b"No person has graded anything yet." in client.get(
            reverse("rating:agreement")).content
