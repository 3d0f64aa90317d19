"""Comparing pairs: the services that record and undo a comparison, the pair
selector (least sure first, compared pairs left out, the overlap setting),
the claims that hold pairs for a curator, and the comparing page: its plain
forms without JavaScript, the JSON actions compare.js sends, and who may use it."""
from __future__ import annotations

import json

import pytest
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.urls import reverse

from pool.models import RewardModel
from rating import services
from rating.models import Comparison, PairClaim
from rating.pair_queue import pairs_next
from rating.pairs import certainty, pair_key, pair_progress
from rating.pairs import pairs_open as pairs_open_lazily
from tests.rating_data import curator_create, renders_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

COMPARE = reverse("rating:compare")
ACT = reverse("rating:compare_act")
NEXT = reverse("rating:compare_next")


@pytest.fixture
def alice(db):
    return curator_create("alice")


@pytest.fixture
def bob(db):
    return curator_create("bob")


def keys(batch) -> list[tuple[int, int]]:
    return [entry.key for entry in batch.entries]


def pairs_open(*, curator) -> list:
    return list(pairs_open_lazily(curator=curator))


def scored(renders, scores, label="reward-model v1"):
    for render, score in zip(renders, scores, strict=True):
        render.taste_score, render.taste_model = score, label
        render.save(update_fields=["taste_score", "taste_model"])


class TestComparisonServices:
    def test_a_comparison_keeps_who_the_sides_the_prompt_and_the_time_shown(self, alice):
        left, right = renders_create(2, prompt="a tulip", same_prompt=True)
        comparison = services.comparison_submit(curator=alice, left=right, right=left,
                                                choice="left", shown_ms=1200)
        comparison.refresh_from_db()
        assert (comparison.left_id, comparison.right_id) == (right.pk, left.pk)
        assert comparison.prompt == "a tulip" and comparison.shown_ms == 1200
        assert comparison.curator == alice and comparison.winner_id == right.pk

    def test_comparing_again_keeps_one_row_with_the_latest_choice(self, alice):
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        services.comparison_submit(curator=alice, left=a, right=b, choice="left")
        services.comparison_submit(curator=alice, left=b, right=a, choice="tie")
        assert list(Comparison.objects.values_list("left", "right", "choice")) == [
            (b.pk, a.pk, "tie")]

    def test_the_database_refuses_a_second_row_for_the_same_pair(self, alice):
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        Comparison.objects.create(curator=alice, left=a, right=b, choice="left")
        with pytest.raises(IntegrityError), transaction.atomic():
            Comparison.objects.create(curator=alice, left=b, right=a, choice="right")

    def test_renders_of_different_prompts_or_one_render_twice_are_refused(self, alice):
        a, b = renders_create(2)  # prompts "a hibiscus 0" and "a hibiscus 1"
        with pytest.raises(ValueError, match="different prompts"):
            services.comparison_submit(curator=alice, left=a, right=b, choice="left")
        with pytest.raises(ValueError, match="itself"):
            services.comparison_submit(curator=alice, left=a, right=a, choice="left")
        with pytest.raises(ValueError, match="unknown choice"):
            services.comparison_submit(curator=alice, left=a, right=b, choice="both")
        assert not Comparison.objects.exists()

    def test_undo_withdraws_it_and_the_pair_comes_back_on_the_same_sides(self, alice):
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        services.comparison_submit(curator=alice, left=b, right=a, choice="right")
        assert services.comparison_undo(curator=alice, left=b, right=a) is True
        assert not Comparison.objects.exists()
        assert list(PairClaim.objects.values_list("left", "right")) == [(b.pk, a.pk)]
        # A retried undo changes nothing.
        assert services.comparison_undo(curator=alice, left=b, right=a) is True
        assert PairClaim.objects.count() == 1


class TestPairSelector:
    def test_only_renders_of_one_prompt_are_paired(self, alice):
        renders_create(3, prompt="a tulip", same_prompt=True)
        renders_create(2, prompt="a poppy", same_prompt=True, start=3)
        renders_create(1, prompt="a lone lotus", same_prompt=True, start=5)
        assert len(pairs_open(curator=alice)) == 3 + 1

    def test_without_an_active_model_every_pair_is_offered(self, alice):
        renders = renders_create(4, prompt="a tulip", same_prompt=True)
        scored(renders, [0.0, 0.1, 5.0, 9.0])  # scores of no active model: ignored
        pairs = pairs_open(curator=alice)
        assert len(pairs) == 6 and all(p.certainty is None for p in pairs)

    def test_the_active_models_least_sure_pairs_come_first(self, alice):
        RewardModel.objects.create(version=3, status=RewardModel.Status.DONE, active=True)
        a, b, c, d = renders_create(4, prompt="a tulip", same_prompt=True)
        scored([a, b, c, d], [0.0, 2.0, 2.3, 6.0], label="reward-model v3")
        order = [p.key for p in pairs_open(curator=alice)]
        assert order[0] == pair_key(b.pk, c.pk)  # 0.3 apart: nearest a coin toss
        assert order[1] == pair_key(a.pk, b.pk)  # 2.0 apart
        assert order[-1] == pair_key(a.pk, d.pk)  # 6.0 apart: the model is surest
        sure = [p.certainty for p in pairs_open(curator=alice)]
        assert sure == sorted(sure)
        assert sure[0] == pytest.approx(certainty(2.0, 2.3))

    def test_scores_from_an_older_model_count_as_unscored_and_come_last(self, alice):
        RewardModel.objects.create(version=3, status=RewardModel.Status.DONE, active=True)
        a, b, c = renders_create(3, prompt="a tulip", same_prompt=True)
        scored([a, b], [0.0, 4.0], label="reward-model v3")
        scored([c], [0.1], label="reward-model v2")
        order = pairs_open(curator=alice)
        assert order[0].key == pair_key(a.pk, b.pk) and order[0].certainty is not None
        assert all(p.certainty is None for p in order[1:])

    def test_pairs_the_curator_compared_or_skipped_are_left_out(self, alice):
        a, b, c = renders_create(3, prompt="a tulip", same_prompt=True)
        services.comparison_submit(curator=alice, left=a, right=b, choice="left")
        services.comparison_submit(curator=alice, left=c, right=a, choice="skip")
        assert [p.key for p in pairs_open(curator=alice)] == [pair_key(b.pk, c.pk)]
        assert pair_progress(curator=alice).mine == 1  # a skip judges nothing

    def test_at_overlap_one_a_pair_compared_by_another_curator_is_closed(self, alice, bob):
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        services.comparison_submit(curator=bob, left=a, right=b, choice="right")
        assert pairs_open(curator=alice) == []

    def test_overlap_two_lets_a_second_curator_see_the_pair_but_not_a_third(
            self, alice, bob, settings):
        settings.PAINTRL_COMPARE_OVERLAP = 2
        carol = curator_create("carol")
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        services.comparison_submit(curator=bob, left=a, right=b, choice="right")
        assert [p.key for p in pairs_open(curator=alice)] == [pair_key(a.pk, b.pk)]
        services.comparison_submit(curator=alice, left=b, right=a, choice="left")
        assert pairs_open(curator=carol) == []

    def test_a_skip_takes_no_overlap_seat(self, alice, bob):
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        services.comparison_submit(curator=bob, left=a, right=b, choice="skip")
        assert len(pairs_open(curator=alice)) == 1


class TestPairQueue:
    def test_claimed_pairs_are_not_handed_to_a_second_curator_at_overlap_one(self, alice, bob):
        renders_create(3, prompt="a tulip", same_prompt=True)  # three pairs
        first = pairs_next(curator=alice, want=2)
        second = pairs_next(curator=bob, want=2)
        assert len(first.entries) == 2 and len(second.entries) == 1 and second.exhausted
        assert not set(keys(first)) & set(keys(second))

    def test_sides_are_drawn_at_random_and_kept_across_requests(self, alice):
        renders_create(12, prompt="a tulip", same_prompt=True)
        batch = pairs_next(curator=alice, want=20)
        lefts_lower = [e.left.pk < e.right.pk for e in batch.entries]
        assert True in lefts_lower and False in lefts_lower  # 20 coin tosses
        again = pairs_next(curator=alice, want=20)
        assert [(e.left.pk, e.right.pk) for e in again.entries] == [
            (e.left.pk, e.right.pk) for e in batch.entries]

    def test_pairs_the_browser_holds_are_not_sent_again(self, alice):
        renders_create(3, prompt="a tulip", same_prompt=True)
        held = keys(pairs_next(curator=alice, want=3))
        assert keys(pairs_next(curator=alice, want=3, have=held[:2])) == held[2:]

    def test_a_comparison_frees_its_claim(self, alice):
        renders_create(2, prompt="a tulip", same_prompt=True)
        entry = pairs_next(curator=alice, want=1).entries[0]
        services.comparison_submit(curator=alice, left=entry.left, right=entry.right,
                                   choice="tie")
        assert not PairClaim.objects.exists()


@pytest.fixture
def logged_in(client, alice):
    client.force_login(alice)
    return client


class TestComparingPage:
    def test_anonymous_visitors_go_to_login_and_non_curators_are_refused(self, client):
        for url in (COMPARE, NEXT):
            assert client.get(url)["Location"].startswith(reverse("login"))
        client.force_login(get_user_model().objects.create_user("vic", password="x" * 12))
        assert client.get(COMPARE).status_code == 403
        assert client.post(ACT).status_code == 403

    def test_the_page_shows_a_pair_of_one_prompt_with_its_keys(self, logged_in, alice):
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        response = logged_in.get(COMPARE)
        assert response.status_code == 200
        entry = response.context["compare_data"]["entries"][0]
        assert {entry["left"]["id"], entry["right"]["id"]} == {a.pk, b.pk}
        assert entry["prompt"] == "a tulip"
        html = response.content.decode()
        assert f'data-pair="{entry["key"]}"' in html
        for key in ("←", "→", "Backspace", "<kbd>t</kbd>", "<kbd>s</kbd>"):
            assert key in html

    def test_the_grading_page_links_here(self, logged_in):
        assert f'href="{COMPARE}"' in logged_in.get(reverse("rating:grade")).content.decode()

    def test_without_javascript_a_form_post_compares_and_shows_the_next_pair(
            self, logged_in, alice):
        renders_create(3, prompt="a tulip", same_prompt=True)
        entry = logged_in.get(COMPARE).context["compare_data"]["entries"][0]
        left, right = entry["left"]["id"], entry["right"]["id"]
        response = logged_in.post(COMPARE, {"op": "compare", "left": left, "right": right,
                                             "choice": "right", "shown_at": 1}, follow=True)
        comparison = Comparison.objects.get()
        assert (comparison.left_id, comparison.right_id, comparison.choice) == (
            left, right, "right")
        assert comparison.shown_ms is None  # shown_at from 1970: not a measurement
        following = response.context["compare_data"]["entries"][0]
        assert following["key"] != entry["key"]
        # Undo from the plain form: the pair is back, first.
        response = logged_in.post(COMPARE, {"op": "undo", "left": left, "right": right},
                                  follow=True)
        assert not Comparison.objects.exists()
        assert entry["key"] in [e["key"] for e in response.context["compare_data"]["entries"]]

    def test_a_bad_form_post_says_why_and_saves_nothing(self, logged_in):
        a, b = renders_create(2)  # different prompts
        response = logged_in.post(COMPARE, {"op": "compare", "left": a.pk, "right": b.pk,
                                            "choice": "left"}, follow=True)
        assert "different prompts" in response.content.decode()
        assert not Comparison.objects.exists()

    def test_the_json_action_saves_and_answers_the_next_pairs(self, logged_in, alice):
        renders_create(4, prompt="a tulip", same_prompt=True)
        body = json.loads(logged_in.get(NEXT, {"want": 2}).content)
        first, second = body["entries"]
        response = logged_in.post(ACT, {"op": "compare", "left": first["left"]["id"],
                                        "right": first["right"]["id"], "choice": "left",
                                        "shown_ms": 800, "want": 2, "have": second["key"]})
        assert response.status_code == 200 and "app;dur=" in response["Server-Timing"]
        answer = json.loads(response.content)
        assert answer["saved"] == {"op": "compare", "left": first["left"]["id"],
                                   "right": first["right"]["id"], "choice": "left",
                                   "held": False}
        assert [e["key"] for e in answer["entries"]] not in ([first["key"]], [second["key"]])
        assert Comparison.objects.get().shown_ms == 800

    def test_a_refused_json_action_names_the_field(self, logged_in):
        a, b = renders_create(2, prompt="a tulip", same_prompt=True)
        response = logged_in.post(ACT, {"op": "compare", "left": a.pk, "right": b.pk})
        assert response.status_code == 400
        assert "choice" in json.loads(response.content)["fields"]
        response = logged_in.post(ACT, {"op": "compare", "left": a.pk, "right": b.pk,
                                        "choice": "left", "have": "1-2-3"})
        assert response.status_code == 400 and "have" in json.loads(response.content)["fields"]
