"""Drawing references from a snapshot: seeded, with the love/okay mix asked
for, matched by subject first, and without repeats until the snapshot runs out."""
from __future__ import annotations

from collections import Counter

import pytest

from pool.models import Tier
from pool.references import references_sample
from tests.pool_data import snapshot_build

pytestmark = pytest.mark.django_db

LOVE, OKAY = Tier.LOVE, Tier.OKAY


@pytest.fixture
def snapshot():
    """Love: 6 hibiscus, 4 tulip, 5 hills. Okay: 5 hibiscus, 3 seascape."""
    return snapshot_build("s1", [(LOVE, "hibiscus")] * 6 + [(LOVE, "tulip")] * 4
                          + [(LOVE, "hills")] * 5 + [(OKAY, "hibiscus")] * 5
                          + [(OKAY, "seascape")] * 3)


def ids(members) -> list[int]:
    return [m.pk for m in members]


class TestSeeded:
    def test_the_same_seed_draws_the_same_references(self, snapshot):
        args = {"prompt": "a hibiscus", "k": 5, "okay_share": 0.4}
        assert ids(references_sample(snapshot, seed=7, **args)) == \
            ids(references_sample(snapshot, seed=7, **args))

    def test_other_seeds_draw_other_references(self, snapshot):
        draws = {tuple(ids(references_sample(snapshot, prompt="rolling hills", k=3, seed=s)))
                 for s in range(20)}
        assert len(draws) > 10

    def test_no_member_is_drawn_twice_in_one_draw(self, snapshot):
        for seed in range(30):
            drawn = ids(references_sample(snapshot, prompt="a hibiscus", k=12, okay_share=0.5,
                                          seed=seed))
            assert len(drawn) == len(set(drawn)) == 12


class TestTiers:
    def test_okay_share_zero_draws_only_love(self, snapshot):
        drawn = references_sample(snapshot, prompt="a hibiscus", k=10, okay_share=0.0, seed=1)
        assert {m.tier for m in drawn} == {LOVE}

    def test_okay_share_one_draws_only_okay(self, snapshot):
        drawn = references_sample(snapshot, prompt="a hibiscus", k=6, okay_share=1.0, seed=1)
        assert {m.tier for m in drawn} == {OKAY}

    def test_a_whole_number_of_okay_draws_is_exact(self, snapshot):
        for seed in range(20):
            drawn = references_sample(snapshot, prompt="x", k=4, okay_share=0.5, seed=seed)
            assert Counter(m.tier for m in drawn) == {LOVE: 2, OKAY: 2}

    def test_a_fraction_is_right_on_average(self, snapshot):
        # k = 2 at 0.25: half a reference on average, so one okay in about half the draws.
        okay = sum(m.tier == OKAY for seed in range(400)
                   for m in references_sample(snapshot, prompt="x", k=2, okay_share=0.25,
                                              seed=seed))
        assert 160 <= okay <= 240

    def test_a_short_tier_is_made_up_from_the_other(self, snapshot):
        drawn = references_sample(snapshot, prompt="x", k=12, okay_share=1.0, seed=3)
        assert Counter(m.tier for m in drawn) == {OKAY: 8, LOVE: 4}


class TestSubjects:
    def test_the_prompts_subject_comes_first(self, snapshot):
        for seed in range(10):
            drawn = references_sample(snapshot, prompt="a peach-pink hibiscus", k=6, seed=seed)
            assert {m.subject for m in drawn} == {"hibiscus"}

    def test_too_few_of_the_subject_fall_back_to_its_family_first(self, snapshot):
        drawn = references_sample(snapshot, prompt="a hibiscus", k=10, seed=2)
        assert Counter(m.subject for m in drawn) == {"hibiscus": 6, "tulip": 4}

    def test_then_to_other_subjects(self, snapshot):
        drawn = references_sample(snapshot, prompt="a hibiscus", k=12, seed=2)
        assert Counter(m.subject for m in drawn) == {"hibiscus": 6, "tulip": 4, "hills": 2}

    def test_a_subject_missing_from_a_tier_uses_the_family(self, snapshot):
        # No love seascape: the landscape family (hills) stands in.
        drawn = references_sample(snapshot, prompt="a seascape with a boat", k=3, seed=4)
        assert {m.subject for m in drawn} == {"hills"}
        okay = references_sample(snapshot, prompt="a seascape with a boat", k=3,
                                 okay_share=1.0, seed=4)
        assert {m.subject for m in okay} == {"seascape"}

    def test_a_common_subject_uses_the_painters_family(self, snapshot):
        drawn = references_sample(snapshot, prompt="a red rose", k=10, seed=5)
        assert {m.subject for m in drawn} == {"hibiscus", "tulip"}


class TestLargeAndBadRequests:
    def test_k_beyond_the_snapshot_draws_everyone_before_repeating(self, snapshot):
        drawn = ids(references_sample(snapshot, prompt="x", k=50, okay_share=0.3, seed=9))
        counts = Counter(drawn)
        assert len(drawn) == 50
        assert len(counts) == 23  # every member
        assert set(counts.values()) == {2, 3}  # 50 = 23 + 23 + 4

    def test_k_zero_draws_nothing(self, snapshot):
        assert references_sample(snapshot, prompt="x", k=0, seed=1) == []

    @pytest.mark.parametrize("args, message", [
        ({"k": -1}, "k must be"),
        ({"k": 2.5}, "k must be"),
        ({"k": 2, "okay_share": 1.5}, "okay_share must be from 0 to 1"),
    ])
    def test_bad_arguments_are_refused(self, snapshot, args, message):
        with pytest.raises(ValueError, match=message):
            references_sample(snapshot, prompt="x", seed=1, **args)

    def test_an_empty_snapshot_is_refused(self):
        empty = snapshot_build("empty", [])
        with pytest.raises(ValueError, match="'empty' has no members"):
            references_sample(empty, prompt="x", k=1, seed=1)
