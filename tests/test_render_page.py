"""The render page's grading and pool panels (rating.render_panel,
pool.render_panel, asked through sketches.conf.render_panels): grades and
graders, the pool tier, the taste score's model, grade buttons, and the
previous and next links."""
from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from pool.services import snapshot_freeze
from rating.models import Grade
from sketches.models import Render
from tests.pool_data import grades_give, pool_renders_create
from tests.rating_data import curator_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]


@pytest.fixture
def renders():
    return pool_renders_create(3, prompt="a tulip")


def page(user, render: Render) -> str:
    client = Client()
    client.force_login(user)
    response = client.get(reverse("sketches:render_detail", args=[render.pk]))
    assert response.status_code == 200
    return response.content.decode()


class TestGrades:
    def test_staff_see_each_curators_grade(self, staff, renders):
        grades_give(renders[1], "love", "okay")  # curators c0 and c1
        content = page(staff, renders[1])
        grades = content.split('class="agreement render-grade-list"')[1].split("</table>")[0]
        assert "<td>c0</td>" in grades and "<td>c1</td>" in grades
        assert 'class="status grade-love">love' in grades
        assert 'class="status grade-okay">okay' in grades
        assert "2 curators graded this render." in content

    def test_a_curator_sees_only_their_own_grade(self, renders):
        alice = curator_create("alice")
        grades_give(renders[1], "nope")  # c0
        content = page(alice, renders[1])
        assert "render-grade-list" not in content and "c0" not in content
        assert "You have not graded this render." in content

    def test_the_grade_buttons_post_store_the_grade_and_come_back(self, renders):
        alice = curator_create("alice")
        client = Client()
        client.force_login(alice)
        detail = reverse("sketches:render_detail", args=[renders[0].pk])
        content = client.get(detail).content.decode()
        form = content.split('class="render-grade-buttons"')[1].split("</form>")[0]
        assert f'action="{reverse("rating:grade")}"' in content
        for value in ("love", "okay", "nope"):
            assert f'name="value" value="{value}"' in form
        response = client.post(reverse("rating:grade"), {
            "op": "grade", "render": renders[0].pk, "value": "love", "next": detail})
        assert response.status_code == 302 and response["Location"] == detail
        assert Grade.objects.get(render=renders[0], curator=alice).value == "love"
        content = client.get(detail).content.decode()
        assert f"Render {renders[0].pk}: love." in content
        assert "You graded it <strong>love</strong>" in content

    def test_a_next_address_off_the_site_is_not_followed(self, renders):
        alice = curator_create("alice")
        client = Client()
        client.force_login(alice)
        response = client.post(reverse("rating:grade"), {
            "op": "grade", "render": renders[0].pk, "value": "okay",
            "next": "https://elsewhere.example/"})
        assert response["Location"] == reverse("rating:grade")

    def test_a_visitor_outside_the_curator_group_sees_no_panels(self, renders):
        from django.contrib.auth import get_user_model

        visitor = get_user_model().objects.create_user("visitor", password="x" * 12)
        content = page(visitor, renders[0])
        assert "render-grades" not in content and "render-pool" not in content


class TestPool:
    def test_the_live_tier_and_the_latest_snapshot(self, staff, renders):
        grades_give(renders[0], "love")
        grades_give(renders[2], "okay")
        snapshot_freeze(user=staff, name="first")
        content = page(staff, renders[0])
        pool = content.split('class="card render-panel render-pool"')[1].split("</section>")[0]
        assert 'pool-tier-love">love</span>' in pool
        assert "grades 1 love / 0 okay / 0 nope" in pool
        assert ">first</a>: <span class=\"status pool-tier pool-tier-love\">love</span>" in pool
        pool = page(staff, renders[1]).split('render-pool"')[1].split("</section>")[0]
        assert "not in the <a href=\"/pool/\">pool</a>" in pool and "not a member" in pool

    def test_the_taste_score_names_its_reward_model(self, staff, renders):
        Render.objects.filter(pk=renders[0].pk).update(taste_score=0.734,
                                                       taste_model="reward-model v3")
        content = page(staff, renders[0])
        pool = content.split('render-pool"')[1].split("</section>")[0]
        assert "0.73 from <strong>reward-model v3</strong>" in pool


class TestNeighbours:
    def test_previous_and_next_among_renders_of_the_same_status(self, staff, renders):
        (rejected,) = pool_renders_create(1, prompt="a poppy", start=5)
        Render.objects.filter(pk=rejected.pk).update(status=Render.Status.REJECTED)
        first, middle, last = renders
        content = page(staff, middle)
        assert f'href="{reverse("sketches:render_detail", args=[first.pk])}" rel="prev"' \
            in content
        assert f'href="{reverse("sketches:render_detail", args=[last.pk])}" rel="next"' \
            in content
        content = page(staff, last)
        assert 'rel="next"' not in content  # the rejected render is not "next"
        assert 'rel="prev"' not in page(staff, first)


class TestPanelSetting:
    def test_the_setting_chooses_the_panels(self, settings, staff, renders):
        settings.PAINTRL_RENDER_PANELS = ["pool.render_panel.pool_panel"]
        content = page(staff, renders[0])
        assert "render-pool" in content and "render-grades" not in content

    def test_a_path_that_does_not_import_names_the_setting(self, settings, renders):
        from django.core.exceptions import ImproperlyConfigured

        from sketches.conf import render_panels

        settings.PAINTRL_RENDER_PANELS = ["rating.nowhere.panel"]
        with pytest.raises(ImproperlyConfigured, match="PAINTRL_RENDER_PANELS"):
            render_panels()
