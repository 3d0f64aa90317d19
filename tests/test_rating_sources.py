"""Whose grades count (rating.sources): people's whenever any person has
graded anything, else the simulated curator's, never both; and the pool, the
reward model's data and a judge's agreement all give that one answer."""
from __future__ import annotations

import pytest

from pool.reward.data import graded_set_from_db
from pool.rules import pool_entries
from rating.models import Grade
from rating.services import comparison_submit, curator_get_or_create, grade_record
from rating.sources import (
    HUMAN_SOURCES,
    SIMULATED_SOURCES,
    comparisons_count,
    comparisons_decided,
    grade_sources,
    grades_simulated,
)
from sketches.models import Render
from tests.pool_data import pool_renders_create
from tests.rating_data import renders_create
from training.lab.agreement import _graded_renders

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]


def simulated(render: Render, value: str = "love") -> None:
    grade_record(render=render, curator=curator_get_or_create(username="simulated-curator"),
                 value=value, source=Grade.Source.SIMULATED)


def by_person(render: Render, value: str = "okay", source: str = Grade.Source.APP) -> None:
    grade_record(render=render, curator=curator_get_or_create(username="alice"), value=value,
                 source=source)


class TestTheRule:
    def test_no_grades_at_all_count_as_the_simulated_side(self):
        assert grades_simulated() and grade_sources() == SIMULATED_SOURCES

    def test_simulated_grades_count_while_no_person_has_graded(self):
        (render,) = pool_renders_create(1)
        simulated(render)
        assert grades_simulated() and grade_sources() == SIMULATED_SOURCES == ("simulated",)

    @pytest.mark.parametrize("source", [Grade.Source.APP, Grade.Source.IMPORT])
    def test_one_human_grade_anywhere_replaces_them(self, source):
        first, second = pool_renders_create(2)
        simulated(first)
        by_person(second, source=source)
        assert not grades_simulated() and grade_sources() == HUMAN_SOURCES == ("app", "import")

    def test_a_job_may_force_either_side(self):
        (render,) = pool_renders_create(1)
        by_person(render)
        assert grade_sources("simulated") == SIMULATED_SOURCES
        assert grade_sources("human") == HUMAN_SOURCES

    def test_an_unknown_choice_is_refused(self):
        with pytest.raises(ValueError, match="unknown grade source 'people'"):
            grade_sources("people")


class TestEveryUserGivesTheSameAnswer:
    """Before rating.sources, the judge-agreement copy asked "are there human
    grades?" only of the renders it measured on, so with people's grades
    elsewhere it fell back to the simulated curator's while the pool and the
    reward model used people's. Now the condition is global for all three."""

    def test_a_person_grading_elsewhere_stops_simulated_grades_counting_everywhere(self):
        measured, elsewhere = pool_renders_create(2)
        simulated(measured)
        by_person(elsewhere)
        assert [e.render.pk for e in pool_entries()] == [elsewhere.pk]
        graded = graded_set_from_db(sources="auto")
        assert graded.sources == HUMAN_SOURCES
        assert [item.key for item in graded.items] == [str(elsewhere.pk)]
        # The judge is measured on `measured` alone: people's grades count, and
        # there are none of those there, rather than the simulated curator's.
        assert _graded_renders({measured.pk}) == ({}, "none")
        assert _graded_renders({elsewhere.pk})[1] == "people"

    def test_a_human_grade_on_an_unrendered_render_still_counts_as_people_grading(self):
        rendered, failed = pool_renders_create(2)
        simulated(rendered)
        Render.objects.filter(pk=failed.pk).update(status=Render.Status.REJECTED)
        by_person(failed)
        assert not grades_simulated()
        assert pool_entries() == []
        assert graded_set_from_db(sources="auto").items == ()
        assert _graded_renders(None) == ({}, "none")

    def test_without_people_all_three_use_the_simulated_curator(self):
        first, second = pool_renders_create(2)
        simulated(first, "love")
        simulated(second, "okay")
        assert {e.render.pk for e in pool_entries()} == {first.pk, second.pk}
        assert graded_set_from_db(sources="auto").sources == SIMULATED_SOURCES
        graded, label = _graded_renders(None)
        assert label == "simulated" and graded.keys() == {first.pk, second.pk}


class TestComparisons:
    """Which comparisons count is rating.sources' answer too: a side chosen
    (never a tie or a skip), and only beside people's grades."""

    def test_comparisons_count_beside_peoples_grades_never_the_simulated_curators(self):
        assert comparisons_count(HUMAN_SOURCES) and comparisons_count(("app",))
        assert not comparisons_count(SIMULATED_SOURCES)

    def test_only_a_chosen_side_counts_and_the_reward_models_data_holds_just_those(self):
        a, b, c = renders_create(3, prompt="a tulip", same_prompt=True)
        alice = curator_get_or_create(username="alice")
        for left, right, choice in ((a, b, "left"), (a, c, "tie"), (b, c, "right"),
                                    (c, a, "skip")):
            comparison_submit(curator=alice, left=left, right=right, choice=choice)
        assert list(comparisons_decided().values_list("choice", flat=True)) == ["left", "right"]
        by_person(a)
        pairs = {(p.winner, p.loser) for p in graded_set_from_db(sources="human").comparisons}
        assert pairs == {(str(a.pk), str(b.pk)), (str(c.pk), str(b.pk))}
        assert graded_set_from_db(sources="simulated").comparisons == ()
