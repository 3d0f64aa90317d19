"""The grading page and its background endpoints: who may use them, the plain
forms that work without JavaScript, and the JSON actions grading.js sends."""
from __future__ import annotations

import json
import time

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from rating.models import Claim, Grade, GradeChange, Skip
from tests.rating_data import curator_create, renders_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

GRADE = reverse("rating:grade")
ACT = reverse("rating:act")
NEXT = reverse("rating:next")


@pytest.fixture
def curator(db):
    return curator_create("alice")


@pytest.fixture
def logged_in(client, curator):
    client.force_login(curator)
    return client


def current_render(response) -> int | None:
    data = response.context["grading_data"]
    return data["entries"][0]["id"] if data["entries"] else None


class TestAccess:
    @pytest.mark.parametrize("url", [GRADE, ACT, NEXT, reverse("rating:progress"),
                                     reverse("rating:render_code", args=[1]),
                                     reverse("rating:skips_clear")])
    def test_anonymous_visitors_are_sent_to_the_login_page(self, client, url):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))

    @pytest.mark.parametrize("method, url", [("get", GRADE), ("post", ACT), ("get", NEXT),
                                             ("get", reverse("rating:progress")),
                                             ("post", reverse("rating:skips_clear"))])
    def test_users_outside_the_curator_group_are_refused(self, client, method, url):
        client.force_login(get_user_model().objects.create_user("visitor", password="x" * 12))
        assert getattr(client, method)(url).status_code == 403

    def test_curators_and_staff_may_grade(self, client, curator):
        ids = {render.pk for render in renders_create(12)}
        for user in (curator, curator_create("boss", staff=True)):
            client.force_login(user)
            page = client.get(GRADE)
            assert page.status_code == 200
            # Each is handed a render to grade, held for them alone.
            assert current_render(page) in ids
            assert Claim.objects.get(render_id=current_render(page)).curator == user

    def test_posts_without_the_csrf_token_are_refused(self, curator):
        (render,) = renders_create(1)
        client = Client(enforce_csrf_checks=True)
        client.force_login(curator)
        page = client.get(GRADE)
        assert b"csrfmiddlewaretoken" in page.content
        response = client.post(ACT, {"op": "grade", "render": render.pk, "value": "love"})
        assert response.status_code == 403
        assert not Grade.objects.exists()

    def test_a_bad_filter_is_a_clear_400(self, logged_in):
        response = logged_in.get(GRADE, {"origin": "painted"})
        assert response.status_code == 400
        assert b"unknown origin 'painted'" in response.content


class TestPageWithoutJavaScript:
    def test_the_page_shows_the_newest_render_with_forms_for_every_action(self, logged_in):
        renders = renders_create(3)
        response = logged_in.get(GRADE)
        assert current_render(response) == renders[-1].pk
        html = response.content.decode()
        png = reverse("sketches:render_png", args=[renders[-1].pk])
        assert f'<img class="stage-img" src="{png}"' in html
        for value in ("love", "okay", "nope"):
            assert f'name="value" value="{value}"' in html
        assert 'name="op" value="skip"' in html and 'id="keys-help"' in html
        assert response["Cache-Control"].startswith("max-age=0")

    def test_a_graded_form_saves_and_shows_the_next_render(self, logged_in, curator):
        renders = renders_create(2)
        shown_at = int(time.time() * 1000) - 1500
        response = logged_in.post(f"{GRADE}?order=newest&q=hibiscus", {
            "op": "grade", "render": renders[1].pk, "value": "nope", "shown_at": shown_at})
        assert response.status_code == 302 and response["Location"] == f"{GRADE}?q=hibiscus"
        grade = Grade.objects.get()
        assert (grade.render, grade.curator, grade.value) == (renders[1], curator, "nope")
        assert 1500 <= grade.shown_ms < 60000
        page = logged_in.get(response["Location"])
        assert current_render(page) == renders[0].pk
        assert f"Render {renders[1].pk}: nope." in page.content.decode()

    def test_undo_withdraws_the_last_grade_and_shows_that_render_again(self, logged_in):
        renders = renders_create(3)
        logged_in.post(GRADE, {"op": "grade", "render": renders[2].pk, "value": "love"})
        page = logged_in.get(GRADE)
        undo_step = page.context["undo_step"]
        assert (undo_step.grade.render_id, undo_step.previous) == (renders[2].pk, "")
        response = logged_in.post(GRADE, {"op": "undo", "render": renders[2].pk, "restore": ""})
        assert not Grade.objects.exists()
        assert current_render(logged_in.get(response["Location"])) == renders[2].pk

    def test_skip_and_history_change(self, logged_in):
        renders = renders_create(2)
        logged_in.post(GRADE, {"op": "skip", "render": renders[1].pk})
        assert Skip.objects.get().render == renders[1]
        page = logged_in.get(GRADE)
        assert current_render(page) == renders[0].pk and page.context["skipped"] == 1
        logged_in.post(GRADE, {"op": "grade", "render": renders[0].pk, "value": "okay"})
        logged_in.post(GRADE, {"op": "grade", "render": renders[0].pk, "value": "love"})
        assert GradeChange.objects.filter(previous="okay", value="love").count() == 1
        history = logged_in.get(GRADE).context["history"]
        assert [(g.render_id, g.value) for g in history] == [(renders[0].pk, "love")]

    def test_a_refused_form_says_why(self, logged_in):
        (render,) = renders_create(1)
        response = logged_in.post(GRADE, {"op": "grade", "render": render.pk}, follow=True)
        assert "a grade needs a value" in response.content.decode()
        assert not Grade.objects.exists()

    def test_code_panel_on_request(self, logged_in):
        (render,) = renders_create(1)
        assert b"// sketch 0" not in logged_in.get(GRADE).content
        assert b"// sketch 0" in logged_in.get(GRADE, {"code": "1"}).content
        fragment = logged_in.get(reverse("rating:render_code", args=[render.pk]))
        assert b"// sketch 0" in fragment.content and b"<html" not in fragment.content

    def test_review_moves_on_past_the_changed_grade(self, logged_in):
        renders = renders_create(2)
        for render in renders:
            logged_in.post(GRADE, {"op": "grade", "render": render.pk, "value": "love"})
        page = logged_in.get(GRADE, {"grade": "love"})
        first = Grade.objects.get(render=renders[0])
        assert current_render(page) == renders[0].pk
        response = logged_in.post(f"{GRADE}?grade=love",
                                  {"op": "grade", "render": renders[0].pk, "value": "okay"})
        assert response["Location"] == f"{GRADE}?grade=love&after={first.pk}"
        assert current_render(logged_in.get(response["Location"])) == renders[1].pk

    def test_empty_queue_offers_the_skipped_renders_back(self, logged_in):
        (render,) = renders_create(1)
        logged_in.post(GRADE, {"op": "skip", "render": render.pk})
        page = logged_in.get(GRADE)
        assert current_render(page) is None
        assert "Bring back the 1 render you skipped" in page.content.decode()
        logged_in.post(reverse("rating:skips_clear"))
        assert current_render(logged_in.get(GRADE)) == render.pk


class TestBackgroundActions:
    def test_grade_and_fetch_next_in_one_request(self, logged_in, curator):
        renders = renders_create(8)
        page = logged_in.get(GRADE)
        held = [e["id"] for e in page.context["grading_data"]["entries"]]
        assert len(held) == 5
        response = logged_in.post(ACT, {"op": "grade", "render": held[0], "value": "love",
                                        "shown_ms": 650, "want": 5, "have": ",".join(
                                            map(str, held[1:]))})
        assert response.status_code == 200
        assert response["Server-Timing"].startswith("app;dur=")
        body = response.json()
        assert body["saved"] == {"op": "grade", "render": held[0], "value": "love",
                                 "previous": "", "grade_id": Grade.objects.get().pk,
                                 "held": False}
        # Four still held: the queue is topped up once two short, not after every grade.
        assert body["entries"] == [] and not body["exhausted"]
        assert Grade.objects.get().shown_ms == 650
        assert Claim.objects.filter(curator=curator).count() == 4
        response = logged_in.post(ACT, {"op": "grade", "render": held[1], "value": "okay",
                                        "want": 5, "have": ",".join(map(str, held[2:]))})
        entries = response.json()["entries"]
        assert len(entries) == 2 and not {e["id"] for e in entries} & set(held)
        assert Claim.objects.filter(curator=curator).count() == 5
        assert set(held) < {r.pk for r in renders}

    def test_progress_fragment(self, logged_in):
        renders = renders_create(8)
        logged_in.post(ACT, {"op": "grade", "render": renders[0].pk, "value": "love"})
        response = logged_in.get(reverse("rating:progress"), {"q": "hibiscus"})
        html = " ".join(response.content.decode().split())
        for name, value in [("mine", 1), ("done", 1), ("total", 8), ("remaining", 7)]:
            assert f'<strong data-progress="{name}">{value}</strong>' in html
        assert html.strip().startswith('<div id="progress-figures"') and "<html" not in html
        assert f'hx-get="{reverse("rating:progress")}?q=hibiscus"' in html

    def test_undo_then_unskip_over_the_api(self, logged_in):
        renders = renders_create(2)
        logged_in.post(ACT, {"op": "grade", "render": renders[0].pk, "value": "nope"})
        body = logged_in.post(ACT, {"op": "undo", "render": renders[0].pk}).json()
        assert body["saved"]["held"] and not Grade.objects.exists()
        logged_in.post(ACT, {"op": "skip", "render": renders[1].pk})
        assert logged_in.post(ACT, {"op": "unskip", "render": renders[1].pk}).json()["saved"][
            "held"]
        assert not Skip.objects.exists()

    @pytest.mark.parametrize("fields, message", [
        ({"op": "grade", "value": "love"}, "This field is required."),
        ({"op": "grade", "render": 999, "value": "love"}, "render 999 does not exist"),
        ({"op": "grade", "render": "{pk}", "value": "meh"}, "Select a valid choice"),
        ({"op": "grade", "render": "{pk}", "value": "love", "shown_ms": -5}, "greater than"),
        ({"op": "dance", "render": "{pk}"}, "Select a valid choice"),
        ({"op": "skip", "render": "{pk}", "have": "1,x"}, "comma-separated render ids"),
    ])
    def test_bad_actions_are_refused_with_the_reason(self, logged_in, fields, message):
        (render,) = renders_create(1)
        fields = {k: (v.format(pk=render.pk) if isinstance(v, str) else v)
                  for k, v in fields.items()}
        response = logged_in.post(ACT, fields)
        assert response.status_code == 400
        assert message in json.dumps(response.json())
        assert not Grade.objects.exists() and not Skip.objects.exists()

    def test_next_tops_up_and_says_when_the_queue_is_exhausted(self, logged_in):
        renders_create(4)
        body = logged_in.get(NEXT, {"want": 2}).json()
        assert len(body["entries"]) == 2 and not body["exhausted"]
        have = ",".join(str(e["id"]) for e in body["entries"])
        body = logged_in.get(NEXT, {"want": 5, "have": have}).json()
        assert len(body["entries"]) == 2 and body["exhausted"]


class TestAdmin:
    def test_grades_claims_and_skips_are_listed_for_staff(self, client, curator):
        render, skipped, held = renders_create(3)
        logged = Client()
        logged.force_login(curator)
        logged.post(ACT, {"op": "grade", "render": render.pk, "value": "love"})
        logged.post(GRADE, {"op": "skip", "render": skipped.pk})
        logged.get(GRADE)  # claims what is left: `held`
        admin = get_user_model().objects.create_superuser("root", password="x" * 12)
        client.force_login(admin)
        for name, listed in (("grade", render), ("claim", held), ("skip", skipped)):
            changelist = client.get(reverse(f"admin:rating_{name}_changelist"))
            assert changelist.status_code == 200
            assert [(row.render_id, row.curator) for row in changelist.context["cl"].result_list
                    ] == [(listed.pk, curator)], name
        grade = Grade.objects.get()
        page = client.get(reverse("admin:rating_grade_change", args=[grade.pk]))
        assert page.status_code == 200 and b"love" in page.content
