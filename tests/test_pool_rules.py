"""Pool membership: how grades resolve under the rule, pins overriding them,
rule versions, and the subject a render is filed under."""
from __future__ import annotations

import pytest

from pool.models import PoolPin, PoolRule, Tier
from pool.rules import DEFAULT_RULE_NOTE, GradeTally, pool_entries, pool_rule_current, tier_resolve
from pool.services import PoolError, pool_pin, pool_rule_default_save, pool_rule_edit, pool_unpin
from pool.subjects import OTHER, subject_family, subject_of_prompt, subject_of_sketch
from sketches.models import Render, Sketch
from sketches.painter import SUBJECTS, paint
from tests.pool_data import grades_give, pool_renders_create

pytestmark = pytest.mark.usefixtures("media")


def tally(*values: str) -> GradeTally:
    return GradeTally(love=values.count("love"), okay=values.count("okay"),
                      nope=values.count("nope"))


def default_rule(**changes) -> PoolRule:
    return PoolRule(**changes)  # unsaved: the model's defaults


def tiers() -> dict[int, str]:
    return {entry.render.pk: entry.tier for entry in pool_entries()}


class TestTheDefaultRule:
    @pytest.mark.parametrize("values, expected", [
        (("love",), Tier.LOVE),                    # a single love is enough at overlap 1
        (("okay",), Tier.OKAY),
        (("nope",), None),
        (("love", "love", "nope"), Tier.LOVE),     # a majority of love
        (("love", "love", "okay"), Tier.LOVE),
        (("love", "nope"), None),                  # a tie is no majority
        (("love", "okay"), Tier.OKAY),             # a majority is okay or better
        (("love", "okay", "nope"), Tier.OKAY),     # the median grade is okay
        (("okay", "okay", "love"), Tier.OKAY),
        (("okay", "nope"), None),
        (("love", "nope", "nope"), None),
        ((), None),
    ])
    def test_grades_resolve_to(self, values, expected):
        assert tier_resolve(tally(*values), default_rule()) == expected

    def test_without_an_okay_tier_okay_renders_are_left_out(self):
        rule = default_rule(okay_tier=False)
        assert tier_resolve(tally("okay"), rule) is None
        assert tier_resolve(tally("love"), rule) == Tier.LOVE

    def test_renders_with_fewer_than_min_grades_are_left_out(self):
        rule = default_rule(min_grades=2)
        assert tier_resolve(tally("love"), rule) is None
        assert tier_resolve(tally("love", "love"), rule) == Tier.LOVE

    def test_a_lower_love_share_needs_fewer_loves(self):
        rule = default_rule(love_share=0.3)
        assert tier_resolve(tally("love", "nope", "nope"), rule) == Tier.LOVE


@pytest.mark.django_db
class TestMembershipFromStoredGrades:
    def test_single_grades_and_majorities_at_overlap_above_one(self):
        single_love, single_okay, majority, split, outvoted = pool_renders_create(5)
        grades_give(single_love, "love")
        grades_give(single_okay, "okay")
        grades_give(majority, "love", "love", "nope")
        grades_give(split, "love", "nope")
        grades_give(outvoted, "love", "nope", "nope")
        assert tiers() == {single_love.pk: Tier.LOVE, single_okay.pk: Tier.OKAY,
                           majority.pk: Tier.LOVE}

    def test_ungraded_and_rejected_renders_are_not_members(self):
        graded, ungraded = pool_renders_create(2)
        grades_give(graded, "love")
        Render.objects.filter(pk=graded.pk).update(status=Render.Status.REJECTED)
        assert tiers() == {}

    def test_a_changed_grade_changes_membership(self):
        (render,) = pool_renders_create(1)
        grades_give(render, "love")
        grades_give(render, "nope")  # the same curator, c0, changes their mind
        assert tiers() == {}

    def test_the_rule_in_force_decides(self):
        loved, okayed = pool_renders_create(2)
        grades_give(loved, "love")
        grades_give(okayed, "okay")
        pool_rule_edit(love_share=0.5, okay_tier=False, min_grades=1, min_per_subject=5)
        assert tiers() == {loved.pk: Tier.LOVE}

    def test_an_entry_carries_its_tally_and_subject(self):
        (render,) = pool_renders_create(1, prompt="a red tulip")
        grades_give(render, "love", "love", "okay")
        (entry,) = pool_entries()
        assert entry.tally == GradeTally(love=2, okay=1, nope=0)
        assert entry.subject == "tulip"
        assert not entry.pinned


@pytest.mark.django_db
class TestPins:
    def test_pinned_in_joins_its_tier_whatever_the_grades(self):
        noped, ungraded = pool_renders_create(2)
        grades_give(noped, "nope", "nope")
        pool_pin(render=noped, action="in", tier=Tier.OKAY, reason="a useful bad example")
        pool_pin(render=ungraded, action="in", reason="the curator's own pick")
        assert tiers() == {noped.pk: Tier.OKAY, ungraded.pk: Tier.LOVE}

    def test_pinned_out_leaves_whatever_the_grades(self):
        loved, other = pool_renders_create(2)
        grades_give(loved, "love", "love", "love")
        grades_give(other, "love")
        pool_pin(render=loved, action="out", reason="copies a famous painting")
        assert tiers() == {other.pk: Tier.LOVE}

    def test_unpinning_lets_the_grades_decide_again(self):
        (render,) = pool_renders_create(1)
        grades_give(render, "love")
        pool_pin(render=render, action="out", reason="doubtful")
        assert pool_unpin(render=render) is True
        assert tiers() == {render.pk: Tier.LOVE}
        assert pool_unpin(render=render) is False

    def test_pinning_again_replaces_the_pin(self):
        (render,) = pool_renders_create(1)
        pool_pin(render=render, action="in", reason="first")
        pool_pin(render=render, action="out", reason="second thoughts")
        pin = PoolPin.objects.get(render=render)
        assert (pin.action, pin.reason) == ("out", "second thoughts")

    @pytest.mark.parametrize("changes, message", [
        ({"reason": "  "}, "needs a reason"),
        ({"action": "maybe"}, "unknown pin action 'maybe'"),
        ({"tier": "nope"}, "unknown tier 'nope'"),
    ])
    def test_bad_pins_are_refused(self, changes, message):
        (render,) = pool_renders_create(1)
        with pytest.raises(PoolError, match=message):
            pool_pin(render=render, **({"action": "in", "reason": "r"} | changes))
        assert not PoolPin.objects.exists()

    def test_a_render_without_an_image_cannot_be_pinned_in(self):
        sketch = Sketch.objects.create(code="// x", prompt="x")
        pending = Render.objects.create(sketch=sketch)
        with pytest.raises(PoolError, match="no image that passed the gate"):
            pool_pin(render=pending, action="in", reason="r")
        pool_pin(render=pending, action="out", reason="never")  # out is always allowed


@pytest.mark.django_db
class TestRuleVersions:
    def test_the_default_rule_is_in_force_and_reading_it_saves_nothing(self):
        rule = pool_rule_current()
        assert rule.note == DEFAULT_RULE_NOTE
        assert (rule.love_share, rule.okay_tier, rule.min_grades) == (0.5, True, 1)
        assert rule.pk is None and not PoolRule.objects.exists()

    def test_the_default_rule_is_saved_once_when_a_write_names_it(self):
        rule = pool_rule_default_save()
        assert rule.note == DEFAULT_RULE_NOTE
        assert (rule.love_share, rule.okay_tier, rule.min_grades) == (0.5, True, 1)
        assert pool_rule_current().pk == rule.pk == pool_rule_default_save().pk
        assert PoolRule.objects.count() == 1

    def test_an_edit_is_a_new_version_in_force(self):
        first = pool_rule_default_save()
        second = pool_rule_edit(love_share=0.6, okay_tier=False, min_grades=2,
                                min_per_subject=3, note="stricter")
        assert pool_rule_current().pk == second.pk != first.pk
        first.refresh_from_db()
        assert first.love_share == 0.5  # the old version is kept as it was

    @pytest.mark.parametrize("love_share", [1.0, -0.1])
    def test_a_love_share_outside_0_to_1_is_refused(self, love_share):
        with pytest.raises(PoolError, match="love_share"):
            pool_rule_edit(love_share=love_share, okay_tier=True, min_grades=1,
                           min_per_subject=5)


class TestSubjects:
    def test_every_painter_prompt_names_its_own_subject(self):
        for subject in SUBJECTS:
            for seed in range(8):
                assert subject_of_prompt(paint(seed, subject=subject, size=64).prompt) == subject

    @pytest.mark.parametrize("prompt, subject", [
        ("a peach-pink hibiscus in watercolour", "hibiscus"),
        ("Two PEONIES, ink", "peony"),
        ("a vase of tulips", "vase"),            # the subject named first wins
        ("tulips in a vase", "tulip"),
        ("a red rose in watercolour", "flower"),  # common words after painter subjects
        ("a cat asleep", "animal"),
        ("the season of light", OTHER),          # "sea" only as a word
        ("", OTHER),
    ])
    def test_prompts(self, prompt, subject):
        assert subject_of_prompt(prompt) == subject

    def test_families(self):
        assert subject_family("tulip") == "flower" == subject_family("flower")
        assert subject_family("seascape") == "landscape"
        assert subject_family(OTHER) == OTHER

    def test_a_procedural_sketch_is_filed_under_its_recorded_subject(self):
        painted = Sketch(prompt="a red rose", origin=Sketch.Origin.PROCEDURAL,
                         meta={"subject": "lotus"})
        imported = Sketch(prompt="a red rose", origin=Sketch.Origin.IMPORTED,
                          meta={"subject": "lotus"})
        assert subject_of_sketch(painted) == "lotus"
        assert subject_of_sketch(imported) == "flower"


@pytest.mark.django_db
class TestSimulatedGrades:
    def simulated(self, render: Render, value: str) -> None:
        from rating.models import Grade
        from rating.services import curator_get_or_create, grade_record

        grade_record(render=render, curator=curator_get_or_create(username="simulated-curator"),
                     value=value, source=Grade.Source.SIMULATED)

    def test_they_decide_while_no_person_has_graded(self):
        from rating.sources import grades_simulated

        loved, okayed = pool_renders_create(2)
        self.simulated(loved, "love")
        self.simulated(okayed, "okay")
        assert grades_simulated()
        assert tiers() == {loved.pk: Tier.LOVE, okayed.pk: Tier.OKAY}

    def test_the_first_human_grade_replaces_them(self):
        from rating.sources import grades_simulated

        by_simulation, by_person = pool_renders_create(2)
        self.simulated(by_simulation, "love")
        self.simulated(by_person, "love")
        grades_give(by_person, "okay")
        assert not grades_simulated()
        assert tiers() == {by_person.pk: Tier.OKAY}  # the simulated love is not counted

    def test_a_subject_only_they_graded_is_not_expected_once_people_grade(self):
        from pool.selectors import pool_overview

        (tulip,) = pool_renders_create(1, prompt="a tulip")
        (hibiscus,) = pool_renders_create(1, prompt="a hibiscus", start=1)
        self.simulated(tulip, "love")
        assert [s.subject for s in pool_overview().subjects] == ["tulip"]
        grades_give(hibiscus, "okay")
        assert [s.subject for s in pool_overview().subjects] == ["hibiscus"]


class TestBalance:
    """pool.selectors.subjects_balance: evenness of love references over every
    subject, empty ones included."""

    def test_even_over_every_subject_is_one(self):
        from pool.selectors import subjects_balance

        assert subjects_balance([3, 3, 3]) == 1.0

    def test_empty_subjects_lower_the_balance(self):
        from pool.selectors import subjects_balance

        # Five even subjects of twelve: the demo's pool the issue saw as "1.00".
        assert subjects_balance([4] * 5 + [0] * 7) == pytest.approx(0.648, abs=1e-3)
        assert subjects_balance([4] * 5) == 1.0

    def test_all_in_one_subject_or_none_is_zero(self):
        from pool.selectors import subjects_balance

        assert subjects_balance([6, 0, 0]) == 0.0
        assert subjects_balance([0, 0]) == 0.0

    def test_fewer_than_two_subjects_have_no_balance(self):
        from pool.selectors import subjects_balance

        assert subjects_balance([5]) is None and subjects_balance([]) is None

    @pytest.mark.django_db
    def test_the_overview_counts_a_graded_subject_with_no_references(self):
        from pool.selectors import pool_overview

        for index, prompt in enumerate(("a tulip", "a tulip", "a poppy", "a poppy")):
            (render,) = pool_renders_create(1, prompt=prompt, start=index)
            grades_give(render, "love")
        assert pool_overview().evenness == 1.0
        (nope,) = pool_renders_create(1, prompt="a peony", start=9)
        grades_give(nope, "nope")  # graded, so expected; no reference
        overview = pool_overview()
        assert {s.subject for s in overview.subjects} == {"peony", "tulip", "poppy"}
        assert overview.subjects_with_love == 2 and len(overview.balanced_over) == 3
        assert overview.evenness == pytest.approx(0.631, abs=1e-3)  # ln 2 / ln 3
