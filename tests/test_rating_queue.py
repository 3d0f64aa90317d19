"""The grading queue: claims keep curators apart under the overlap setting,
abandoned claims lapse, grades, undo and skips move renders in and out of a
curator's queue, and filters and orders pick what comes next."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.http import QueryDict
from django.utils import timezone

from rating import ordering, selectors, services
from rating.models import Claim, Grade, GradeChange, Skip
from rating.queue import claims_release, queue_next, render_claim
from rating.selectors import QueueFilter
from sketches.models import Render, Sketch
from tests.rating_data import curator_create, renders_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

ALL = QueueFilter()


@pytest.fixture
def alice(db):
    return curator_create("alice")


@pytest.fixture
def bob(db):
    return curator_create("bob")


def ids(batch) -> list[int]:
    return [entry.render.pk for entry in batch.entries]


def informative_by_seed(renders):
    """A stand-in for the pool app's reward-model order: highest seed first."""
    return renders.order_by("-seed")


def no_reward_model_yet(renders):
    return None


class TestClaims:
    def test_a_curator_is_handed_the_newest_renders_and_holds_them(self, alice):
        renders = renders_create(5)
        batch = queue_next(curator=alice, queue_filter=ALL, want=3)
        assert ids(batch) == [r.pk for r in reversed(renders)][:3]
        assert set(Claim.objects.filter(curator=alice).values_list("render_id", flat=True)) == \
            set(ids(batch))
        assert not batch.exhausted

    def test_asking_again_returns_the_held_renders_first_in_claim_order(self, alice):
        renders_create(5)
        first = ids(queue_next(curator=alice, queue_filter=ALL, want=3))
        assert ids(queue_next(curator=alice, queue_filter=ALL, want=3)) == first
        assert Claim.objects.filter(curator=alice).count() == 3

    def test_renders_the_browser_has_are_left_out_of_the_answer(self, alice):
        renders_create(6)
        first = ids(queue_next(curator=alice, queue_filter=ALL, want=3))
        more = ids(queue_next(curator=alice, queue_filter=ALL, want=5, have=first))
        assert len(more) == 2 and not set(more) & set(first)

    def test_the_queue_is_topped_up_once_two_short(self, alice):
        renders_create(6)
        first = ids(queue_next(curator=alice, queue_filter=ALL, want=3))
        one_short = queue_next(curator=alice, queue_filter=ALL, want=4, have=first)
        assert one_short.entries == [] and not one_short.exhausted
        assert Claim.objects.count() == 3

    def test_two_curators_never_hold_the_same_render_at_overlap_one(self, alice, bob):
        renders_create(6)
        a = ids(queue_next(curator=alice, queue_filter=ALL, want=3))
        b = ids(queue_next(curator=bob, queue_filter=ALL, want=3))
        assert len(a) == len(b) == 3 and not set(a) & set(b)
        carol = curator_create("carol")
        batch = queue_next(curator=carol, queue_filter=ALL, want=3)
        assert batch.entries == [] and batch.exhausted

    def test_an_abandoned_claim_lapses_and_the_render_goes_to_another(self, alice, bob):
        (render,) = renders_create(1)
        assert ids(queue_next(curator=alice, queue_filter=ALL, want=1)) == [render.pk]
        assert ids(queue_next(curator=bob, queue_filter=ALL, want=1)) == []
        Claim.objects.filter(curator=alice).update(expires=timezone.now() - timedelta(seconds=1))
        assert ids(queue_next(curator=bob, queue_filter=ALL, want=1)) == [render.pk]

    def test_asking_renews_the_curators_claims(self, alice, settings):
        renders_create(2)
        queue_next(curator=alice, queue_filter=ALL, want=2)
        Claim.objects.update(expires=timezone.now() + timedelta(seconds=5))
        queue_next(curator=alice, queue_filter=ALL, want=2)
        soonest = Claim.objects.order_by("expires").first().expires
        assert soonest > timezone.now() + timedelta(seconds=settings.PAINTRL_CLAIM_TTL_S - 60)

    def test_overlap_two_hands_each_render_to_two_curators_and_no_third(self, alice, bob,
                                                                         settings):
        settings.PAINTRL_GRADE_OVERLAP = 2
        renders_create(2)
        a = ids(queue_next(curator=alice, queue_filter=ALL, want=2))
        b = ids(queue_next(curator=bob, queue_filter=ALL, want=2))
        assert sorted(a) == sorted(b)
        carol = curator_create("carol")
        assert ids(queue_next(curator=carol, queue_filter=ALL, want=2)) == []
        services.grade_submit(curator=alice, render=Render.objects.get(pk=a[0]), value="love")
        # Alice's grade and Bob's claim still fill both seats of that render.
        assert ids(queue_next(curator=carol, queue_filter=ALL, want=2)) == []

    def test_a_graded_render_leaves_everyones_queue_at_overlap_one(self, alice, bob):
        (render,) = renders_create(1)
        services.grade_submit(curator=alice, render=render, value="okay")
        assert ids(queue_next(curator=bob, queue_filter=ALL, want=1)) == []
        assert ids(queue_next(curator=alice, queue_filter=ALL, want=1)) == []

    def test_switching_filters_releases_claims_outside_the_new_filter(self, alice, bob):
        roses = renders_create(2, prompt="a rose")
        renders_create(2, prompt="a fern", start=2)
        queue_next(curator=alice, queue_filter=ALL, want=4)
        released = claims_release(curator=alice, keep=QueueFilter(text="fern"))
        assert released == 2
        assert sorted(ids(queue_next(curator=bob, queue_filter=ALL, want=4))) == \
            sorted(r.pk for r in roses)

    def test_render_claim_takes_one_given_render_only_while_it_is_open(self, alice, bob):
        (render,) = renders_create(1)
        assert render_claim(curator=alice, render_id=render.pk)
        assert not render_claim(curator=bob, render_id=render.pk)


class TestGradeActions:
    def test_a_grade_stores_who_and_how_long_and_frees_the_claim(self, alice):
        (render,) = renders_create(1)
        queue_next(curator=alice, queue_filter=ALL, want=1)
        grade, previous = services.grade_submit(curator=alice, render=render, value="love",
                                                shown_ms=840)
        assert previous == ""
        assert (grade.curator, grade.value, grade.shown_ms) == (alice, "love", 840)
        assert not Claim.objects.exists()

    @pytest.mark.django_db(transaction=True)
    def test_a_grade_write_outside_any_transaction_locks_and_writes_on_its_own(self, alice):
        """Autocommit, no caller's transaction: the write (the row lock and
        the grade with its history) is atomic by itself."""
        (render,) = renders_create(1)
        for value in ("love", "okay"):
            services._grade_write(render=render, curator=alice, value=value, shown_ms=None,
                                  source=Grade.Source.APP)
        grade = Grade.objects.get(render=render, curator=alice)
        assert grade.value == "okay"
        assert list(GradeChange.objects.filter(grade=grade).order_by("pk")
                    .values_list("previous", "value")) == [("", "love"), ("love", "okay")]

    def test_changing_a_grade_keeps_the_previous_value_in_history(self, alice):
        (render,) = renders_create(1)
        services.grade_submit(curator=alice, render=render, value="love")
        grade, previous = services.grade_submit(curator=alice, render=render, value="nope")
        assert previous == "love" and grade.value == "nope"
        assert list(GradeChange.objects.filter(grade=grade).order_by("pk")
                    .values_list("previous", "value")) == [("", "love"), ("love", "nope")]

    def test_undo_of_a_new_grade_withdraws_it_and_gives_the_render_back(self, alice, bob):
        (render,) = renders_create(1)
        services.grade_submit(curator=alice, render=render, value="okay")
        assert services.grade_undo(curator=alice, render=render) is None
        assert not Grade.objects.exists()
        assert Claim.objects.get().curator == alice  # held for Alice, not handed to Bob
        assert ids(queue_next(curator=bob, queue_filter=ALL, want=1)) == []
        assert ids(queue_next(curator=alice, queue_filter=ALL, want=1)) == [render.pk]

    def test_undo_of_a_change_restores_the_previous_value(self, alice):
        (render,) = renders_create(1)
        services.grade_submit(curator=alice, render=render, value="love")
        services.grade_submit(curator=alice, render=render, value="nope")
        grade = services.grade_undo(curator=alice, render=render, restore="love")
        assert grade.value == "love" and Grade.objects.get().value == "love"
        assert GradeChange.objects.filter(grade=grade).count() == 3

    def test_undo_repeated_is_harmless(self, alice):
        (render,) = renders_create(1)
        services.grade_submit(curator=alice, render=render, value="okay")
        services.grade_undo(curator=alice, render=render)
        services.grade_undo(curator=alice, render=render)
        assert not Grade.objects.exists() and Claim.objects.count() == 1

    def test_a_skip_leaves_my_queue_and_goes_to_another_curator(self, alice, bob):
        (render,) = renders_create(1)
        queue_next(curator=alice, queue_filter=ALL, want=1)
        services.render_skip(curator=alice, render=render)
        assert ids(queue_next(curator=alice, queue_filter=ALL, want=1)) == []
        assert ids(queue_next(curator=bob, queue_filter=ALL, want=1)) == [render.pk]

    def test_unskip_brings_the_render_back_when_it_is_still_open(self, alice):
        (render,) = renders_create(1)
        services.render_skip(curator=alice, render=render)
        assert services.render_unskip(curator=alice, render=render)
        assert not Skip.objects.exists()
        assert ids(queue_next(curator=alice, queue_filter=ALL, want=1)) == [render.pk]

    def test_clearing_skips_brings_them_all_back(self, alice):
        renders = renders_create(3)
        for render in renders:
            services.render_skip(curator=alice, render=render)
        assert services.skips_clear(curator=alice) == 3
        assert len(ids(queue_next(curator=alice, queue_filter=ALL, want=3))) == 3


class TestFiltersAndOrders:
    def test_text_matches_the_prompt_or_the_procedural_subject(self, alice):
        rose = renders_create(1, prompt="a rose")[0]
        fern = renders_create(1, prompt="untitled", origin=Sketch.Origin.PROCEDURAL,
                              meta={"subject": "fern"}, start=1)[0]
        renders_create(1, prompt="a pond", start=2)
        assert ids(queue_next(curator=alice, queue_filter=QueueFilter(text="ROSE"), want=5)) == \
            [rose.pk]
        assert ids(queue_next(curator=alice, queue_filter=QueueFilter(text="fern"), want=5)) == \
            [fern.pk]

    def test_origin_filter(self, alice):
        renders_create(2)
        rollouts = renders_create(2, origin=Sketch.Origin.ROLLOUT, start=2)
        batch = queue_next(curator=alice, queue_filter=QueueFilter(origin="rollout"), want=5)
        assert sorted(ids(batch)) == sorted(r.pk for r in rollouts)

    def test_review_walks_my_grades_of_one_value_oldest_first(self, alice, bob):
        renders = renders_create(4)
        for render, value in zip(renders, ["love", "nope", "love", "love"], strict=True):
            services.grade_submit(curator=alice, render=render, value=value)
        services.grade_submit(curator=bob, render=renders[1], value="love")
        review = QueueFilter(grade="love")
        batch = queue_next(curator=alice, queue_filter=review, want=2)
        assert ids(batch) == [renders[0].pk, renders[2].pk]
        assert batch.entries[0].grade.value == "love"
        rest = queue_next(curator=alice, queue_filter=review, want=2,
                          after=batch.entries[-1].grade.pk)
        assert ids(rest) == [renders[3].pk] and rest.exhausted
        assert not Claim.objects.exists()  # reviewing holds nothing

    def test_by_prompt_groups_renders_of_one_prompt(self, alice):
        b = renders_create(1, prompt="b")[0]
        a = renders_create(1, prompt="a", start=1)[0]
        batch = queue_next(curator=alice, queue_filter=QueueFilter(order="prompt"), want=2)
        assert ids(batch) == [a.pk, b.pk]

    def test_random_order_still_hands_out_every_render_once(self, alice):
        renders = renders_create(6)
        batch = queue_next(curator=alice, queue_filter=QueueFilter(order="random"), want=10)
        assert sorted(ids(batch)) == sorted(r.pk for r in renders) and batch.exhausted

    def test_most_informative_is_hidden_without_a_reward_model(self, settings):
        settings.PAINTRL_INFORMATIVE_ORDER = None
        assert ordering.INFORMATIVE not in ordering.orders_available()
        settings.PAINTRL_INFORMATIVE_ORDER = f"{__name__}.no_reward_model_yet"
        assert ordering.INFORMATIVE not in ordering.orders_available()
        with pytest.raises(ValueError, match="not available"):
            QueueFilter(order="informative")

    def test_most_informative_uses_the_configured_order(self, alice, settings):
        settings.PAINTRL_INFORMATIVE_ORDER = f"{__name__}.informative_by_seed"
        renders = renders_create(3)
        assert ordering.orders_available()[ordering.INFORMATIVE] == "Most informative first"
        batch = queue_next(curator=alice, queue_filter=QueueFilter(order="informative"), want=3)
        assert ids(batch) == sorted((r.pk for r in renders), key=lambda pk: -pk)

    @pytest.mark.parametrize("query, message", [
        ("origin=painted", "unknown origin 'painted'"),
        ("grade=meh", "unknown grade 'meh'"),
        ("order=oldest", "queue order 'oldest' is not available"),
    ])
    def test_bad_filter_values_are_named(self, query, message):
        with pytest.raises(ValueError, match=message):
            QueueFilter.from_query(QueryDict(query))

    def test_filter_round_trips_through_its_query(self):
        f = QueueFilter(text="rose", origin="rollout", order="random")
        assert QueueFilter.from_query(QueryDict(mutable=True) | f.as_query()) == f
        assert QueueFilter().as_query() == {}


class TestProgress:
    def test_mine_everyones_and_what_is_left(self, alice, bob):
        renders = renders_create(6)
        services.grade_submit(curator=alice, render=renders[0], value="love")
        services.grade_submit(curator=alice, render=renders[1], value="okay")
        services.grade_submit(curator=bob, render=renders[2], value="nope")
        queue_next(curator=bob, queue_filter=ALL, want=1)  # Bob holds one more
        progress = selectors.grading_progress(curator=alice, queue_filter=ALL)
        assert (progress.mine, progress.done, progress.total) == (2, 3, 6)
        assert progress.remaining == 2  # six, less three graded, less the one Bob holds

    def test_done_counts_renders_with_as_many_grades_as_the_overlap(self, alice, bob,
                                                                     settings):
        settings.PAINTRL_GRADE_OVERLAP = 2
        renders = renders_create(3)
        services.grade_submit(curator=alice, render=renders[0], value="love")
        services.grade_submit(curator=bob, render=renders[0], value="okay")
        services.grade_submit(curator=alice, render=renders[1], value="love")
        progress = selectors.grading_progress(curator=bob, queue_filter=ALL)
        assert (progress.mine, progress.done, progress.total, progress.remaining) == (1, 1, 3, 2)
