"""The grading settings staff change from the site: the grading and compare
overlaps (falling back to PAINTRL_GRADE_OVERLAP and PAINTRL_COMPARE_OVERLAP),
read through a cache the save invalidates, and the guidelines curators see on
the grading page; one row in the admin."""
from __future__ import annotations

import pytest
from django.core.cache import cache
from django.urls import reverse

from rating import selectors, services
from rating.models import GradingSettings
from rating.pair_queue import pairs_next
from rating.queue import queue_next
from rating.selectors import QueueFilter
from tests.rating_data import curator_create, renders_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

ALL = QueueFilter()
GRADE = reverse("rating:grade")
ADMIN = "admin:rating_gradingsettings"


@pytest.fixture(autouse=True)
def fresh_cache():
    # The row is rolled back after each test; its cached copy must go too.
    cache.delete(selectors.GRADING_SETTINGS_CACHE_KEY)
    yield
    cache.delete(selectors.GRADING_SETTINGS_CACHE_KEY)


def ids(batch) -> list[int]:
    return [entry.render.pk for entry in batch.entries]


def settings_save(*, overlap=None, guidelines="", user=None, compare_overlap=None):
    return services.grading_settings_update(overlap=overlap, guidelines=guidelines,
                                            updated_by=user, compare_overlap=compare_overlap)


class TestOverlap:
    def test_the_sites_overlap_beats_the_environment_setting(self, settings):
        settings.PAINTRL_GRADE_OVERLAP = 1
        settings_save(overlap=2)
        renders_create(2)
        alice, bob, carol = (curator_create(name) for name in ("alice", "bob", "carol"))
        a = ids(queue_next(curator=alice, queue_filter=ALL, want=2))
        assert sorted(ids(queue_next(curator=bob, queue_filter=ALL, want=2))) == sorted(a)
        assert ids(queue_next(curator=carol, queue_filter=ALL, want=2)) == []

    def test_an_empty_overlap_falls_back_to_the_environment_setting(self, settings):
        settings.PAINTRL_GRADE_OVERLAP = 2
        settings_save(overlap=None, guidelines="Be kind.")
        renders_create(2)
        alice, bob = curator_create("alice"), curator_create("bob")
        a = ids(queue_next(curator=alice, queue_filter=ALL, want=2))
        assert sorted(ids(queue_next(curator=bob, queue_filter=ALL, want=2))) == sorted(a)
        assert selectors.grade_overlap() == 2

    def test_the_settings_are_read_once_then_cached(self, django_assert_num_queries):
        settings_save(overlap=3)
        with django_assert_num_queries(1):
            assert selectors.grade_overlap() == 3
            assert selectors.grade_overlap() == 3

    def test_a_change_takes_effect_on_the_next_request(self, client, settings):
        settings.PAINTRL_GRADE_OVERLAP = 1
        (render,) = renders_create(1)
        alice, bob = curator_create("alice"), curator_create("bob")
        client.force_login(alice)
        assert client.get(GRADE).context["current"].render == render
        assert selectors.grade_overlap() == 1  # cached now
        staff = curator_create("staff", staff=True)
        client.force_login(staff)
        response = client.post(reverse(f"{ADMIN}_add"), {"overlap": "2", "guidelines": ""})
        assert response.status_code == 302
        client.force_login(bob)  # Alice holds the render; at overlap 2 Bob gets it too
        assert client.get(GRADE).context["current"].render == render


class TestCompareOverlap:
    def test_the_sites_compare_overlap_beats_the_environment_setting(self, settings):
        settings.PAINTRL_COMPARE_OVERLAP = 1
        settings_save(compare_overlap=2)
        renders_create(2, prompt="a tulip", same_prompt=True)  # one pair
        alice, bob, carol = (curator_create(name) for name in ("alice", "bob", "carol"))
        assert len(pairs_next(curator=alice, want=1).entries) == 1
        assert len(pairs_next(curator=bob, want=1).entries) == 1
        assert pairs_next(curator=carol, want=1).entries == []

    def test_an_empty_compare_overlap_falls_back_to_the_environment_setting(self, settings):
        settings.PAINTRL_COMPARE_OVERLAP = 3
        settings_save(overlap=2)
        assert selectors.compare_overlap() == 3

    def test_staff_set_it_in_the_admin_and_below_one_is_refused(self, client, admin_user):
        client.force_login(admin_user)
        response = client.post(reverse(f"{ADMIN}_add"), {"overlap": "", "compare_overlap": "0",
                                                         "guidelines": ""})
        assert response.status_code == 200 and not GradingSettings.objects.exists()
        client.post(reverse(f"{ADMIN}_add"), {"overlap": "", "compare_overlap": "2",
                                              "guidelines": ""})
        assert GradingSettings.objects.get().compare_overlap == 2
        assert selectors.compare_overlap() == 2


class TestGuidelines:
    def test_a_curator_sees_them_beside_the_picture_escaped(self, client):
        settings_save(guidelines="Love <b>bold</b> shapes.\nNope: blank canvases.")
        renders_create(1)
        client.force_login(curator_create("alice"))
        html = client.get(GRADE).content.decode()
        assert 'id="guidelines"' in html
        assert "Love &lt;b&gt;bold&lt;/b&gt; shapes.<br>Nope: blank canvases." in html
        assert "<b>bold</b>" not in html
        assert reverse(f"{ADMIN}_changelist") not in html  # the edit link is for staff

    def test_staff_see_a_link_to_edit_them_even_before_any_are_written(self, client):
        client.force_login(curator_create("staff", staff=True))
        html = client.get(GRADE).content.decode()
        assert "No guidelines yet" in html
        assert reverse(f"{ADMIN}_changelist") in html

    def test_no_panel_for_curators_when_there_are_none(self, client):
        client.force_login(curator_create("alice"))
        assert 'id="guidelines"' not in client.get(GRADE).content.decode()


class TestAdmin:
    def test_one_row_no_second_add_and_no_delete(self, admin_client, admin_user):
        assert admin_client.get(reverse(f"{ADMIN}_changelist")).url == reverse(f"{ADMIN}_add")
        admin_client.post(reverse(f"{ADMIN}_add"), {"overlap": "", "guidelines": "Look twice."})
        row = GradingSettings.objects.get()
        assert (row.guidelines, row.updated_by) == ("Look twice.", admin_user)
        assert admin_client.get(reverse(f"{ADMIN}_add")).status_code == 403
        assert admin_client.get(reverse(f"{ADMIN}_delete", args=[row.pk])).status_code == 403
        assert admin_client.get(reverse(f"{ADMIN}_changelist")).url == \
            reverse(f"{ADMIN}_change", args=[row.pk])

    def test_an_overlap_below_one_is_refused(self, admin_client):
        response = admin_client.post(reverse(f"{ADMIN}_add"), {"overlap": "0", "guidelines": ""})
        assert response.status_code == 200 and not GradingSettings.objects.exists()
