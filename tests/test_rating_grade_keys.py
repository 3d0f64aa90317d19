"""A grade request named by its client's key is applied once: a retry after
a lost answer (the grading page's outbox, a script) changes nothing, even
after a newer grade, and two copies racing each other on PostgreSQL leave one
grade and one history row (rating.services.grade_submit)."""
from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from api.tokens import token_create
from rating.models import Grade, GradeChange, GradeReceipt
from rating.services import grade_submit
from tests.postgresql import clients_logged_in, on_postgresql, run_at_once
from tests.rating_data import PASSWORD, curator_create, renders_create
from tests.test_api import API, Caller

KEY, OTHER_KEY = "k" * 8 + "-first", "k" * 8 + "-second"


@pytest.mark.django_db
class TestTheApi:
    def test_a_retry_changes_nothing_even_after_a_newer_grade(self, media):
        curator = Caller(curator_create("cora"))
        [render] = renders_create(1)
        first = curator("POST", "/grades", {"render": render.pk, "value": "love", "key": KEY})
        again = curator("POST", "/grades", {"render": render.pk, "value": "love", "key": KEY})
        assert first.status_code == again.status_code == 201
        assert first.json()["id"] == again.json()["id"]
        assert curator("POST", "/grades", {"render": render.pk, "value": "nope",
                                           "key": OTHER_KEY}).status_code == 201
        late = curator("POST", "/grades", {"render": render.pk, "value": "love", "key": KEY})
        assert late.status_code == 201 and late.json()["value"] == "nope"
        assert Grade.objects.get().value == "nope"
        assert list(GradeChange.objects.order_by("pk").values_list("value", flat=True)) == [
            "love", "nope"]

    def test_a_key_used_for_another_grade_is_refused(self, media):
        curator = Caller(curator_create("cora"))
        a, b = renders_create(2)
        curator("POST", "/grades", {"render": a.pk, "value": "love", "key": KEY})
        for body in ({"render": b.pk, "value": "love"}, {"render": a.pk, "value": "okay"}):
            response = curator("POST", "/grades", {**body, "key": KEY})
            assert response.status_code == 409 and "key" in response.json()["problems"][0]
        assert Grade.objects.get().render_id == a.pk and Grade.objects.get().value == "love"

    def test_keys_are_each_curators_own(self, media):
        [render] = renders_create(1)
        for name in ("cora", "dora"):
            Caller(curator_create(name))("POST", "/grades", {"render": render.pk,
                                                             "value": "love", "key": KEY})
        assert Grade.objects.count() == GradeReceipt.objects.count() == 2

    @pytest.mark.parametrize("key", ["short", "x" * 65, "has space1", "ünicode-key"])
    def test_a_malformed_key_is_refused_before_anything_is_saved(self, media, key):
        curator = Caller(curator_create("cora"))
        [render] = renders_create(1)
        response = curator("POST", "/grades", {"render": render.pk, "value": "love",
                                               "key": key})
        assert response.status_code == 400 and Grade.objects.count() == 0


@pytest.mark.django_db
def test_the_grading_pages_outbox_retry_is_recognised(client, media):
    curator_create("cora")
    client.login(username="cora", password=PASSWORD)
    [render] = renders_create(1)
    action = {"op": "grade", "render": render.pk, "value": "love", "key": KEY}
    answers = [client.post(reverse("rating:act"), action) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json()["saved"] == answers[1].json()["saved"]
    client.post(reverse("rating:act"), {**action, "value": "okay", "key": OTHER_KEY})
    client.post(reverse("rating:act"), action)  # the first one's late retry
    assert Grade.objects.get().value == "okay" and GradeChange.objects.count() == 2


def test_copies_of_one_request_racing_leave_one_grade_and_one_history_row(
        request, transactional_db, media):
    if not on_postgresql(request):
        return
    curator = curator_create("cora")
    [render] = renders_create(1)
    copies = 6
    start, answers = threading.Barrier(copies), []
    raw = token_create(user=curator, name="race")[1]
    clients = clients_logged_in([curator] * copies)

    def post(i: int) -> None:
        start.wait()
        try:
            response = clients[i].post(f"{API}/grades", {"render": render.pk, "value": "love",
                                                          "key": KEY},
                                       content_type="application/json",
                                       headers={"Authorization": f"Bearer {raw}"})
            answers.append(response.status_code)
        finally:
            connection.close()

    run_at_once(post, copies)
    assert answers == [201] * copies
    assert Grade.objects.count() == GradeChange.objects.count() == 1
    assert GradeReceipt.objects.count() == 1
    grade, previous = grade_submit(curator=curator, render=render, value="love", key=KEY)
    assert (grade.value, previous) == ("love", "")
