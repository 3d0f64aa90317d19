"""What the HTTP API does for whom (tests/test_api_access.py sweeps who may
call what): tokens are hashed, shown once and revocable by their owner or
staff from the page, the admin and the command; each write goes through the
pages' service, so a refusal carries the page's own words; lists are pages."""
from __future__ import annotations

import gzip
import json

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from api.models import ApiToken
from api.tokens import token_create, token_digest
from pool.models import PoolSnapshot
from pool.services import PoolError, snapshot_freeze
from rating.models import Grade, GradeChange
from sketches.editing import SketchEditInvalid, written_code_check
from sketches.importing.upload import ImportUploadForm
from sketches.models import ImportJob, Render, Sketch
from tests.lab_data import presets_ensure
from tests.rating_data import PASSWORD, curator_create, renders_create
from tests.sketch_files import read_sketch
from tests.workers import broker_use
from training.models import Rubric, TrainingRun
from training.runs.selectors import run_defaults

pytestmark = pytest.mark.django_db
API = "/api/v1"


class Caller:
    """A Django test client speaking to the API with one token."""

    def __init__(self, user):
        self.user = user
        self.raw = token_create(user=user, name="test")[1]
        self.client = Client()

    def __call__(self, method: str, path: str, body=None, **extra):
        headers = {"Authorization": f"Bearer {self.raw}"}
        if body is None:
            return self.client.generic(method, API + path, headers=headers, **extra)
        return self.client.generic(method, API + path, data=json.dumps(body),
                                   content_type="application/json", headers=headers)


@pytest.fixture
def curator():
    return Caller(curator_create("cora"))


@pytest.fixture
def staff():
    return Caller(curator_create("boss", superuser=True))


@pytest.fixture
def broker(settings):
    """Writes that queue work (renders, imports, reward models) send it to the test's Redis."""
    broker_use()


# --- tokens ---------------------------------------------------------------------------

class TestTokens:
    def test_only_a_hash_is_kept_and_the_token_works_until_revoked(self):
        user = get_user_model().objects.create_user("vic", password=PASSWORD)
        token, raw = token_create(user=user, name="notebook")
        assert raw.startswith("prl_") and raw not in json.dumps(
            list(ApiToken.objects.values()), default=str)
        assert token.digest == token_digest(raw) and raw.startswith(token.prefix)
        headers = {"Authorization": f"Bearer {raw}"}
        assert Client().get(f"{API}/sketches", headers=headers).status_code == 200
        token.refresh_from_db()
        assert token.last_used is not None
        page = Client()
        page.force_login(user)
        response = page.post(reverse("api_token_revoke"), {"token": token.pk})
        assert response.status_code == 302
        assert Client().get(f"{API}/sketches", headers=headers).status_code == 401

    def test_the_page_shows_a_new_token_once_and_lists_only_ones_own(self):
        user = get_user_model().objects.create_user("vic", password=PASSWORD)
        other = token_create(user=curator_create("otto"), name="otto's")[0]
        page = Client()
        page.force_login(user)
        response = page.post(reverse("api_tokens"), {"name": "sweep notebook"})
        assert response.status_code == 200
        raw = response.context["made"]
        assert raw.startswith("prl_") and raw.encode() in response.content
        again = page.get(reverse("api_tokens"))
        assert raw.encode() not in again.content and b"sweep notebook" in again.content
        assert b"otto&#x27;s" not in again.content
        # Another user's token is no one else's to revoke here.
        assert page.post(reverse("api_token_revoke"), {"token": other.pk}).status_code == 404
        other.refresh_from_db()
        assert other.revoked is None
        assert page.post(reverse("api_tokens"), {"name": "  "}).status_code == 400

    def test_the_command_makes_lists_and_revokes(self, capsys):
        curator_create("cora")
        call_command("api_token", "create", "cora", "sweep")
        raw = capsys.readouterr().out.strip()
        token = ApiToken.objects.get(digest=token_digest(raw))
        call_command("api_token", "list", "cora")
        assert token.prefix in capsys.readouterr().out
        call_command("api_token", "revoke", token.prefix)
        token.refresh_from_db()
        assert token.revoked is not None

    def test_staff_make_one_for_a_user_in_the_admin_shown_once(self):
        boss = curator_create("boss", superuser=True)
        cora = curator_create("cora")
        admin = Client()
        admin.force_login(boss)
        response = admin.post(reverse("admin:api_apitoken_add"),
                              {"user": cora.pk, "name": "for cora"}, follow=True)
        assert response.status_code == 200
        token = ApiToken.objects.get(user=cora)
        [message] = [str(m) for m in response.context["messages"] if "shown this once" in str(m)]
        raw = message.rsplit(" ", 1)[-1]
        assert token.digest == token_digest(raw) and token.created_by == boss


# --- sketches and renders -----------------------------------------------------------------

class TestSketches:
    def test_from_code_or_a_chat_reply_a_sketch_and_its_queued_render(
            self, curator, broker, django_capture_on_commit_callbacks):
        code = read_sketch("good/lines.js")
        with django_capture_on_commit_callbacks() as queued:
            made = curator("POST", "/sketches", {"code": code, "prompt": "lines", "seed": 3})
        assert made.status_code == 201, made.content
        render = Render.objects.get(pk=made.json()["id"])
        assert (render.status, render.seed, render.sketch.code) == ("pending", 3, code)
        assert render.sketch.meta == {"source": "api"} and len(queued) == 1
        reply = f"Here is your sketch:\n```javascript\n{code}```\nEnjoy."
        made = curator("POST", "/sketches", {"reply": reply})
        assert made.status_code == 201
        assert Render.objects.get(pk=made.json()["id"]).sketch.code == code.strip("\n")

    def test_code_the_editor_refuses_is_refused_in_its_words_and_saves_nothing(self, curator):
        bad = "function setup() { createCanvas(100, 100"
        with pytest.raises(SketchEditInvalid) as editor:
            written_code_check(bad)
        for body in ({"code": bad}, {"reply": "no code here"}, {},
                     {"code": "function setup() {}", "reply": "x"}):
            response = curator("POST", "/sketches", body)
            assert response.status_code == 400, (body, response.content)
            assert response.json()["problems"]
        assert curator("POST", "/sketches", {"code": bad}).json()["problems"] == [
            str(editor.value)]
        assert not Sketch.objects.exists()

    def test_a_render_its_report_and_png(self, curator, media):
        [render] = renders_create(1)
        body = curator("GET", f"/renders/{render.pk}").json()
        assert body["status"] == "ok" and body["png_url"].endswith(f"/renders/{render.pk}/png")
        png = curator("GET", f"/renders/{render.pk}/png")
        assert png["Content-Type"] == "image/png" and b"".join(png.streaming_content)[:4] == \
            b"\x89PNG"
        assert curator("GET", f"/renders/{render.pk}/report").json()["final"] is True

    def test_a_render_serves_the_calls_its_picture_was_painted_from(self, curator, media):
        painted, plain = renders_create(2)
        calls = {"frames": [[["canvas", 48, 48, 1], ["set", "HB", {"$color": [0, 0, 0, 255]}, 1],
                             ["line", 0, 0, 40, 40]]], "overflow": "", "calls": 3}
        stored = gzip.compress(json.dumps(calls).encode())
        painted.calls.save("r.calls.json.gz", ContentFile(stored))
        body = curator("GET", f"/renders/{painted.pk}").json()
        assert body["calls_url"].endswith(f"/renders/{painted.pk}/calls")
        served = curator("GET", f"/renders/{painted.pk}/calls")
        assert served["Content-Type"] == "application/json" and served.json() == calls
        # Painted in its own page (or before the calls were kept): nothing to serve.
        assert curator("GET", f"/renders/{plain.pk}").json()["calls_url"] is None
        missing = curator("GET", f"/renders/{plain.pk}/calls")
        assert missing.status_code == 404 and "recorded calls" in missing.json()["detail"]

    def test_an_import_is_the_import_pages_job_and_a_bad_file_is_refused(
            self, staff, broker, media):
        line = json.dumps({"prompt": "lines", "code": read_sketch("good/lines.js")})
        upload = SimpleUploadedFile("batch.jsonl", (line + "\n").encode())
        response = staff.client.post(f"{API}/imports", {"archive": upload},
                                     headers={"Authorization": f"Bearer {staff.raw}"})
        assert response.status_code == 201, response.content
        job = ImportJob.objects.get(pk=response.json()["id"])
        assert job.uploaded_by == staff.user and job.original_filename == "batch.jsonl"
        upload = SimpleUploadedFile("notes.txt", b"hello")
        response = staff.client.post(f"{API}/imports", {"archive": upload},
                                     headers={"Authorization": f"Bearer {staff.raw}"})
        assert response.status_code == 400 and response.json()["problems"]
        assert ImportJob.objects.count() == 1

    def test_an_upload_over_the_import_pages_limit_is_refused_before_it_is_stored(
            self, staff, settings, media):
        settings.PAINTRL_IMPORT_MAX_UPLOAD_BYTES = 1000
        for size in (1_000, 200_000):  # under the framing slack (read, then stopped), over it
            upload = SimpleUploadedFile("big.jsonl", b"x" * (size + 1))
            response = staff.client.post(f"{API}/imports", {"archive": upload},
                                         headers={"Authorization": f"Bearer {staff.raw}"})
            assert response.status_code == 413, (size, response.content)
            body = response.json()
            assert ImportUploadForm.too_large_message() in " ".join([body["detail"],
                                                                     *body["problems"]])
        assert not ImportJob.objects.exists()


# --- grades and comparisons ---------------------------------------------------------------

class TestGrades:
    def test_a_grade_is_the_grading_pages_and_regrading_keeps_the_history(self, curator,
                                                                          media):
        [render] = renders_create(1)
        for value in ("love", "nope"):
            response = curator("POST", "/grades", {"render": render.pk, "value": value})
            assert response.status_code == 201, response.content
        grade = Grade.objects.get(render=render, curator=curator.user)
        assert (grade.value, grade.source) == ("nope", "app")
        assert list(GradeChange.objects.filter(grade=grade).order_by("changed")
                    .values_list("value", flat=True)) == ["love", "nope"]

    def test_a_render_without_an_image_cannot_be_graded(self, curator):
        render = Render.objects.create(sketch=Sketch.objects.create(code="// x"))
        response = curator("POST", "/grades", {"render": render.pk, "value": "love"})
        assert response.status_code == 409 and "pending" in response.json()["detail"]
        assert curator("POST", "/grades", {"render": 10**9, "value": "love"}).status_code == 404
        assert not Grade.objects.exists()

    def test_curators_list_their_own_staff_everyones(self, curator, staff, media):
        renders = renders_create(3)
        other = curator_create("otto")
        from rating.services import grade_record

        for render in renders:
            grade_record(render=render, curator=other, value="okay")
        curator("POST", "/grades", {"render": renders[0].pk, "value": "love"})
        mine = curator("GET", "/grades").json()
        assert mine["count"] == 1 and mine["items"][0]["curator"] == "cora"
        assert staff("GET", "/grades").json()["count"] == 4
        assert staff("GET", "/grades?curator=otto&limit=2").json()["count"] == 3
        page = staff("GET", "/grades?curator=otto&limit=2&offset=2").json()
        assert len(page["items"]) == 1

    def test_a_comparison_of_two_prompts_is_refused_in_the_services_words(self, curator,
                                                                           media):
        a, b = renders_create(2)  # two prompts
        response = curator("POST", "/comparisons", {"left": a.pk, "right": b.pk,
                                                    "choice": "left"})
        assert response.status_code == 400
        assert "answer different prompts" in response.json()["problems"][0]
        c, d = renders_create(2, prompt="a tulip", same_prompt=True, start=5)
        response = curator("POST", "/comparisons", {"left": c.pk, "right": d.pk,
                                                    "choice": "tie"})
        assert response.status_code == 201 and response.json()["choice"] == "tie"


# --- the pool -------------------------------------------------------------------------------

class TestPool:
    def test_freezing_an_empty_pool_says_what_the_page_says(self, staff):
        with pytest.raises(PoolError) as page:
            snapshot_freeze(name="first")
        response = staff("POST", "/pool/snapshots", {"name": "first"})
        assert response.status_code == 400 and response.json()["problems"] == [str(page.value)]

    def test_freeze_then_list_members_and_export(self, staff, curator, media):
        renders = renders_create(2)
        for render in renders:
            curator("POST", "/grades", {"render": render.pk, "value": "love"})
        response = staff("POST", "/pool/snapshots", {"name": "pool one"})
        assert response.status_code == 201 and response.json()["counts"]["total"] == 2
        snapshot = PoolSnapshot.objects.get(name="pool one")
        assert snapshot.created_by == staff.user
        assert staff("POST", "/pool/snapshots", {"name": "pool one"}).status_code == 400
        members = curator("GET", f"/pool/snapshots/{snapshot.pk}/members").json()
        assert {m["render"] for m in members["items"]} == {r.pk for r in renders}
        export = curator("GET", f"/pool/snapshots/{snapshot.pk}/export")
        assert export["Content-Type"] == "application/zip"

    def test_a_pin_needs_a_reason_and_a_rule_is_checked(self, staff, media):
        [render] = renders_create(1)
        response = staff("POST", "/pool/pins", {"render": render.pk, "action": "in",
                                                "reason": " "})
        assert response.status_code == 400 and "reason" in response.json()["detail"]
        response = staff("POST", "/pool/pins", {"render": render.pk, "action": "in",
                                                "reason": "a keeper"})
        assert response.status_code == 201
        assert staff("DELETE", f"/pool/pins/{render.pk}").status_code == 204
        assert staff("DELETE", f"/pool/pins/{render.pk}").status_code == 404
        response = staff("POST", "/pool/rule", {"love_share": 1.0, "okay_tier": True,
                                                "min_grades": 1, "min_per_subject": 5})
        assert response.status_code == 400 and "love_share" in response.json()["detail"]


# --- reward models -------------------------------------------------------------------------

class TestRewardModels:
    def test_a_bad_config_and_activating_an_unfinished_model_are_refused(self, staff, broker):
        response = staff("POST", "/reward-models", {"config": {"model": "nonsense"}})
        assert response.status_code == 400 and "model must be one of" in \
            response.json()["problems"][0]
        response = staff("POST", "/reward-models", {})
        assert response.status_code == 201 and response.json()["status"] == "queued"
        pk = response.json()["id"]
        response = staff("POST", f"/reward-models/{pk}/activate")
        assert response.status_code == 409 and "only a finished model" in \
            response.json()["detail"]
        cancel = staff("POST", f"/reward-models/{pk}/cancel").json()
        assert (cancel["outcome"], cancel["status"]) == ("stopped", "cancelled")


# --- runs ---------------------------------------------------------------------------------

class TestRuns:
    def test_a_run_starts_from_the_presets_with_settings_changed(self, staff):
        presets_ensure()
        response = staff("POST", "/runs", {"settings": {"name": "sweep 1", "max_steps": 3,
                                                        "seed": 7}})
        assert response.status_code == 201, response.content
        run = TrainingRun.objects.get(pk=response.json()["id"])
        defaults = run_defaults()
        assert (run.name, run.max_steps, run.seed, run.status) == ("sweep 1", 3, 7, "draft")
        assert run.rubric_id == defaults["rubric"] and run.judge_id == defaults["judge"]
        assert run.created_by == staff.user and response.json()["actions"] == ["clone", "launch"]

    def test_bad_settings_are_refused_field_by_field_and_save_nothing(self, staff):
        presets_ensure()
        response = staff("POST", "/runs", {"settings": {"max_steps": -1, "rubric": 10**6,
                                                        "colour": "red"}})
        assert response.status_code == 400
        assert response.json()["problems"][0].startswith("colour: not a run setting")
        response = staff("POST", "/runs", {"settings": {"max_steps": -1, "rubric": 10**6}})
        problems = response.json()["problems"]
        assert any(p.startswith("max_steps:") for p in problems), problems
        assert any(p.startswith("rubric:") for p in problems), problems
        assert not TrainingRun.objects.exists()

    def test_a_clone_with_overrides_and_a_launch_refused_in_the_admins_words(self, staff,
                                                                               tmp_path):
        presets_ensure()
        from training.runs.services import RunError, run_launch

        run = staff("POST", "/runs", {"settings": {"base_model": str(tmp_path / "nowhere")}})
        pk = run.json()["id"]
        v1 = Rubric.objects.get(name="v1", preset=True)
        clone = staff("POST", f"/runs/{pk}/clone", {"settings": {"rubric": v1.pk,
                                                                "seed": 11}})
        assert clone.status_code == 201
        copied = TrainingRun.objects.get(pk=clone.json()["id"])
        assert (copied.parent_id, copied.rubric, copied.seed) == (pk, v1, 11)
        assert copied.base_model == str(tmp_path / "nowhere")
        with pytest.raises(RunError) as admin:
            run_launch(run=TrainingRun.objects.get(pk=pk))
        response = staff("POST", f"/runs/{pk}/launch")
        assert response.status_code == 409 and response.json()["problems"] == [str(admin.value)]
        assert TrainingRun.objects.get(pk=pk).status == "draft"
        assert staff("POST", f"/runs/{pk}/cancel").status_code == 409
        assert staff("POST", f"/runs/{pk}/resume").status_code == 409

    def test_staff_without_the_run_permissions_read_but_do_not_change(self, staff):
        presets_ensure()
        pk = staff("POST", "/runs", {"settings": {}}).json()["id"]
        plain = Caller(curator_create("sam", staff=True))
        assert plain("GET", f"/runs/{pk}").status_code == 200
        for path in ("/runs", f"/runs/{pk}/clone", f"/runs/{pk}/launch"):
            response = plain("POST", path, {"settings": {}})
            assert response.status_code == 403 and "permission" in response.json()["detail"]
        plain.user.user_permissions.add(Permission.objects.get(codename="add_trainingrun"))
        plain.user = get_user_model().objects.get(pk=plain.user.pk)  # permissions are cached
        assert plain("POST", "/runs", {"settings": {}}).status_code == 201
