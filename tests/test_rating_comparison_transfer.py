"""Comparisons out and back in: the JSONL export (command and staff view),
its import (a round trip, renders found by code and seed, twice changing
nothing, bad lines named with nothing stored), comparisons.jsonl in the
Hugging Face dataset, and the agreement between curators on shared pairs."""
from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from rating import comparison_transfer, services
from rating.comparison_agreement import comparison_agreement
from rating.comparison_transfer import ComparisonImportError, comparisons_import
from rating.models import Comparison
from tests.rating_data import curator_create, renders_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]


@pytest.fixture
def compared(db):
    """Three renders of one prompt: alice compared two pairs (one 30 s ago),
    bob one pair and skipped another."""
    alice, bob = curator_create("alice"), curator_create("bob")
    a, b, c = renders_create(3, prompt="a tulip", same_prompt=True)
    services.comparison_submit(curator=alice, left=a, right=b, choice="left", shown_ms=900,
                               created=timezone.now() - timedelta(seconds=30))
    services.comparison_submit(curator=alice, left=c, right=b, choice="tie", shown_ms=1500)
    services.comparison_submit(curator=bob, left=b, right=a, choice="right", shown_ms=700)
    services.comparison_submit(curator=bob, left=a, right=c, choice="skip")
    return {"renders": (a, b, c)}


def rows() -> list[tuple]:
    return sorted(Comparison.objects.values_list(
        "curator__username", "left", "right", "choice", "shown_ms", "created", "prompt"))


class TestJsonlRoundTrip:
    def test_the_command_exports_every_comparison_and_import_brings_them_back(
            self, compared, tmp_path):
        before = rows()
        target = tmp_path / "comparisons.jsonl"
        err = io.StringIO()
        call_command("export_comparisons", "-o", str(target), stderr=err)
        assert "exported 4 comparisons" in err.getvalue()
        lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
        assert {line["format"] for line in lines} == {comparison_transfer.FORMAT}
        first = lines[0]  # oldest first
        a, b, _ = compared["renders"]
        assert (first["curator"], first["choice"], first["shown_ms"]) == ("alice", "left", 900)
        assert first["left"]["render_id"] == a.pk and first["right"]["render_id"] == b.pk
        assert first["left"]["code_sha256"] == a.sketch.code_sha256

        Comparison.objects.all().delete()
        out = io.StringIO()
        call_command("import_comparisons", str(target), stdout=out)
        assert "imported 4 comparisons" in out.getvalue()
        assert rows() == before
        assert set(Comparison.objects.values_list("source", flat=True)) == {"import"}
        # Twice: nothing changes.
        assert comparisons_import(target.read_text(encoding="utf-8").splitlines()) == \
            comparison_transfer.ImportResult(imported=0, unchanged=4)
        assert rows() == before

    def test_renders_are_found_by_code_and_seed_when_ids_differ(self, compared):
        line = json.loads(next(comparison_transfer.jsonl_lines()))
        line["left"]["render_id"], line["right"]["render_id"] = 99_999, 99_998
        line["curator"] = "carol"  # a curator this database has never seen
        result = comparisons_import([json.dumps(line)])
        assert result.imported == 1
        a, b, _ = compared["renders"]
        carol = Comparison.objects.get(curator__username="carol")
        assert (carol.left_id, carol.right_id, carol.source) == (a.pk, b.pk, "import")

    def test_bad_lines_are_named_and_nothing_is_stored(self, compared):
        good = next(comparison_transfer.jsonl_lines())
        unknown = json.loads(good)
        unknown["right"]["code_sha256"] = "0" * 64
        bad_choice = {**json.loads(good), "choice": "both"}
        Comparison.objects.all().delete()
        lines = [good, "{not json", json.dumps(unknown), json.dumps(bad_choice), "",
                 json.dumps({**json.loads(good), "format": "paintrl-grades/1"})]
        with pytest.raises(ComparisonImportError) as caught:
            comparisons_import(lines)
        errors = {e.line: e.reason for e in caught.value.errors}
        assert set(errors) == {2, 3, 4, 6}
        assert errors[2].startswith("not JSON")
        assert errors[3].startswith("right render not found")
        assert "choice 'both'" in errors[4]
        assert "format is 'paintrl-grades/1'" in errors[6]
        assert "4 bad lines, nothing imported" in str(caught.value)
        assert not Comparison.objects.exists()

    def test_the_command_reports_bad_lines_and_fails(self, compared, tmp_path):
        target = tmp_path / "bad.jsonl"
        target.write_text('{"format": "paintrl-comparisons/1"}\n', encoding="utf-8")
        err = io.StringIO()
        with pytest.raises(CommandError, match="1 bad line, nothing imported"):
            call_command("import_comparisons", str(target), stderr=err)
        assert "line 1: curator must be a non-empty name" in err.getvalue()


class TestExportView:
    def test_staff_download_the_jsonl_and_curators_are_refused(
            self, staff, client, compared):
        url = reverse("rating:export_comparisons")
        client.force_login(curator_create("dora"))
        assert client.get(url).status_code == 403
        client.force_login(staff)
        response = client.get(url)
        assert response.status_code == 200
        lines = b"".join(response.streaming_content).decode().splitlines()
        assert len(lines) == 4 and json.loads(lines[0])["curator"] == "alice"


class TestDataset:
    def test_the_dataset_holds_comparisons_beside_the_images(self, compared, tmp_path,
                                                             monkeypatch):
        monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
        monkeypatch.setenv("HF_HUB_OFFLINE", "1")
        monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
        import datasets

        a, b, c = compared["renders"]
        services.grade_record(render=a, curator=curator_create("eve"), value="love")
        folder = tmp_path / "export"
        call_command("export_grades", "--format", "dataset", "-o", str(folder),
                     stderr=io.StringIO())
        assert (folder / "comparisons.jsonl").exists()
        assert "3 comparisons" in (folder / "README.md").read_text()
        images = datasets.load_dataset("imagefolder", data_dir=str(folder), split="train",
                                       cache_dir=str(tmp_path / "c1"))
        assert [row["render_id"] for row in images] == [a.pk]  # only graded renders
        compared_rows = datasets.load_dataset(
            "json", data_files=str(folder / "comparisons.jsonl"), split="train",
            cache_dir=str(tmp_path / "c2"))
        assert sorted(compared_rows["choice"]) == ["left", "right", "tie"]  # skips left out
        first = next(r for r in compared_rows if r["choice"] == "left")
        assert first["left_file_name"] == f"images/{a.pk}.png" and first["right_file_name"] == ""


class TestAgreement:
    def test_two_curators_on_one_pair_agree_whatever_the_sides(self, compared):
        # alice: a beats b (a on the left); bob: a beats b (a on the right).
        agreement = comparison_agreement()
        assert (agreement.pairs, agreement.curator_pairs, agreement.agreeing) == (1, 1, 1)
        assert agreement.share == 1.0

    def test_a_different_render_or_a_tie_is_a_disagreement(self, compared):
        a, b, c = compared["renders"]
        carol, dan = curator_create("carol"), curator_create("dan")
        services.comparison_submit(curator=carol, left=a, right=b, choice="right")
        services.comparison_submit(curator=dan, left=c, right=b, choice="left")  # alice: tie
        agreement = comparison_agreement()
        # Pair a|b: alice, bob (a) and carol (b): 3 curator pairs, 1 agreeing.
        # Pair b|c: alice (tie) and dan (c): 1 curator pair, none agreeing.
        assert (agreement.pairs, agreement.curator_pairs, agreement.agreeing) == (2, 4, 1)
        assert agreement.share == pytest.approx(0.25)

    def test_the_agreement_page_shows_it(self, staff_client, client, compared):
        html = client.get(reverse("rating:agreement")).content.decode()
        assert 'data-stat="comparison-agreement">100%' in html
        assert reverse("rating:export_comparisons") in html
