"""The web app: every page but the login needs a login; the home page shows
render progress and serves its counts as an htmx fragment."""
from __future__ import annotations

import logging
import random

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import reverse

from sketches import services
from sketches.models import Render

pytestmark = pytest.mark.django_db


@pytest.fixture
def user(db):
    return get_user_model().objects.create_user("curator1", password="a-long-password-1")


class TestLoginRequired:
    @pytest.mark.parametrize("name, args", [
        ("home", []), ("sketches:render_detail", [1]), ("sketches:render_png", [1]),
    ])
    def test_anonymous_visitors_are_sent_to_the_login_page(self, client, name, args):
        response = client.get(reverse(name, args=args))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))

    def test_login_page_is_open_and_carries_csrf(self, client):
        response = client.get(reverse("login"))
        assert response.status_code == 200
        assert b"csrfmiddlewaretoken" in response.content


class TestHome:
    def test_counts_renders_by_state(self, client, user):
        sketch = services.sketch_create(code="function setup(){}")
        Render.objects.create(sketch=sketch, status="ok")
        Render.objects.create(sketch=sketch, status="pending")
        client.force_login(user)
        response = client.get(reverse("home"))
        assert response.status_code == 200
        assert response.context["progress"].counts == {
            "pending": 1, "ok": 1, "rejected": 0, "unavailable": 0}
        assert b"1 of 2 rendered" in response.content
        assert b'hx-trigger="every 3s"' in response.content

    def test_shows_grades_by_value_and_what_is_left_to_grade(self, client, user):
        from rating.services import grade_record

        sketch = services.sketch_create(code="function setup(){}")
        graded, _ungraded = (Render.objects.create(sketch=sketch, status="ok", png=f"r/{i}.png")
                             for i in range(2))
        Render.objects.create(sketch=sketch, status="rejected")
        grade_record(render=graded, curator=user, value="love")
        client.force_login(user)
        grading = client.get(reverse("home")).context["grading"]
        assert (grading.graded_renders, grading.gradable_renders, grading.ungraded) == (1, 2, 1)
        assert grading.by_value == {"love": 1, "okay": 0, "nope": 0}
        assert grading.curators == 1

    def rendered(self, *ages_s: float) -> None:
        from datetime import timedelta

        from django.utils import timezone

        sketch = services.sketch_create(code="function setup(){}")
        for age in ages_s:
            Render.objects.create(sketch=sketch, status="ok",
                                  rendered=timezone.now() - timedelta(seconds=age))

    def test_estimates_time_left_from_the_recent_pace(self, client, user):
        # 10 renders after a first one, over four minutes; one an hour ago is too old to count.
        self.rendered(3600, *(240 - 24 * i for i in range(11)))
        for _ in range(40):
            Render.objects.create(sketch=services.sketch_create(code="function setup(){}"))
        client.force_login(user)
        response = client.get(reverse("home"))
        progress = response.context["progress"]
        assert progress.per_minute == pytest.approx(2.5, rel=0.01)
        assert progress.minutes_left == 16
        assert b"about 16 min left" in response.content

    def test_the_pace_counts_from_the_first_render_not_the_windows_start(self, client, user):
        # Two minutes into a corpus at 30 a minute: the five-minute window is not full yet.
        self.rendered(*(120 - 2 * i for i in range(61)))
        client.force_login(user)
        assert client.get(reverse("home")).context["progress"].per_minute == pytest.approx(
            30, rel=0.01)

    def test_htmx_request_gets_only_the_counts_fragment(self, client, user):
        client.force_login(user)
        response = client.get(reverse("home"), headers={"HX-Request": "true"})
        assert response.status_code == 200
        assert response.content.strip().startswith(b'<section id="render-progress"')
        assert b"<html" not in response.content


class TestEnsureAdmin:
    def test_creates_the_account_once_with_the_given_password(self, monkeypatch, capsys):
        monkeypatch.setenv("PAINTRL_ADMIN_PASSWORD", "given-password-123")
        call_command("ensure_admin")
        call_command("ensure_admin")
        out = capsys.readouterr().out
        assert "created admin account 'admin'" in out and "already exists" in out
        admin = get_user_model().objects.get(username="admin")
        assert admin.is_staff and admin.check_password("given-password-123")


class TestHomeRewardModel:
    """Staff are told to activate a reward model, and how far to trust it."""

    @pytest.fixture
    def staff(self, staff_client):
        return staff_client

    def reward_model(self, version, *, active=False, renders=160):
        from pool.models import RewardModel

        test = {"pairs": 40 * renders, "renders": renders,
                "pairwise_accuracy_interval": [0.77, 0.87]}
        return RewardModel.objects.create(version=version, status="done", active=active,
                                          metrics={"test": test})

    def test_none_trained_none_active_then_one_to_activate(self, staff):
        assert b"No reward model is trained yet" in staff.get(reverse("home")).content
        self.reward_model(1)
        self.reward_model(2)
        page = staff.get(reverse("home")).content.decode()
        assert "No reward model is active" in page and ">v2</a> is trained; activate it" in page

    def test_the_active_one_is_named_with_its_warning_when_it_knows_too_little(self, staff):
        self.reward_model(1, active=True)
        page = staff.get(reverse("home")).content.decode()
        assert ">v1</a>." in page and "too little to trust" not in page
        self.reward_model(2, renders=12)
        from pool.models import RewardModel
        RewardModel.objects.update(active=False)
        RewardModel.objects.filter(version=2).update(active=True)
        page = staff.get(reverse("home")).content.decode()
        assert ">v2</a> <strong" in page and "trained on too little to trust: too little" in page

    def test_curators_are_not_shown_the_reward_model(self, client, user):
        client.force_login(user)
        assert b"reward model is" not in client.get(reverse("home")).content


class TestHomeLoop:
    """Staff see the loop in order, each step marked done or next: the first
    step whose result does not exist yet is the one to take."""

    @pytest.fixture
    def staff(self, staff_client, settings, tmp_path):
        settings.PAINTRL_POLICY_DIR = str(tmp_path / "policy")
        return staff_client

    def next_step(self, staff) -> str:
        response = staff.get(reverse("home"))
        page = response.content.decode()
        assert page.count('class="step-mark step-mark-next"') == (
            0 if response.context["loop"].next is None else 1)
        return response.context["loop"].next

    @pytest.mark.training
    def test_each_step_done_moves_the_mark_to_the_next(self, staff, settings):
        from pool.models import RewardModel
        from tests.policy_data import test_policy_build
        from tests.pool_data import grades_give, snapshot_build
        from tests.rating_data import renders_create
        from training.models import TrainingRun
        from training.runs.selectors import run_defaults

        render = renders_create(1)[0]
        assert self.next_step(staff) == "grade"
        grades_give(render, "okay")
        assert self.next_step(staff) == "grade"  # the pool is made of loved renders
        grades_give(render, "okay", "love")
        assert self.next_step(staff) == "pool"
        snapshot_build("first", [("love", "flowers")])
        assert self.next_step(staff) == "reward_model"
        RewardModel.objects.create(version=1, status="done")
        page = staff.get(reverse("home")).content.decode()
        assert "activate it before a run" in page and self.next_step(staff) == "reward_model"
        RewardModel.objects.update(active=True)
        assert self.next_step(staff) == "policy"
        assert "Not built: <code>python manage.py bootstrap_policy --queue</code>" in (
            staff.get(reverse("home")).content.decode())
        test_policy_build(settings.PAINTRL_POLICY_DIR)
        assert self.next_step(staff) == "run"
        TrainingRun.objects.create(name="first", status="running", **{
            f"{field}_id": pk for field, pk in run_defaults().items()})
        assert self.next_step(staff) == "run"  # done means finished
        TrainingRun.objects.update(status="done")
        assert self.next_step(staff) is None
        assert "Every step has been done once" in staff.get(reverse("home")).content.decode()

    def test_curators_see_no_loop_marks(self, client, user):
        client.force_login(user)
        response = client.get(reverse("home"))
        assert "loop" not in response.context and b"step-mark" not in response.content


class TestRenderDetail:
    def test_shows_the_taste_score_and_the_model_that_gave_it(self, client, user):
        sketch = services.sketch_create(code="function setup(){}")
        scored = Render.objects.create(sketch=sketch, status="ok", taste_score=1.234,
                                       taste_model="reward-model v3")
        unscored = Render.objects.create(sketch=sketch, status="ok")
        client.force_login(user)
        page = client.get(reverse("sketches:render_detail", args=[scored.pk])).content
        assert b"Taste score" in page and b"1.23" in page and b"reward-model v3" in page
        assert b"Taste score" not in client.get(
            reverse("sketches:render_detail", args=[unscored.pk])).content


class TestErrorPages:
    """Refusals and missing pages keep the site's navigation and say why."""

    def test_a_curator_on_a_staff_page_gets_the_navigation_and_the_reason(self, client):
        from tests.rating_data import curator_create

        client.force_login(curator_create("carol"))
        response = client.get(reverse("training:runs"))
        page = response.content.decode()
        assert response.status_code == 403
        assert "<nav>" in page and f'href="{reverse("rating:grade")}"' in page
        assert "Only staff can see training runs." in page and "logged in as <strong>carol" in page
        refused = client.post(reverse("pool:freeze"), {"name": "mine"})
        assert refused.status_code == 403
        assert "Only staff can freeze a pool snapshot." in refused.content.decode()

    def test_a_user_outside_the_curators_group_is_told_whom_to_ask(self, client, user):
        client.force_login(user)
        response = client.get(reverse("rating:grade"))
        assert response.status_code == 403
        assert "ask staff to add you to the" in response.content.decode()

    def test_a_missing_page_says_so_with_the_navigation(self, client, user):
        client.force_login(user)
        response = client.get("/no-such-page/")
        page = response.content.decode()
        assert response.status_code == 404
        assert "<nav>" in page and "Nothing is at <code>/no-such-page/</code>" in page

    def test_a_bad_request_gets_the_sites_page(self, client):
        response = client.get(reverse("login"), HTTP_HOST="not-allowed.example")
        assert response.status_code == 400
        assert b"Bad request" in response.content and b'class="topbar"' in response.content


class TestHomeByRole:
    """Curators are shown what they can do; staff the setup steps as well."""

    @pytest.fixture
    def renders(self, media):
        from tests.reward_data import toy_render

        rng = random.Random(1)
        return [toy_render(grade="love", rng=rng, index=i) for i in range(3)]

    def test_a_curator_sees_the_grading_link_and_what_waits_for_them(self, client, renders):
        from rating.services import grade_record
        from tests.rating_data import curator_create

        carol = curator_create("carol")
        grade_record(render=renders[0], curator=carol, value="love")
        client.force_login(carol)
        page = client.get(reverse("home")).content.decode()
        assert f'<a href="{reverse("rating:grade")}">Open the grading page</a>' in page
        assert "2 renders wait for your grade." in page
        assert "manage.py" not in page and "freeze a snapshot" not in page
        grade_record(render=renders[1], curator=carol, value="okay")
        assert "1 render waits for your grade." in client.get(reverse("home")).content.decode()

    def test_a_curator_on_an_empty_site_gets_no_commands(self, client):
        from tests.rating_data import curator_create

        client.force_login(curator_create("carol"))
        page = client.get(reverse("home")).content.decode()
        assert "Nothing rendered yet" in page and "manage.py" not in page
        assert "0 renders wait for your grade." in page

    def test_staff_still_get_the_setup_steps(self, staff_client, client, renders):

        page = client.get(reverse("home")).content.decode()
        assert "3 renders wait for your grade (3 with no grade from anyone)." in page
        assert "freeze a snapshot; a run uses a frozen snapshot" in page
        assert "manage.py seed_corpus" in page
        assert reverse("sketches:import_upload") in page

    def test_a_user_who_is_not_a_curator_is_told_so(self, client, user):
        client.force_login(user)
        page = client.get(reverse("home")).content.decode()
        assert "not a curator's yet" in page and "Open the grading page" not in page


class TestCuratorGroup:
    """A fresh install has the curator group the 403 page names, and the
    navigation offers only what the user may open."""

    def test_the_group_exists_after_migrate(self, settings):
        from django.contrib.auth.models import Group

        assert Group.objects.filter(name=settings.PAINTRL_CURATOR_GROUP).exists()

    def test_a_renamed_group_is_made_at_the_next_migrate(self, settings):
        from django.contrib.auth.models import Group

        settings.PAINTRL_CURATOR_GROUP = "painters"
        call_command("migrate", verbosity=0)
        assert Group.objects.filter(name="painters").exists()

    def test_the_navigation_offers_only_the_pages_a_user_may_open(self, client, user):
        from tests.rating_data import curator_create

        client.force_login(user)
        nav = client.get(reverse("home")).content.decode().split("<nav>")[1].split("</nav>")[0]
        for name in ("rating:grade", "rating:compare", "pool:curate", "training:runs"):
            assert f'href="{reverse(name)}"' not in nav
        client.force_login(curator_create("carol"))
        nav = client.get(reverse("home")).content.decode().split("<nav>")[1].split("</nav>")[0]
        for name in ("rating:grade", "rating:compare", "pool:curate"):
            assert f'href="{reverse(name)}"' in nav
        for name in ("training:runs", "jobs", "training:lab", "admin:index"):
            assert f'href="{reverse(name)}"' not in nav


@pytest.mark.urls("tests.error_urls")
class TestErrorPagesWithDebugOn:
    """The demo runs with DEBUG on; its 404 and 500 are still the site's own
    pages (paintrl_site.middleware.SiteErrorPagesMiddleware), not Django's debug
    pages, unless PAINTRL_DEBUG_PAGES asks for those."""

    @pytest.fixture(autouse=True)
    def debug(self, settings):
        settings.DEBUG = True
        settings.PAINTRL_DEBUG_PAGES = False

    def test_an_address_no_pattern_matches(self, client, user):
        client.force_login(user)
        response = client.get("/no-such-page/")
        page = response.content.decode()
        assert response.status_code == 404
        assert "Nothing is at <code>/no-such-page/</code>" in page and "URLconf" not in page

    def test_a_view_that_raises_http404(self, client):
        from tests.rating_data import curator_create

        client.force_login(curator_create("carol"))
        response = client.get(reverse("sketches:render_detail", args=[999999]))
        assert response.status_code == 404 and b"Nothing is at" in response.content

    def test_a_missing_slash_still_redirects(self, client, user):
        client.force_login(user)
        response = client.get("/jobs")
        assert response.status_code == 301 and response["Location"] == "/jobs/"

    def test_a_server_error_is_the_sites_page_and_logged_with_its_traceback(
            self, client, user, caplog):
        client.force_login(user)
        with caplog.at_level(logging.ERROR, logger="django.request"):
            response = client.get("/boom/")
        assert response.status_code == 500
        assert b"Something went wrong" in response.content and b"Traceback" not in response.content
        errors = [r for r in caplog.records if r.name == "django.request"]
        assert len(errors) == 1 and errors[0].exc_info[0] is RuntimeError

    def test_debug_pages_come_back_when_asked(self, client, user, settings):
        settings.PAINTRL_DEBUG_PAGES = True
        client.force_login(user)
        assert b"URLconf" in client.get("/no-such-page/").content


class TestRefusalsInTheLog:
    def test_a_403_is_logged_once_in_one_line_with_its_reason(self, client, user, caplog):
        import logging as stdlib_logging

        # Only the root's handler prints: Django's own "django" console handler printed
        # each record a second time.
        assert stdlib_logging.getLogger("django").handlers == []
        client.force_login(user)
        with caplog.at_level(logging.WARNING, logger="django.request"):
            assert client.get(reverse("rating:grade")).status_code == 403
        refusals = [r for r in caplog.records if r.name == "django.request"]
        assert len(refusals) == 1 and refusals[0].exc_info is None
        assert refusals[0].getMessage().startswith("Forbidden (Permission denied): /rate/: "
                                                   "Only curators can open this page")
