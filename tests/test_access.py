"""Every route in the URL conf, the admin's included, swept for each kind of
visitor. The routes are read from the URL resolver, so a new URL is swept
without editing this file: anonymous visitors are sent to the login page,
curators are refused unless the route is in CURATOR_ALLOWED, staff are let
in, and no state-changing method gets past CSRF without a token. A route whose
path takes a `pk` needs the model it looks up in PK_MODELS (the sweep fails
and says so); admin routes find their model themselves.

Per-app tests (test_rating_views, test_pool_views, test_training_pages,
test_import, test_editor, test_site) check what each page does for whom; this
file checks that no route was left out, and the paths users can steer.

The HTTP API's routes (/api/v1/, token authentication, no session and so no
CSRF) are swept by tests/test_api_access.py, from the API's own schema; it
also checks that every route under /api/v1/ is in that schema, so none
escapes both sweeps. The tokens page (/api/tokens/) is a page and swept here."""
from __future__ import annotations

import gzip
import io
import re
import zipfile
from dataclasses import dataclass
from datetime import timedelta
from urllib.parse import quote

import pytest
import redis
from django.apps import apps
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.contenttypes.models import ContentType
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.http import (
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseForbidden,
    HttpResponseNotAllowed,
    HttpResponseRedirect,
)
from django.test import Client, RequestFactory
from django.urls import resolve, reverse
from django.utils import timezone

from api.tokens import token_create
from paintrl_site.celery import app as celery_app
from pool.models import PoolMember, PoolPin, PoolRule, PoolSnapshot, RewardModel
from rating.models import Claim, Comparison, Grade, GradeChange, GradingSettings, Skip
from rating.services import grade_record
from sketches.importing.sources import member_name
from sketches.models import ImportJob, Render, Sketch
from tests.lab_data import lab_world
from tests.pool_data import pattern_png
from tests.rating_data import PASSWORD, curator_create
from tests.routes_data import Route, changed_models, fingerprint, is_api, routes
from tests.workers import TEST_REDIS_URL
from training.models import (
    Calibration,
    ExternalRun,
    Judge,
    PolicyBuild,
    PromptOptimisation,
    PromptSet,
    Replay,
    Rubric,
    SystemPrompt,
    TrainingRun,
)

pytestmark = pytest.mark.django_db

# Open to anyone, and why.
PUBLIC = {
    "login": "the login form itself",
    "admin:login": "the admin's login form (Django marks it login_not_required)",
}
# What a curator (a member of the curator group, not staff) may use. Every
# other route refuses them: a new route is staff-only until it is listed here.
CURATOR_ALLOWED = {
    "home", "logout", *PUBLIC,
    # renders and the editor (sketches/views.py, sketches/editor_views.py)
    "sketches:render_detail", "sketches:render_png", "sketches:render_calls", "sketches:edit",
    # grading (rating/views.py); agreement and exports are staff-only
    "rating:grade", "rating:act", "rating:next", "rating:progress", "rating:render_code",
    "rating:skips_clear",
    # comparing pairs (rating/compare_views.py)
    "rating:compare", "rating:compare_act", "rating:compare_next",
    # looking at the pool and its snapshots (pool/views.py); changing it is staff-only
    "pool:curate", "pool:snapshot", "pool:snapshot_export", "pool:member_png",
    # a snapshot's calibrations, on its page and refreshed alone (training/calibration/views.py)
    "training:snapshot_calibrations",
    # one's own API tokens (api/views.py): any logged-in user may have them
    "api_tokens", "api_token_revoke",
}
# The model each non-admin `pk` route looks up.
PK_MODELS = {
    "sketches:render_detail": Render, "sketches:render_png": Render,
    "sketches:render_calls": Render, "sketches:edit": Sketch,
    "sketches:import_job": ImportJob, "rating:render_code": Render,
    "pool:snapshot": PoolSnapshot, "pool:snapshot_export": PoolSnapshot,
    "pool:member_png": PoolMember, "training:snapshot_derive": PoolSnapshot,
    "training:snapshot_calibrations": PoolSnapshot, "training:calibration_cancel": Calibration,
    "training:replay": Replay, "training:replay_cancel": Replay,
    "training:judge_agreement": Judge,
    "training:run": TrainingRun, "training:run_cancel": TrainingRun,
    "training:run_resume": TrainingRun,
}
ADMIN_CATCH_ALL = "admin/(?P<url>.*)$"
# Routes that answer staff with an error whatever they ask, and why.
STAFF_ERRORS = {
    "admin:view_on_site": (404, "no model defines get_absolute_url: no site page to show"),
    ADMIN_CATCH_ALL: (404, "it only matches paths no other admin route does"),
    "admin:autocomplete": (403, "no admin uses autocomplete_fields, so Django refuses "
                                "every query"),
}
UNSAFE_METHODS = ("post", "put", "patch", "delete")
CSRF_REFUSED = b"CSRF verification failed"
# What a view says of an empty form it was posted (HTML or JSON): it ran.
FORM_ERROR = b"This field is required"
LOGIN = reverse("login")
ADMIN_LOGIN = reverse("admin:login")


# --- the routes ------------------------------------------------------------------

ROUTES = [route for route in routes() if not is_api(route)]

_ROUTE_PARAM = re.compile(r"<(?:[^>:]+:)?(?P<name>\w+)>")
_REGEX_PARAM = re.compile(r"\(\?P<(?P<name>\w+)>(?:[^()]|\([^()]*\))*\)")


def url_of(route: Route, values: dict) -> str:
    """The route's URL with its parameters filled in from `values`."""
    parts = []
    for piece in route.pieces:
        text = str(piece)
        if piece.__class__.__name__ == "RegexPattern":
            text = _REGEX_PARAM.sub(lambda m: str(values[m["name"]]), text)
            text = text.removeprefix("^").removesuffix("$")
        else:
            text = _ROUTE_PARAM.sub(lambda m: quote(str(values[m["name"]])), text)
        parts.append(text)
    url = "/" + "".join(parts)
    # The URL must lead back to this very route, or the sweep would test another one.
    # (Django drops the "^" of an inner regex when it joins the levels.)
    expected = route.pattern[:1] + route.pattern[1:].replace("^", "")
    assert resolve(url).route == expected, (url, resolve(url).route, expected)
    return url


def admin_model(route: Route):
    """The model of an admin route under admin/<app>/<model>/, if any."""
    match = re.match(r"admin/(\w+)/(\w+)/", route.pattern)
    if not match:
        return None
    try:
        model = apps.get_model(match[1], match[2])
    except LookupError:
        return None
    return model if model in admin.site._registry else None


# --- the world the routes look at --------------------------------------------------

@dataclass
class World:
    curator: object
    other: object  # a second curator
    visitor: object  # logged in, in no group, not staff
    staff: object  # the superuser `manage.py ensure_admin` makes

    def row(self, model):
        row = model.objects.order_by("pk").first()
        assert row is not None, f"the sweep's world has no {model.__name__}: add one in world()"
        return row

    def values(self, route: Route) -> dict:
        model = admin_model(route)
        values = {}
        for param in route.params:
            if param in ("object_id", "pk", "id") and model is not None:
                values[param] = self.row(model).pk
            elif param == "pk":
                assert route.name in PK_MODELS, (
                    f"{route.label} takes a pk: name the model it looks up in PK_MODELS")
                values[param] = self.row(PK_MODELS[route.name]).pk
            elif param == "name":  # an external run's, by which its page is found
                values[param] = self.row(ExternalRun).name
            elif param == "content_type_id":
                values[param] = ContentType.objects.get_for_model(Sketch).pk
            elif param == "object_id":  # admin:view_on_site
                values[param] = self.row(Sketch).pk
            elif param == "app_label":
                values[param] = "sketches"
            elif param == "url":
                values[param] = "no-such-page/"
            else:
                raise AssertionError(f"{route.label} takes {param!r}: say how to fill it "
                                     "in World.values")
        return values

    def url(self, route: Route) -> str:
        return url_of(route, self.values(route))


@pytest.fixture
def world(media) -> World:
    """One row of every model a route looks up: renders with PNGs, their
    sketches, a pool snapshot with a member, presets, a draft run, a
    finished replay, a draft prompt optimisation, an import job, a reward
    model, grades and claims, a draft external run."""
    lab = lab_world(count=6, train=False)
    for each in lab.renders:  # painted from recorded calls, as the renderer's renders are
        each.calls.save("render.calls.json.gz", ContentFile(gzip.compress(b'{"frames": []}')))
    render = lab.renders[0]
    curator = curator_create("cora")
    other = curator_create("otto")
    visitor = get_user_model().objects.create_user("vic", password=PASSWORD)
    staff = get_user_model().objects.create_superuser("admin", password=PASSWORD)
    grade_record(render=render, curator=other, value="love")
    Claim.objects.create(render=lab.renders[1], curator=other,
                         expires=timezone.now() + timedelta(minutes=5))
    Skip.objects.create(render=lab.renders[2], curator=other)
    Comparison.objects.create(curator=other, left=lab.renders[0], right=lab.renders[1],
                              choice=Comparison.Choice.LEFT)
    GradingSettings.objects.create(pk=GradingSettings.SINGLETON_PK)  # empty: changes nothing
    PoolRule.objects.create(note="the sweep's rule")
    PoolPin.objects.create(render=lab.renders[3], action="out", reason="sweep")
    local = Judge.objects.get(name="local")
    TrainingRun.objects.create(name="draft", prompt_set=PromptSet.objects.order_by("pk").first(),
                               system_prompt=SystemPrompt.objects.order_by("pk").first(),
                               rubric=Rubric.objects.order_by("pk").first(), judge=local,
                               scorer=local)
    PromptOptimisation.objects.create(
        name="draft", prompt_set=PromptSet.objects.order_by("pk").first(),
        seed_prompt=SystemPrompt.objects.order_by("pk").first(),
        rubric=Rubric.objects.order_by("pk").first(), judge=local, scorer=local,
        reflection=local)
    Replay.objects.create(rubric=Rubric.objects.order_by("pk").first(), judge=local,
                          scorer=local, status=Replay.Status.DONE)
    ExternalRun.objects.create(name="sweep", rubric=Rubric.objects.order_by("pk").first(),
                               judge=local, scorer=local)
    job = ImportJob(original_filename="batch.zip", uploaded_by=staff)
    job.archive.save("batch.zip", ContentFile(b"PK\x05\x06" + b"\0" * 18), save=True)
    RewardModel.objects.create(version=1, status=RewardModel.Status.DONE)
    Calibration.objects.create(snapshot=lab.snapshot, status=Calibration.Status.DONE)
    PolicyBuild.objects.create(out="/srv/sweep-policy", status=PolicyBuild.Status.DONE)
    token_create(user=other, name="the sweep's token")
    return World(curator, other, visitor, staff)


def csrf_client(user=None) -> tuple[Client, str]:
    """A client that enforces CSRF as browsers meet it, and a valid token."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    client.get(LOGIN)
    return client, client.cookies["csrftoken"].value


def sends_to(response, url: str) -> bool:
    return response.status_code == 302 and response["Location"].startswith(url)


def to_login(response, route: Route | None = None) -> bool:
    """Sent to log in. The admin site's own views name the admin's login form
    to LoginRequiredMiddleware (their `login_url`); its model pages use the site's."""
    if route is not None and route.pattern.startswith("admin/") and \
            sends_to(response, f"{ADMIN_LOGIN}?next="):
        return True
    return sends_to(response, f"{LOGIN}?next=")


def body(response) -> bytes:
    if getattr(response, "streaming", False):
        return b"".join(response.streaming_content)
    return response.content


def refused(response) -> bool:
    """403, or the admin sending a non-staff user to its own login (or, from its
    logout, to its index, which sends them to the login)."""
    return response.status_code == 403 or sends_to(response, f"{ADMIN_LOGIN}?next=") or (
        response.status_code == 302 and response["Location"] == reverse("admin:index"))


def let_in(response) -> bool:
    """Served: a page, a redirect onwards (not to a login), or the view's own 400
    naming what the empty form lacks. A 405 ran no view, and a 400 without a form
    error (Django's bad-request page) shows none ran either: neither is served."""
    if to_login(response) or sends_to(response, f"{ADMIN_LOGIN}?next="):
        return False
    if response.status_code == 400:
        return FORM_ERROR in body(response)
    return response.status_code in (200, 302)


@pytest.fixture
def broker():
    """Routes that queue work (judge agreement) send it to this test's Redis
    database, never a running demo's."""
    celery_app.conf.update(broker_url=TEST_REDIS_URL, result_backend=TEST_REDIS_URL)
    redis.Redis.from_url(TEST_REDIS_URL).flushdb()
    yield
    redis.Redis.from_url(TEST_REDIS_URL).flushdb()


# --- the sweep ---------------------------------------------------------------------

class TestTheSweepCoversEveryRoute:
    def test_routes_are_read_from_the_url_conf_and_each_gets_a_url(self, world):
        labels = {route.label for route in ROUTES}
        # The project's own apps and the admin's, including its custom buttons.
        for name in ("home", "rating:act", "pool:freeze", "training:run_resume",
                     "sketches:import_upload", "admin:index", "admin:rating_grade_change",
                     "admin:training_trainingrun_launch", "admin:pool_rewardmodel_train"):
            assert name in labels
        assert len(ROUTES) >= 150
        for route in ROUTES:
            world.url(route)  # every parameter fillable, every URL back to its route

    def test_only_a_page_a_redirect_onwards_or_a_forms_400_counts_as_served(self):
        assert let_in(HttpResponse("page")) and let_in(HttpResponseRedirect("/pool/"))
        assert let_in(HttpResponseBadRequest(b'{"fields": {"op": ["This field is required."]}}'))
        assert not let_in(HttpResponseNotAllowed(["POST"]))
        assert not let_in(HttpResponseBadRequest(b"<h1>Bad Request (400)</h1>"))
        assert not let_in(HttpResponseForbidden())
        assert not let_in(HttpResponseRedirect(f"{LOGIN}?next=/pool/"))
        assert refused(HttpResponseForbidden()) and not refused(HttpResponseNotAllowed(["GET"]))

    def test_no_route_serves_media_root(self, settings):
        """MEDIA_ROOT holds uploads, checkpoints and weights: no route serves it raw."""
        assert not [r.label for r in ROUTES if r.module == "django.views.static"]
        assert not any(r.pattern.lstrip("^").startswith(settings.MEDIA_URL) for r in ROUTES)


class TestAnonymous:
    def test_every_route_but_the_login_forms_sends_to_the_login_page(self, world):
        client, token = csrf_client()
        before, wrong = fingerprint(), []
        for route in ROUTES:
            url = world.url(route)
            get = client.get(url)
            # With a valid token, so it is the login check that stops the request.
            post = client.post(url, headers={"X-CSRFToken": token})
            if route.label in PUBLIC:
                if get.status_code != 200:
                    wrong.append(f"{route.label}: public, but GET gave {get.status_code}")
                continue
            for method, response in (("GET", get), ("POST", post)):
                if not to_login(response, route):
                    wrong.append(f"{route.label}: {method} gave {response.status_code} "
                                 f"{response.get('Location', '')}")
            if to_login(get, route) and not get["Location"].endswith(f"?next={quote(url)}"):
                wrong.append(f"{route.label}: next= does not lead back: {get['Location']}")
        assert not wrong, "\n".join(wrong)
        assert changed_models(before, fingerprint()) == []


def _sweep_role(user, *, allowed: set[str], world: World, expect_refused=None):
    """GET every route as `user`, and POST (with a valid token) where GET is
    405 or the route is refused. Returns (allowed, refused, wrong, posts)."""
    client, token = csrf_client(user)
    expect_refused = expect_refused or (lambda route: route.label not in allowed)
    seen_allowed, seen_refused, wrong, posts = [], [], [], 0
    refused_routes = [r for r in ROUTES if expect_refused(r)]
    allowed_routes = [r for r in ROUTES if not expect_refused(r)]
    # Refused routes first, all of them, so the fingerprint shows they changed nothing.
    before = fingerprint()
    for route in refused_routes:
        url = world.url(route)
        client.force_login(user)
        # A 405 (a GET-only page posted to, a POST-only action fetched) runs no
        # view either; the other method must meet the permission check.
        answers = [getattr(client, method)(url, headers={"X-CSRFToken": token})
                   for method in ("get", "post")]
        posts += 1
        if not (all(refused(a) or a.status_code == 405 for a in answers)
                and any(refused(a) for a in answers)):
            wrong.append(f"{route.label}: should be refused, got " + ", ".join(
                f"{m} {a.status_code} {a.get('Location', '')}".strip()
                for m, a in zip(("GET", "POST"), answers, strict=True)))
        seen_refused.append(route.label)
    changed = changed_models(before, fingerprint())
    if changed:
        wrong.append(f"refused requests changed {changed}")
    for route in allowed_routes:
        url = world.url(route)
        client.force_login(user)  # logout/ logs out
        response = client.get(url)
        if response.status_code == 405:  # POST only: POST it, empty (a form error at most)
            client.force_login(user)
            response = client.post(url, headers={"X-CSRFToken": token})
            posts += 1
        if route.label in STAFF_ERRORS and response.status_code == STAFF_ERRORS[route.label][0]:
            seen_allowed.append(route.label)
            continue
        if not let_in(response) or CSRF_REFUSED in body(response):
            wrong.append(f"{route.label}: should be let in, got {response.status_code} "
                         f"{response.get('Location', '')}")
        seen_allowed.append(route.label)
    return seen_allowed, seen_refused, wrong, posts


class TestCurator:
    def test_refused_on_the_admin_training_lab_imports_and_pool_changes(self, world, broker):
        allowed, refused_, wrong, _ = _sweep_role(world.curator, allowed=CURATOR_ALLOWED,
                                                  world=world)
        assert not wrong, "\n".join(wrong)
        assert set(allowed) == CURATOR_ALLOWED
        for name in ("admin:index", "admin:rating_grade_change", "admin:training_trainingrun_add",
                     "admin:training_trainingrun_launch", "training:run_cancel",
                     "training:run_resume", "training:lab", "training:replay_cancel",
                     "sketches:import_upload", "pool:freeze", "rating:export_dataset",
                     "rating:agreement", "admin:pool_rewardmodel_train"):
            assert name in refused_

    def test_a_logged_in_user_outside_the_group_gets_even_less(self, world, broker):
        """Accounts are made by staff; one outside the curator group sees renders and
        the home page (a login is all they check), and nothing else."""
        login_only = {"home", "logout", *PUBLIC, "sketches:render_detail",
                      "sketches:render_png", "sketches:render_calls", "api_tokens",
                      "api_token_revoke"}
        allowed, _, wrong, _ = _sweep_role(world.visitor, allowed=login_only, world=world)
        assert not wrong, "\n".join(wrong)
        assert set(allowed) == login_only


class TestStaff:
    def test_staff_are_let_in_everywhere_the_admin_allows_anyone(self, world, broker):
        """The superuser (`manage.py ensure_admin`). Admin pages the admin refuses to
        everyone (adding a grade, deleting a pool rule...) stay refused for staff too."""
        request = RequestFactory().get("/")
        request.user = world.staff

        def closed_to_everyone(route: Route) -> bool:
            model = admin_model(route)
            if model is None:
                return False
            model_admin = admin.site._registry[model]
            if route.name.endswith("_add"):
                return not model_admin.has_add_permission(request)
            if route.name.endswith("_delete"):
                return not model_admin.has_delete_permission(request, world.row(model))
            return False

        allowed, closed, wrong, posts = _sweep_role(world.staff, allowed=set(), world=world,
                                                    expect_refused=closed_to_everyone)
        assert not wrong, "\n".join(wrong)
        assert len(allowed) + len(closed) == len(ROUTES)
        assert "admin:rating_grade_add" in closed and "admin:pool_poolrule_delete" in closed
        assert {"training:lab", "admin:training_trainingrun_launch", "training:run_resume",
                "sketches:import_upload", "rating:export_dataset"} <= set(allowed)


class TestCsrf:
    def test_no_unsafe_method_gets_past_without_a_token(self, world):
        """As staff (who may do anything): every route, POST, PUT, PATCH and
        DELETE without the token are refused by the CSRF check, and change nothing."""
        client, _token = csrf_client(world.staff)
        before, wrong, checked = fingerprint(), [], 0
        for route in ROUTES:
            url = world.url(route)
            for method in UNSAFE_METHODS:
                response = getattr(client, method)(url)
                checked += 1
                if response.status_code != 403 or CSRF_REFUSED not in response.content:
                    wrong.append(f"{route.label}: {method.upper()} without a token gave "
                                 f"{response.status_code}")
        assert not wrong, "\n".join(wrong)
        assert checked == len(ROUTES) * len(UNSAFE_METHODS)
        assert changed_models(before, fingerprint()) == []

    def test_a_token_from_another_session_is_refused(self, world):
        _client, foreign = csrf_client(world.curator)
        client, _token = csrf_client(world.staff)
        response = client.post(reverse("pool:freeze"), {"name": "stolen"},
                               headers={"X-CSRFToken": foreign})
        assert response.status_code == 403 and CSRF_REFUSED in response.content
        assert not PoolSnapshot.objects.filter(name="stolen").exists()


# --- grading history: a curator's own only -------------------------------------------

class TestGradeHistory:
    def test_a_curator_cannot_change_or_withdraw_another_curators_grade(self, world):
        render = Render.objects.get(grades__curator=world.other)
        grade = Grade.objects.get(render=render, curator=world.other)
        grade_record(render=render, curator=world.other, value="nope")  # history: love -> nope
        history = list(GradeChange.objects.filter(grade=grade).values())
        client, token = csrf_client(world.curator)
        for fields in ({"op": "undo", "render": render.pk, "restore": "love"},
                       {"op": "undo", "render": render.pk},
                       {"op": "grade", "render": render.pk, "value": "okay"}):
            response = client.post(reverse("rating:act"), fields, headers={"X-CSRFToken": token})
            assert response.status_code == 200, response.content
        grade.refresh_from_db()
        assert (grade.curator, grade.value) == (world.other, "nope")
        assert list(GradeChange.objects.filter(grade=grade).values()) == history
        # What the curator did landed on their own grade.
        assert Grade.objects.get(render=render, curator=world.curator).value == "okay"
        # And their grading page lists only their own history.
        page = client.get(reverse("rating:grade"))
        assert {g.curator for g in page.context["history"]} == {world.curator}


# --- paths users steer ------------------------------------------------------------------

class TestPathsFromUsers:
    def test_a_hostile_snapshot_name_and_subject_stay_inside_the_export(self, world):
        """The export's file name and every member path come from names staff typed."""
        png = default_storage.save("pool/member.png", ContentFile(pattern_png(1)))
        snapshot = PoolSnapshot.objects.create(name="../../etc/passwd", rule={}, counts={})
        PoolMember.objects.create(snapshot=snapshot, tier="love", subject="../../../x/..",
                                  prompt="p", code="// c", png=png)
        client = Client()
        client.force_login(world.curator)
        response = client.get(reverse("pool:snapshot_export", args=[snapshot.pk]))
        assert response.status_code == 200
        disposition = response["Content-Disposition"]
        assert "/" not in disposition and ".." not in disposition, disposition
        archive = zipfile.ZipFile(io.BytesIO(body(response)))
        names = archive.namelist()
        assert names and all(member_name(n) == n for n in names), names
        assert {n.split("/")[0] for n in names} == {"etcpasswd"}

    @pytest.mark.parametrize("stored", ["../../../../etc/passwd", "/etc/passwd"])
    def test_a_stored_image_path_leaving_media_root_is_never_served(self, world, stored):
        """Render and member PNG names are written by the app, never typed; if one
        ever pointed outside MEDIA_ROOT, storage refuses it (400), it is not read."""
        render = world.row(Render)
        Render.objects.filter(pk=render.pk).update(png=stored, calls=stored)
        snapshot = PoolSnapshot.objects.create(name="hostile", rule={}, counts={})
        member = PoolMember.objects.create(snapshot=snapshot, tier="love", subject="x",
                                           prompt="p", code="// c", png=stored)
        client = Client()
        client.force_login(world.curator)
        for url in (reverse("sketches:render_png", args=[render.pk]),
                    reverse("sketches:render_calls", args=[render.pk]),
                    reverse("pool:member_png", args=[member.pk])):
            response = client.get(url)
            assert response.status_code in (400, 404), (url, response.status_code)
            assert b"root:" not in body(response)

    def test_an_uploaded_file_name_never_names_the_stored_file(self, world):
        """The upload's own name is kept for the report only; the archive is
        stored under a random name in imports/ (test_import checks the form)."""
        client, token = csrf_client(world.staff)
        data = b"PK\x05\x06" + b"\0" * 18
        for hostile in ("../../../paintrl_site/settings.py.zip", "/etc/cron.d/x.zip",
                        "..\\..\\x.zip"):
            upload = SimpleUploadedFile(hostile, data, content_type="application/zip")
            response = client.post(reverse("sketches:import_upload"), {"archive": upload},
                                   headers={"X-CSRFToken": token})
            assert response.status_code == 302, response.content
            job = ImportJob.objects.order_by("-pk").first()
            assert re.fullmatch(r"imports/[0-9a-f]{32}\.zip", job.archive.name), job.archive.name
            assert "/" not in job.original_filename and "\\" not in job.original_filename
