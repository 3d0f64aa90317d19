"""The simulated curator grades procedural renders by its stated rule, as a
user who is not a person's account, with grades marked "simulated"; its
flips are seeded; and the command runs it."""
from __future__ import annotations

import random
from collections import Counter

import pytest
from django.core.management import call_command

from pool.reward.simulated import SIMULATED_CURATOR, TIER_GRADES, grades_simulate, simulated_grade
from rating.models import Grade
from sketches.access import curator_group_name
from tests.reward_data import toy_render


def procedural(count: int, **render_args):
    rng = random.Random(0)
    tiers = ("good", "fair", "bad")
    return [toy_render(grade="okay", rng=rng, index=i,
                       meta={"painter": "painter/1", "quality": tiers[i % 3]}, **render_args)
            for i in range(count)]


class TestRule:
    def test_without_flips_the_tier_decides(self):
        for tier, grade in TIER_GRADES.items():
            assert simulated_grade({"quality": tier}, key="k", flip_probability=0) == grade
        assert simulated_grade({"subject": "vase"}, key="k") is None

    def test_flips_move_one_step_at_the_stated_rate_and_are_seeded(self):
        draws = [simulated_grade({"quality": "good"}, key=str(i), flip_probability=0.1)
                 for i in range(2000)]
        counts = Counter(draws)
        assert set(counts) == {"love", "okay"}  # one step from love is okay, never nope
        assert 0.07 < counts["okay"] / 2000 < 0.13
        again = [simulated_grade({"quality": "good"}, key=str(i), flip_probability=0.1)
                 for i in range(2000)]
        assert draws == again
        with pytest.raises(ValueError, match="flip_probability"):
            simulated_grade({"quality": "good"}, key="k", flip_probability=1.5)


@pytest.mark.django_db
class TestSimulatedGrades:
    def test_grades_follow_the_rule_as_the_simulated_curator_marked_simulated(
            self, media):
        renders = procedural(6)
        toy_render(grade="love", rng=random.Random(2), index=50)  # not procedural
        toy_render(grade="love", rng=random.Random(3), index=51, status="pending",
                   meta={"quality": "good"})
        report = grades_simulate(flip_probability=0)
        assert (report.graded, report.skipped_no_tier) == (6, 1)
        grades = Grade.objects.select_related("curator", "render__sketch")
        assert grades.count() == 6
        for grade in grades:
            assert grade.source == "simulated"
            assert grade.value == TIER_GRADES[grade.render.sketch.meta["quality"]]
            assert grade.curator.username == SIMULATED_CURATOR
        curator = grades.first().curator
        assert not curator.has_usable_password()
        assert not curator.groups.filter(name=curator_group_name()).exists()
        assert len(renders) == 6

    def test_graded_renders_are_kept_unless_regraded(self, media):
        procedural(3)
        grades_simulate(flip_probability=0)
        again = grades_simulate(flip_probability=1.0)
        assert (again.graded, again.already_graded) == (0, 3)
        regraded = grades_simulate(flip_probability=1.0, regrade=True)
        assert regraded.graded == regraded.changed == 3

    def test_the_command_grades_and_reports(self, media, capsys):
        procedural(3)
        call_command("simulate_grades", "--flip-probability", "0")
        assert "simulated-curator graded 3 renders" in capsys.readouterr().out
        assert Grade.objects.filter(source="simulated").count() == 3
