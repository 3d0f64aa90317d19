"""Importing sketches, render PNGs and grades: the `import_renders` command, the
service it shares with the upload page, hostile archives (each refused item
gets its named error and the rest import), and the staff-only upload page
with its Celery job. No browser: imported renders without a PNG stay pending.
Hostile archives are built here, in memory, rather than committed."""
from __future__ import annotations

import io
import json
import re
import stat
import struct
import zipfile
import zlib
from io import StringIO
from pathlib import Path

import pytest
import redis
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from PIL import Image, ImageDraw

from jobs.registry import job_kind
from jobs.tasks import job_task
from rating.models import Grade
from sketches.importing import ErrorCode, import_path
from sketches.importing.images import PNG_SIGNATURE
from sketches.models import ImportJob, Render, Sketch
from tests.workers import TEST_REDIS_URL, run_worker, wait_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]


# --- building inputs -------------------------------------------------------

def sketch_code(n: int) -> str:
    """A small, distinct sketch per n (distinct code, distinct hash)."""
    return (f"function setup() {{\n  createCanvas(60, 40);\n  background(250);\n"
            f"  brush.line({n}, 5, 50, 35);\n  noLoop();\n}}\n")


def png_bytes(size=(60, 40)) -> bytes:
    img = Image.new("RGB", size, (250, 250, 250))
    ImageDraw.Draw(img).line((5, 5, 50, 35), fill=(30, 30, 30), width=3)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A tiny PNG whose header claims width x height pixels: a decompression bomb."""
    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data)))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (PNG_SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 4096))
            + chunk(b"IEND", b""))


def manifest(*entries: dict | str) -> bytes:
    return "\n".join(e if isinstance(e, str) else json.dumps(e) for e in entries).encode() + b"\n"


GOOD_MANIFEST = [
    {"file": "hibiscus.js", "prompt": "a peach-pink hibiscus", "png": "renders/hibiscus.png",
     "grades": {"ana": "love", "ben": "okay"}},
    {"file": "lines.js", "prompt": "three pencil lines", "seed": 7},
    {"file": "sub/dunes.js", "prompt": "dunes at dusk", "grades": {"ana": "nope"}},
]


def good_members() -> dict[str, bytes]:
    return {
        "hibiscus.js": sketch_code(1).encode(),
        "lines.js": sketch_code(2).encode(),
        "sub/dunes.js": sketch_code(3).encode(),
        "unlisted.js": sketch_code(4).encode(),
        "renders/hibiscus.png": png_bytes(),
        "README.txt": b"notes",
        "manifest.jsonl": manifest(*GOOD_MANIFEST),
    }


def write_folder(root: Path, members: dict[str, bytes]) -> Path:
    for name, data in members.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


def zip_bytes(members: dict[str, bytes | zipfile.ZipInfo], *,
              compression=zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return out.getvalue()


def write_zip(path: Path, members: dict[str, bytes], **kwargs) -> Path:
    path.write_bytes(zip_bytes(members, **kwargs))
    return path


def run_command(*args) -> str:
    out = StringIO()
    call_command("import_renders", *map(str, args), stdout=out)
    return out.getvalue()


# --- the command on good inputs ---------------------------------------------

class TestImportFolder:
    def test_manifest_prompts_png_and_two_curators_grades_are_imported(self, tmp_path):
        out = run_command(write_folder(tmp_path / "batch", good_members()))

        assert "4 imported (1 with their PNG, 3 to render), 0 already imported, 0 errors, " \
               "3 grades" in out
        hibiscus = Sketch.objects.get(prompt="a peach-pink hibiscus")
        assert hibiscus.origin == Sketch.Origin.IMPORTED
        assert hibiscus.meta["import"] == {"file": "hibiscus.js", "source": "batch",
                                           "png": "renders/hibiscus.png"}
        render = hibiscus.renders.get()
        assert (render.status, render.renderer_version) == ("ok", "imported")
        assert (render.width, render.height) == (60, 40)
        assert 0 < render.paint_fraction < 0.5
        assert Path(render.png.path).read_bytes() == png_bytes()
        grades = {(g.curator.username, g.value, g.source)
                  for g in Grade.objects.filter(render=render)}
        assert grades == {("ana", "love", "import"), ("ben", "okay", "import")}

    def test_sketches_without_png_get_pending_renders_at_their_seed(self, tmp_path):
        run_command(write_folder(tmp_path / "batch", good_members()))
        lines = Sketch.objects.get(prompt="three pencil lines").renders.get()
        assert (lines.status, lines.seed, lines.png.name) == ("pending", 7, "")
        dunes = Render.objects.get(sketch__meta__import__file="sub/dunes.js")
        assert Grade.objects.get(render=dunes).value == "nope"

    def test_js_files_the_manifest_does_not_name_import_without_prompt(self, tmp_path):
        out = run_command(write_folder(tmp_path / "batch", good_members()))
        unlisted = Sketch.objects.get(meta__import__file="unlisted.js")
        assert unlisted.prompt == "" and unlisted.renders.get().status == "pending"
        assert "ignored (neither a sketch nor a named render): README.txt" in out

    def test_reimport_is_idempotent_and_still_applies_grades(self, tmp_path):
        folder = write_folder(tmp_path / "batch", good_members())
        run_command(folder)
        counts = (Sketch.objects.count(), Render.objects.count(), Grade.objects.count())
        changed = [dict(GOOD_MANIFEST[0], grades={"ana": "okay", "ben": "okay"}),
                   *GOOD_MANIFEST[1:]]
        (folder / "manifest.jsonl").write_bytes(manifest(*changed))

        out = run_command(folder)

        assert "0 imported (0 with their PNG, 0 to render), 4 already imported" in out
        assert (Sketch.objects.count(), Render.objects.count(), Grade.objects.count()) == counts
        assert Grade.objects.get(curator__username="ana", render__sketch__prompt__contains=
                                 "hibiscus").value == "okay"

    def test_one_sketch_named_at_two_seeds_gets_two_renders(self, tmp_path):
        folder = write_folder(tmp_path / "batch", {
            "a.js": sketch_code(1).encode(), "a0.png": png_bytes(),
            "manifest.jsonl": manifest({"file": "a.js", "png": "a0.png", "seed": 0},
                                       {"file": "a.js", "seed": 1, "grades": {"ana": "okay"}})})
        out = run_command(folder)
        assert "2 imported (1 with their PNG, 1 to render), 0 already imported, 0 errors" in out
        sketch = Sketch.objects.get()
        assert sorted(sketch.renders.values_list("seed", "status")) == [(0, "ok"),
                                                                       (1, "pending")]

    def test_progress_and_summary_are_printed(self, tmp_path):
        out = run_command(write_folder(tmp_path / "batch", good_members()))
        assert "4/4 items" in out and out.strip().splitlines()[-1].startswith("batch: 4 imported")

    def test_json_report_lists_every_item(self, tmp_path):
        out = run_command(write_folder(tmp_path / "batch", good_members()), "--json")
        report = json.loads(out)
        assert report["counts"]["imported"] == 4 and report["kind"] == "folder"
        assert {item["name"] for item in report["imported"]} == {
            "hibiscus.js", "lines.js", "sub/dunes.js", "unlisted.js"}


class TestImportZipAndJsonl:
    def test_zip_of_a_folder_imports_like_the_folder(self, tmp_path):
        members = {f"batch/{name}": data for name, data in good_members().items()}
        out = run_command(write_zip(tmp_path / "batch.zip", members))
        assert "4 imported (1 with their PNG, 3 to render)" in out
        sketch = Sketch.objects.get(prompt="a peach-pink hibiscus")
        assert sketch.meta["import"]["source"] == "batch.zip"
        assert Grade.objects.count() == 3

    def test_jsonl_of_prompt_and_code_lines(self, tmp_path):
        path = tmp_path / "policy.jsonl"
        path.write_bytes(manifest(
            {"prompt": "a red circle", "code": sketch_code(10)},
            {"prompt": "two lines", "code": sketch_code(11), "seed": 2,
             "grades": {"ana": "love"}},
            "",
            "{broken",
            {"prompt": "no code here"},
        ))
        report = json.loads(run_command(path, "--json"))
        assert report["counts"] == {"imported": 2, "rendered_from_png": 0,
                                    "queued_for_render": 2, "skipped_already_imported": 0,
                                    "errors": 2, "grades": 1}
        assert [(e["name"], e["code"]) for e in report["errors"]] == [
            ("policy.jsonl line 4", "bad_line"), ("policy.jsonl line 5", "bad_line")]
        two = Sketch.objects.get(prompt="two lines")
        assert two.meta["import"] == {"file": "policy.jsonl", "line": 2, "source": "policy.jsonl"}
        assert two.renders.get().seed == 2


class TestWholeInputErrors:
    @pytest.mark.parametrize("name, content, message", [
        ("missing", None, "does not exist"),
        ("notes.txt", b"hello", "is not a folder, a .zip or a .jsonl file"),
        ("fake.zip", b"PK\x03\x04 not really", "is not a zip archive"),
    ])
    def test_unreadable_input_is_a_command_error(self, tmp_path, name, content, message):
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        with pytest.raises(CommandError, match=message):
            run_command(path)
        assert Sketch.objects.count() == 0

    def test_fail_on_error_exits_nonzero_when_an_item_failed(self, tmp_path):
        folder = write_folder(tmp_path / "batch", {"a.js": sketch_code(1).encode(),
                                                   "b.js": b"   \n"})
        with pytest.raises(CommandError, match="1 of 2 items failed"):
            run_command(folder, "--fail-on-error")
        assert Sketch.objects.count() == 1


# --- hostile and broken items ------------------------------------------------

def symlink_member(name: str, target: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    info.create_system = 3
    return info


def lying_zip(good: dict[str, bytes]) -> bytes:
    """`liar.js` declares 10 bytes in both headers but inflates to 100,000."""
    data = bytearray(zip_bytes({"liar.js": b"/" * 100_000, **good}))
    local = data.find(b"PK\x03\x04")
    central = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, local + 22, 10)
    struct.pack_into("<I", data, central + 24, 10)
    return bytes(data)


GOOD = {"good.js": sketch_code(99).encode()}
JPEG = b"\xff\xd8\xff\xe0" + b"\0" * 64


def with_png(png_name: str, png: bytes) -> dict[str, bytes]:
    return {"art.js": sketch_code(5).encode(), png_name: png,
            "manifest.jsonl": manifest({"file": "art.js", "png": png_name}), **GOOD}


# (case, members or a zip builder, the refused item's name, its error code)
HOSTILE = [
    ("latin-1 text", {"cafe.js": b"// caf\xe9\nfunction setup() {}", **GOOD},
     "cafe.js", ErrorCode.NOT_UTF8),
    ("NUL bytes", {"bin.js": b"function setup() {}\0\0", **GOOD}, "bin.js", ErrorCode.NOT_UTF8),
    ("parent path", {"../evil.js": sketch_code(6).encode(), **GOOD},
     "../evil.js", ErrorCode.UNSAFE_PATH),
    ("absolute path", {"/etc/evil.js": sketch_code(6).encode(), **GOOD},
     "/etc/evil.js", ErrorCode.UNSAFE_PATH),
    ("drive path", {"C:\\evil.js": sketch_code(6).encode(), **GOOD},
     "C:\\evil.js", ErrorCode.UNSAFE_PATH),
    ("symlink", {symlink_member("link.js", "/etc/passwd"): b"/etc/passwd", **GOOD},
     "link.js", ErrorCode.UNSAFE_PATH),
    ("zip bomb by ratio", {"bomb.js": b"\0" * 20_000_000, **GOOD}, "bomb.js",
     ErrorCode.ZIP_BOMB),
    ("header lying about its size", lying_zip(GOOD), "liar.js", ErrorCode.CORRUPT_ENTRY),
    ("not a PNG", with_png("art.png", JPEG), "art.js", ErrorCode.NOT_PNG),
    ("PNG claiming 10^10 pixels", with_png("art.png", png_claiming(100_000, 100_000)),
     "art.js", ErrorCode.IMAGE_TOO_LARGE),
    ("PNG over our pixel limit", with_png("art.png", png_claiming(5000, 5000)),
     "art.js", ErrorCode.IMAGE_TOO_LARGE),
    ("truncated PNG", with_png("art.png", png_bytes()[:-30]), "art.js", ErrorCode.CORRUPT_IMAGE),
    ("same code twice", {"a.js": sketch_code(7).encode(), "b.js": sketch_code(7).encode(),
                         **GOOD}, "b.js", ErrorCode.DUPLICATE_FILE),
    ("manifest line not JSON", {"art.js": sketch_code(5).encode(), **GOOD, "manifest.jsonl":
                                manifest({"file": "art.js"}, "{not json")},
     "manifest.jsonl line 2", ErrorCode.BAD_LINE),
    ("manifest line not an object", {**GOOD, "manifest.jsonl": manifest("[1, 2]")},
     "manifest.jsonl line 1", ErrorCode.BAD_LINE),
    ("manifest seed not an integer", {"art.js": sketch_code(5).encode(), **GOOD,
                                      "manifest.jsonl": manifest({"file": "art.js",
                                                                  "seed": "one"})},
     "art.js", ErrorCode.BAD_LINE),
    ("manifest names a missing file", {**GOOD, "manifest.jsonl": manifest({"file": "gone.js"})},
     "gone.js", ErrorCode.MISSING_FILE),
    ("manifest names a missing PNG", {"art.js": sketch_code(5).encode(), **GOOD,
                                      "manifest.jsonl": manifest({"file": "art.js",
                                                                  "png": "gone.png"})},
     "art.js", ErrorCode.MISSING_FILE),
    ("manifest reaching outside", {**GOOD, "manifest.jsonl": manifest({"file": "../x.js"})},
     "../x.js", ErrorCode.UNSAFE_PATH),
    ("empty code", {"blank.js": b" \n\t\n", **GOOD}, "blank.js", ErrorCode.EMPTY_CODE),
    ("unknown grade", {"art.js": sketch_code(5).encode(), "art.png": png_bytes(), **GOOD,
                       "manifest.jsonl": manifest({"file": "art.js", "png": "art.png",
                                                   "grades": {"ana": "meh"}})},
     "art.js", ErrorCode.BAD_GRADES),
]


class TestHostileItems:
    @pytest.mark.parametrize("case, members, name, code", HOSTILE, ids=[h[0] for h in HOSTILE])
    def test_the_item_gets_its_named_error_and_the_rest_import(self, tmp_path, case, members,
                                                               name, code):
        path = tmp_path / "upload.zip"
        path.write_bytes(members if isinstance(members, bytes) else zip_bytes(members))

        report = import_path(path)

        assert [(e.name, e.code) for e in report.errors] == [(name, code)], report.errors
        assert Sketch.objects.filter(code=sketch_code(99)).exists()
        assert report.counts["imported"] == Sketch.objects.count() >= 1

    def test_a_refused_item_leaves_no_rows_and_no_files(self, tmp_path, media):
        members = dict(HOSTILE[-1][1])  # a PNG render whose grades are refused
        report = import_path(write_zip(tmp_path / "x.zip", members))
        assert report.errors[0].code == ErrorCode.BAD_GRADES
        assert "unknown grade 'meh'" in report.errors[0].message
        assert not Sketch.objects.filter(code=sketch_code(5)).exists()
        assert list(Path(media).rglob("*.png")) == []

    def test_a_broken_manifest_line_keeps_its_file_from_importing_without_prompt(self,
                                                                                tmp_path):
        members = {"art.js": sketch_code(5).encode(), "more.js": sketch_code(6).encode(),
                   **GOOD, "manifest.jsonl": manifest('{"file": "art.js", "prompt": "unclosed',
                                                      {"file": "more.js", "grades": "love"})}
        report = import_path(write_zip(tmp_path / "x.zip", members))
        assert [(e.name, e.code) for e in report.errors] == [("art.js", ErrorCode.BAD_LINE),
                                                             ("more.js", ErrorCode.BAD_LINE)]
        assert report.errors[0].message.startswith("manifest.jsonl line 1: not JSON")
        assert list(Sketch.objects.values_list("code", flat=True)) == [sketch_code(99)]

    def test_a_file_over_the_size_limit(self, tmp_path, settings):
        settings.PAINTRL_IMPORT_MAX_FILE_BYTES = 1_000_000
        big = ("// " + "x" * 1_000_000 + "\nfunction setup() {}").encode()
        # Stored, not deflated, so the ratio check does not catch it first.
        path = write_zip(tmp_path / "x.zip", {"big.js": big, **GOOD},
                         compression=zipfile.ZIP_STORED)
        report = import_path(path)
        assert [(e.name, e.code) for e in report.errors] == [("big.js",
                                                              ErrorCode.FILE_TOO_LARGE)]
        assert "over the limit of 1000000" in report.errors[0].message

    def test_the_archive_total_is_bounded(self, tmp_path, settings):
        settings.PAINTRL_IMPORT_MAX_TOTAL_BYTES = 250
        members = {f"s{i}.js": sketch_code(i).encode() for i in range(3)}  # ~100 bytes each
        report = import_path(write_zip(tmp_path / "x.zip", members))
        assert report.counts["imported"] == 2
        assert [(e.name, e.code) for e in report.errors] == [("s2.js", ErrorCode.ZIP_BOMB)]
        assert "past 250 bytes" in report.errors[0].message

    def test_a_symlink_out_of_a_folder_is_refused(self, tmp_path):
        folder = write_folder(tmp_path / "batch", GOOD)
        secret = tmp_path / "secret.js"
        secret.write_text(sketch_code(42))
        (folder / "escape.js").symlink_to(secret)
        report = import_path(folder)
        assert [(e.name, e.code) for e in report.errors] == [("escape.js",
                                                              ErrorCode.UNSAFE_PATH)]
        assert not Sketch.objects.filter(code=sketch_code(42)).exists()

    def test_a_jsonl_line_that_is_not_utf8_or_too_long(self, tmp_path, settings):
        settings.PAINTRL_IMPORT_MAX_FILE_BYTES = 1000
        path = tmp_path / "lines.jsonl"
        path.write_bytes(b'{"code": "// caf\xe9"}\n'
                         + json.dumps({"code": "x" * 20_000}).encode() + b"\n"
                         + json.dumps({"code": "y" * 1500}).encode() + b"\n"
                         + json.dumps({"code": sketch_code(1)}).encode() + b"\n")
        report = import_path(path)
        assert [(e.name, e.code) for e in report.errors] == [
            ("lines.jsonl line 1", ErrorCode.NOT_UTF8),
            ("lines.jsonl line 2", ErrorCode.FILE_TOO_LARGE),
            ("lines.jsonl line 3", ErrorCode.FILE_TOO_LARGE)]
        assert report.counts["imported"] == 1

    def test_progress_is_reported_for_every_item(self, tmp_path):
        calls = []
        import_path(write_zip(tmp_path / "x.zip", {**GOOD, "blank.js": b""}),
                    on_progress=lambda done, total, result: calls.append(
                        (done, total, result.outcome)))
        assert calls == [(1, 2, "error"), (2, 2, "imported")]


# --- the upload page -----------------------------------------------------------

@pytest.fixture
def curator(db):
    return get_user_model().objects.create_user("cur", password="a-long-password-1")


def upload_file(name="batch.zip", data=None) -> SimpleUploadedFile:
    if data is None:
        data = zip_bytes({**good_members(), "broken.js": b"\xff\xfe"})
    return SimpleUploadedFile(name, data, content_type="application/zip")


class TestUploadAccess:
    @pytest.mark.parametrize("name, args", [("sketches:import_upload", []),
                                            ("sketches:import_job", [1])])
    def test_anonymous_visitors_are_sent_to_the_login_page(self, client, name, args):
        response = client.get(reverse(name, args=args))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))

    def test_curators_who_are_not_staff_get_403(self, client, curator):
        client.force_login(curator)
        assert client.get(reverse("sketches:import_upload")).status_code == 403
        response = client.post(reverse("sketches:import_upload"), {"archive": upload_file()})
        assert response.status_code == 403
        assert ImportJob.objects.count() == 0

    def test_upload_needs_a_csrf_token(self, staff):
        from django.test import Client

        client = Client(enforce_csrf_checks=True)
        client.force_login(staff)
        response = client.post(reverse("sketches:import_upload"), {"archive": upload_file()})
        assert response.status_code == 403
        assert ImportJob.objects.count() == 0


class TestUploadPage:
    def test_staff_upload_creates_a_queued_job_and_the_task_completes_it(
            self, client, staff, django_capture_on_commit_callbacks):
        client.force_login(staff)
        with django_capture_on_commit_callbacks() as queued:
            response = client.post(reverse("sketches:import_upload"),
                                   {"archive": upload_file("../../my batch.zip")})
        job = ImportJob.objects.get()
        assert response.status_code == 302
        assert response["Location"] == reverse("sketches:import_job", args=[job.pk])
        assert (job.status, job.uploaded_by, job.original_filename) == ("queued", staff,
                                                                        "my batch.zip")
        assert re.fullmatch(r"imports/[0-9a-f]{32}\.zip", job.archive.name)
        assert len(queued) == 1  # job_task's message, once the upload committed

        assert job_task("import", job.pk) == "done"  # what the worker runs

        job.refresh_from_db()
        assert (job.done, job.total, job.finished is not None) == (5, 5, True)
        assert job.report["counts"]["imported"] == 4
        assert job.report["errors"] == [{"name": "broken.js", "outcome": "error",
                                         "code": "not_utf8",
                                         "message": "not UTF-8 text (byte 0)"}]
        assert Sketch.objects.get(prompt="a peach-pink hibiscus").meta["import"]["source"] \
            == "my batch.zip"

    def test_job_page_polls_while_running_and_shows_the_report_when_done(self, client, staff):
        client.force_login(staff)
        client.post(reverse("sketches:import_upload"), {"archive": upload_file()})
        job = ImportJob.objects.get()
        url = reverse("sketches:import_job", args=[job.pk])

        polling = client.get(url, headers={"HX-Request": "true"})
        assert polling.content.strip().startswith(b'<section id="import-job"')
        assert b'hx-trigger="every 1s"' in polling.content and b"<html" not in polling.content

        job_task("import", job.pk)
        done = client.get(url)
        assert b"hx-trigger" not in done.content
        assert b"broken.js" in done.content and b"not_utf8" in done.content
        assert b"<strong>4</strong> imported" in done.content

    def test_upload_page_lists_recent_jobs(self, client, staff):
        client.force_login(staff)
        client.post(reverse("sketches:import_upload"), {"archive": upload_file("one.zip")})
        response = client.get(reverse("sketches:import_upload"))
        assert response.status_code == 200
        assert b'enctype="multipart/form-data"' in response.content
        assert b"one.zip" in response.content and b"queued" in response.content

    def test_a_jsonl_upload_is_stored_as_jsonl(self, client, staff):
        client.force_login(staff)
        data = manifest({"prompt": "p", "code": sketch_code(1)})
        client.post(reverse("sketches:import_upload"),
                    {"archive": upload_file("lines.jsonl", data)})
        job = ImportJob.objects.get()
        assert job.archive.name.endswith(".jsonl")
        assert job_task("import", job.pk) == "done"
        assert Sketch.objects.get().prompt == "p"

    def test_an_unreadable_archive_is_refused_by_the_form(self, client, staff):
        client.force_login(staff)
        response = client.post(reverse("sketches:import_upload"),
                               {"archive": upload_file("bad.zip", b"PK\x03\x04 but nothing else")})
        assert response.status_code == 400
        assert b"bad.zip starts as a zip archive does but cannot be read as one." in \
            response.content
        assert ImportJob.objects.count() == 0

    def test_other_files_are_refused_by_the_form(self, client, staff):
        client.force_login(staff)
        response = client.post(reverse("sketches:import_upload"),
                               {"archive": upload_file("notes.txt", b"hello")})
        assert response.status_code == 400
        assert b"Upload a .zip archive or a .jsonl file." in response.content
        assert ImportJob.objects.count() == 0

    @pytest.mark.parametrize("size", [5_000, 200_000], ids=["streamed", "content-length"])
    def test_uploads_over_the_limit_are_refused_with_413(self, client, staff, settings,
                                                          media, size):
        """Small overruns are stopped by the upload handler as the body streams
        in; large ones by the declared Content-Length before reading it."""
        settings.PAINTRL_IMPORT_MAX_UPLOAD_BYTES = 1_000
        client.force_login(staff)
        response = client.post(reverse("sketches:import_upload"),
                               {"archive": upload_file("big.zip", b"PK\x03\x04" + b"x" * size)})
        assert response.status_code == 413
        assert b"larger than the limit of 1000" in response.content
        assert ImportJob.objects.count() == 0
        assert not Path(media, "imports").exists()


class TestImportTaskRouting:
    def test_an_import_goes_to_the_default_queue_not_the_render_workers(self):
        assert job_kind("import").queue == "default"


# --- the real worker ---------------------------------------------------------

@pytest.fixture
def default_worker(media, transactional_db, settings):
    """A real Celery worker process on the `default` queue, sharing this test's
    database and MEDIA_ROOT."""
    yield from run_worker("default", media, settings)


@pytest.mark.worker
class TestImportWorker:
    def test_an_upload_is_imported_by_a_worker_on_the_default_queue(self, client, staff,
                                                                    default_worker):
        client.force_login(staff)
        client.post(reverse("sketches:import_upload"), {"archive": upload_file()})
        job = ImportJob.objects.get()
        wait_for(lambda: ImportJob.objects.get(pk=job.pk).is_finished, worker=default_worker)
        job.refresh_from_db()
        assert job.status == "done", job.error
        assert job.report["counts"]["imported"] == 4
        assert Grade.objects.count() == 3
        # The worker queued the pending renders on the render queue, after commit.
        assert redis.Redis.from_url(TEST_REDIS_URL).llen("render") == 3


class TestTheTwoCodeRules:
    """Code a person writes must parse before it is saved; imported code need
    only be text: an import records what was written (each rule has its own
    name: written_code_check, imported_code_check)."""

    BROKEN = "function setup() { createCanvas(100, 100"

    def test_a_syntax_error_is_imported_but_not_saved_from_an_edit(self):
        from sketches.editing import SketchEditInvalid, written_code_check
        from sketches.importing.inputs import imported_code_check

        assert imported_code_check(self.BROKEN) == self.BROKEN
        with pytest.raises(SketchEditInvalid):
            written_code_check(self.BROKEN)

    def test_empty_code_is_refused_by_both(self):
        from sketches.editing import SketchEditInvalid, written_code_check
        from sketches.importing.inputs import ItemError, imported_code_check

        with pytest.raises(ItemError):
            imported_code_check("  \n")
        with pytest.raises(SketchEditInvalid):
            written_code_check("  \n")
