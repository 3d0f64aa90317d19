"""Bad input to the API is a clear 4xx in the one refusal shape and changes
nothing (tests/test_api_fuzz.py searches for more): each case an outside
tester found answering 500, or writing a row, or taking what the pages
refuse. The bounds are the pages' own (sketches.input_rules), so the pages
refuse the same values."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.test import Client
from django.urls import reverse

from rating.models import Grade
from sketches.input_rules import SEED_MAX, SHOWN_MS_MAX
from sketches.models import ImportJob
from tests import test_api
from tests.lab_data import presets_ensure
from tests.rating_data import PASSWORD, curator_create, renders_create
from tests.routes_data import changed_models, fingerprint
from tests.sketch_files import read_sketch
from tests.test_api import API, Caller
from tests.test_api_access import is_json_refusal

pytestmark = pytest.mark.django_db
SURROGATE, NUL = "\ud800", "a\x00b"
LISTS = ["/sketches", "/renders", "/grades", "/comparisons", "/pool/snapshots", "/pool/pins",
         "/reward-models", "/runs", "/jobs"]

# test_api's callers (a curator, a superuser) and its test broker.
curator, staff, broker = test_api.curator, test_api.staff, test_api.broker


def refused(caller, method, path, body=None, *, status=400, raw: str | None = None,
            mentions: str = ""):
    """Send it; assert a `status` refusal in the one shape that names `mentions`
    among its problems, and that no row changed."""
    before = fingerprint()
    if raw is not None:
        response = caller.client.generic(method, API + path, data=raw,
                                         content_type="application/json",
                                         headers={"Authorization": f"Bearer {caller.raw}"})
    else:
        response = caller(method, path, body)
    assert is_json_refusal(response, status), (response.status_code, response.content[:300])
    problems = " ".join(response.json()["problems"])
    assert mentions in problems, response.json()
    # A token records when it was last used; that is no row the request wrote.
    assert [m for m in changed_models(before, fingerprint()) if m != "api.ApiToken"] == []
    return response.json()


class TestOutOfRange:
    @pytest.mark.parametrize("path", LISTS)
    def test_an_offset_past_any_table_is_refused_on_every_list(self, staff, path):
        refused(staff, "GET", f"{path}?offset={2**63}", mentions="offset")

    @pytest.mark.parametrize("seed", [2**31, 2**63, -1, True, "7"])
    def test_a_seed_the_editor_refuses(self, curator, broker, seed):
        refused(curator, "POST", "/sketches", {"code": read_sketch("good/lines.js"),
                                               "seed": seed}, mentions="seed")

    @pytest.mark.parametrize("shown_ms", [-1, SHOWN_MS_MAX + 1, 2**31, 2**63, 1.5])
    def test_a_shown_time_the_grading_page_refuses(self, curator, media, shown_ms):
        a, b = renders_create(2, same_prompt=True)
        refused(curator, "POST", "/grades", {"render": a.pk, "value": "love",
                                             "shown_ms": shown_ms}, mentions="shown_ms")
        refused(curator, "POST", "/comparisons", {"left": a.pk, "right": b.pk, "choice": "left",
                                                  "shown_ms": shown_ms}, mentions="shown_ms")

    def test_true_is_not_render_1(self, curator, media):
        renders_create(1)  # render 1 exists: JSON's true is still not its id
        refused(curator, "POST", "/grades", {"render": True, "value": "love"}, mentions="render")

    @pytest.mark.parametrize("number", [2**63, 2**70, -(2**70), 0])
    def test_ids_past_any_key_find_nothing(self, staff, number):
        """Found by the fuzzer on SQLite: GET /renders?sketch=-2406586467701430419456."""
        for path in (f"/renders/{number}", f"/runs/{number}", f"/pool/snapshots/{number}"):
            assert is_json_refusal(staff("GET", path), 404), path
        for path in (f"/grades?render={number}", f"/renders?sketch={number}",
                     "/runs/1/rollouts?step=-1"):
            assert is_json_refusal(staff("GET", path), 400), path


class TestText:
    @pytest.mark.parametrize("bad", [SURROGATE, NUL], ids=["lone surrogate", "NUL"])
    def test_text_no_database_can_store_is_refused_in_every_text_field(self, staff, curator,
                                                                        broker, media, bad):
        [render] = renders_create(1)
        code = read_sketch("good/lines.js")
        refused(curator, "POST", "/sketches", {"code": code, "prompt": bad}, mentions="prompt")
        refused(curator, "POST", "/sketches", {"code": code + "//" + bad}, mentions="code")
        refused(staff, "POST", "/pool/snapshots", {"name": bad}, mentions="name")
        refused(staff, "POST", "/pool/snapshots", {"name": "ok", "note": bad}, mentions="note")
        refused(staff, "POST", "/pool/pins", {"render": render.pk, "action": "in",
                                              "reason": bad}, mentions="reason")
        refused(staff, "POST", "/pool/rule", {"love_share": 0.5, "okay_tier": False,
                                              "min_grades": 1, "min_per_subject": 0,
                                              "note": bad}, mentions="note")
        refused(staff, "POST", "/runs", {"settings": {"name": bad}}, mentions="settings")
        refused(staff, "POST", "/reward-models", {"config": {bad: 1}}, mentions="config")

    def test_a_nul_in_a_query_is_refused(self, curator):
        refused(curator, "GET", "/grades?curator=a%00b", mentions="curator")


class TestBodies:
    @pytest.mark.parametrize("raw", ["[]", "null", "42", '"x"'])
    def test_a_body_that_is_not_an_object_writes_nothing(self, staff, broker, raw):
        presets_ensure()
        run = staff("POST", "/runs", {"settings": {}}).json()["id"]
        for path in ("/reward-models", "/runs", f"/runs/{run}/clone", "/pool/snapshots",
                     "/grades", "/sketches"):
            refused(staff, "POST", path, raw=raw, mentions="JSON object")

    def test_a_field_the_operation_does_not_take_is_refused(self, staff, broker):
        refused(staff, "POST", "/reward-models", {"config": {}, "activte": True},
                mentions="activte")

    def test_neither_code_nor_reply_says_so(self, curator):
        body = refused(curator, "POST", "/sketches", {})
        assert "not both" not in " ".join(body["problems"]), body

    def test_a_list_of_template_arguments_is_refused_as_the_admin_refuses_it(self, staff):
        presets_ensure()
        refused(staff, "POST", "/runs", {"settings": {"chat_template_kwargs": [1, 2]}},
                mentions="chat_template_kwargs")

    def test_a_corrupt_zip_is_refused_at_the_upload_not_in_its_job(self, staff, media):
        from django.core.files.uploadedfile import SimpleUploadedFile

        before = ImportJob.objects.count()
        archive = SimpleUploadedFile("batch.zip", b"PK\x03\x04" + b"\x00" * 200,
                                     content_type="application/zip")
        response = staff.client.post(f"{API}/imports", {"archive": archive},
                                     headers={"Authorization": f"Bearer {staff.raw}"})
        assert is_json_refusal(response, 400), response.content[:300]
        assert "zip" in " ".join(response.json()["problems"])
        assert ImportJob.objects.count() == before

    def test_a_multipart_body_without_a_boundary_is_400_and_imports_nothing(self, staff, media):
        # The fuzzer's find: Content-Type multipart/form-data with no boundary was a 500.
        before = ImportJob.objects.count()
        response = staff.client.post(f"{API}/imports", b"archive",
                                     content_type="multipart/form-data",
                                     headers={"Authorization": f"Bearer {staff.raw}"})
        assert is_json_refusal(response, 400), response.content[:300]
        assert ImportJob.objects.count() == before

    def test_a_body_over_the_servers_limit_is_413_in_the_shape(self, staff, settings):
        settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
        refused(staff, "POST", "/pool/snapshots", {"name": "x" * 2000}, status=413)


class TestAnswersNoEndpointGives:
    def test_an_unknown_path_a_wrong_method_and_a_server_error_are_in_the_shape(
            self, staff, monkeypatch):
        for method, path in (("GET", "/nope"), ("POST", "/sketches/1/nope"),
                             ("GET", "/renders/abc/x")):
            response = staff(method, path)
            assert is_json_refusal(response, 404), (path, response.content[:200])
        response = staff("DELETE", "/sketches")
        assert is_json_refusal(response, 405) and "GET" in response["Allow"]
        assert "POST" in response.json()["detail"]

        # A failure no handler expects: the one shape, and nothing of the traceback.
        from api.routes import jobs

        def broken():
            raise RuntimeError("secret internals")

        monkeypatch.setattr(jobs, "jobs_live", broken)
        response = Client(raise_request_exception=False).get(
            f"{API}/jobs", headers={"Authorization": f"Bearer {staff.raw}"})
        assert is_json_refusal(response, 500) and b"secret" not in response.content


class TestThePagesTakeTheSameBounds:
    def test_the_grading_page_and_the_api_refuse_the_same_shown_time(self, curator, media):
        [render] = renders_create(1)
        page = Client()
        page.login(username="cora", password=PASSWORD)
        for shown_ms, ok in ((SHOWN_MS_MAX, True), (SHOWN_MS_MAX + 1, False)):
            Grade.objects.all().delete()
            by_page = page.post(reverse("rating:act"), {"op": "grade", "render": render.pk,
                                                        "value": "love", "shown_ms": shown_ms})
            by_api = curator("POST", "/grades", {"render": render.pk, "value": "okay",
                                                 "shown_ms": shown_ms})
            assert (by_page.status_code == 200, by_api.status_code == 201) == (ok, ok), (
                shown_ms, by_page.content[:300], by_api.content[:300])

    def test_the_editor_and_the_api_refuse_the_same_seed(self):
        from sketches.editor_views import SketchEditForm

        field = SketchEditForm.base_fields["seed"]
        assert (field.min_value, field.max_value) == (0, SEED_MAX)


class TestPermissionsAsInTheAdmin:
    def test_staff_without_the_reward_model_permissions_neither_train_cancel_nor_activate(
            self, staff, broker):
        trained = staff("POST", "/reward-models", {"config": {}})
        assert trained.status_code in (201, 400), trained.content  # 400: too few grades
        plain = Caller(curator_create("sam", staff=True))
        # Refused before the row is looked up: the permission is the first question.
        for path in ("/reward-models", "/reward-models/1/activate", "/reward-models/1/cancel"):
            body = refused(plain, "POST", path, {"config": {}} if path == "/reward-models"
                           else None, status=403)
            assert "permission" in body["detail"], body
        assert plain("GET", "/reward-models").status_code == 200  # staff read, as on the pages
        plain.user.user_permissions.add(Permission.objects.get(codename="add_rewardmodel"))
        plain.user = type(plain.user).objects.get(pk=plain.user.pk)  # permissions are cached
        assert plain("POST", "/reward-models", {"config": {}}).status_code != 403
