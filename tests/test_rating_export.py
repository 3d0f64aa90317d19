"""Grade export: JSONL lines (view and command), re-import through
grades_import, and a dataset that Hugging Face `datasets` loads offline."""
from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.urls import reverse
from PIL import Image

from rating import export
from rating.models import Grade
from rating.services import curator_get_or_create, grade_record
from sketches import services as sketch_services
from sketches.importing import import_path
from sketches.models import Render, Sketch


def png_bytes(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), colour).save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def graded(media, db):
    """Three renders: two graded (one with an image by two curators, one
    rejected without an image), one not graded at all."""
    alice, bob = curator_get_or_create(username="alice"), curator_get_or_create(username="bob")
    kite = sketch_services.sketch_create(code="function setup(){ /* kite */ }",
                                         prompt="a red kite — über the hills")
    loved = Render.objects.create(sketch=kite, status="ok", seed=3, width=8, height=6)
    loved.png.save("r.png", ContentFile(png_bytes("red")))
    rejected = Render.objects.create(sketch=kite, status="rejected", seed=4)
    ungraded = Render.objects.create(sketch=kite, status="ok", seed=5)
    ungraded.png.save("r.png", ContentFile(png_bytes("blue")))
    grade_record(render=loved, curator=alice, value="love", shown_ms=1200)
    grade_record(render=loved, curator=bob, value="okay")
    grade_record(render=rejected, curator=bob, value="nope")
    return {"loved": loved, "rejected": rejected, "ungraded": ungraded}


def parse_lines(text: str) -> list[dict]:
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


class TestJsonl:
    def test_one_line_per_graded_render_with_all_its_grades(self, graded):
        out = io.StringIO()
        call_command("export_grades", "--base-url", "https://paintrl.example/", stdout=out,
                     stderr=io.StringIO())
        lines = parse_lines(out.getvalue())
        loved = graded["loved"]
        assert [line["render_id"] for line in lines] == [loved.pk, graded["rejected"].pk]
        first = lines[0]
        assert first["format"] == "paintrl-grades/1"
        assert first["prompt"] == "a red kite — über the hills"
        assert first["code"] == "function setup(){ /* kite */ }"
        assert (first["sketch_id"], first["seed"], first["origin"]) == (loved.sketch_id, 3,
                                                                         "imported")
        assert first["png"] == loved.png.name
        assert first["png_url"] == f"https://paintrl.example/sketches/renders/{loved.pk}/png/"
        assert first["grades"] == {"alice": "love", "bob": "okay"}
        assert [(g["curator"], g["value"], g["source"], g["shown_ms"])
                for g in first["grade_details"]] == [
            ("alice", "love", "app", 1200), ("bob", "okay", "app", None)]
        alice_grade = Grade.objects.get(render=loved, curator__username="alice")
        assert first["grade_details"][0]["updated"] == alice_grade.updated.isoformat()
        assert lines[1]["png"] is None and lines[1]["png_url"] is None

    def test_view_streams_the_same_lines_with_absolute_png_urls(self, client, staff, graded):
        client.force_login(staff)
        response = client.get(reverse("rating:export_jsonl"))
        assert response.status_code == 200
        assert response["Content-Type"].startswith("application/jsonl")
        assert "attachment" in response["Content-Disposition"]
        lines = parse_lines(b"".join(response.streaming_content).decode())
        assert len(lines) == 2
        assert lines[0]["png_url"] == (
            f"http://testserver/sketches/renders/{graded['loved'].pk}/png/")

    def test_the_file_reimports_through_the_import_path(self, graded, tmp_path):
        target = tmp_path / "grades.jsonl"
        call_command("export_grades", "-o", str(target), stderr=io.StringIO())
        Sketch.objects.all().delete()  # as if importing into another installation
        report = import_path(target, queue_renders=False)
        assert not report.errors, report.errors
        imported = {(r.sketch.code, r.seed): sorted(r.grades.values_list(
                        "curator__username", "value", "source"))
                    for r in Render.objects.select_related("sketch")}
        code = "function setup(){ /* kite */ }"
        assert imported == {
            (code, 3): [("alice", "love", "import"), ("bob", "okay", "import")],
            (code, 4): [("bob", "nope", "import")]}
        assert Sketch.objects.get(renders__seed=3).prompt == "a red kite — über the hills"

    def test_command_writes_a_file(self, graded, tmp_path):
        target = tmp_path / "grades.jsonl"
        err = io.StringIO()
        call_command("export_grades", "-o", str(target), stderr=err)
        assert len(parse_lines(target.read_text(encoding="utf-8"))) == 2
        assert "exported 2 graded renders" in err.getvalue()


def assert_loaded(dataset, graded) -> None:
    assert len(dataset) == 1  # the rejected render has no image; the ungraded one no grade
    row = dataset[0]
    assert row["render_id"] == graded["loved"].pk
    assert row["image"].size == (8, 6) and row["image"].getpixel((0, 0)) == (255, 0, 0)
    assert row["prompt"] == "a red kite — über the hills"
    assert [(g["curator"], g["value"]) for g in row["grades"]] == [
        ("alice", "love"), ("bob", "okay")]
    assert (row["n_love"], row["n_okay"], row["n_nope"]) == (1, 1, 0)
    assert row["mean_grade"] == pytest.approx(1.5)


class TestDataset:
    def test_folder_from_the_command_loads_as_an_imagefolder(self, graded, tmp_path,
                                                             offline_datasets):
        folder = tmp_path / "export"
        call_command("export_grades", "--format", "dataset", "-o", str(folder),
                     stderr=io.StringIO())
        assert sorted(p.name for p in folder.iterdir()) == ["README.md", "images",
                                                             "metadata.jsonl"]
        dataset = offline_datasets.load_dataset("imagefolder", data_dir=str(folder),
                                                split="train", cache_dir=str(tmp_path / "c"))
        assert_loaded(dataset, graded)

    def test_zip_from_the_view_loads_without_unpacking(self, client, staff, graded, tmp_path,
                                                       offline_datasets):
        client.force_login(staff)
        response = client.get(reverse("rating:export_dataset"))
        assert response.status_code == 200
        assert response["Content-Type"] == "application/zip"
        target = tmp_path / "grades.zip"
        target.write_bytes(b"".join(response.streaming_content))
        names = zipfile.ZipFile(target).namelist()
        assert f"images/{graded['loved'].pk}.png" in names and "metadata.jsonl" in names
        dataset = offline_datasets.load_dataset("imagefolder", data_files={"train": str(target)},
                                                split="train", cache_dir=str(tmp_path / "c"))
        assert_loaded(dataset, graded)

    def test_refuses_to_write_into_a_folder_that_has_files(self, graded, tmp_path):
        (tmp_path / "busy").mkdir()
        (tmp_path / "busy" / "keep.txt").write_text("mine")
        with pytest.raises(Exception, match="is not empty"):
            call_command("export_grades", "--format", "dataset", "-o", str(tmp_path / "busy"))


class TestExportAccess:
    @pytest.mark.parametrize("name", ["rating:export_jsonl", "rating:export_dataset"])
    def test_curators_are_refused(self, client, db, name):
        client.force_login(curator_get_or_create(username="dora"))
        assert client.get(reverse(name)).status_code == 403

    @pytest.mark.parametrize("name", ["rating:export_jsonl", "rating:export_dataset"])
    def test_anonymous_visitors_go_to_the_login_page(self, client, db, name):
        response = client.get(reverse(name))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_edited_sketch_carries_its_parent(graded):
    child = Sketch.objects.create(code="function setup(){}", origin="edited",
                                  parent=graded["loved"].sketch)
    render = Render.objects.create(sketch=child, status="ok")
    grade_record(render=render, curator=curator_get_or_create(username="alice"), value="nope")
    record = [r for r in export.records() if r["render_id"] == render.pk][0]
    assert (record["origin"], record["parent_sketch_id"]) == ("edited", graded["loved"].sketch_id)
