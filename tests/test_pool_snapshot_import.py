"""Importing a pool snapshot export (`import_pool_snapshot`): the zip through
the command, older exports, renders already imported reused, a second import
refused without duplicating anything, and bad input refused before anything
is stored. The round trip into an empty database is in
tests/test_data_roundtrip.py."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from pool.export import snapshot_export_folder, snapshot_export_zip
from pool.models import PoolMember, PoolSnapshot
from pool.services import pool_pin, snapshot_freeze
from pool.snapshot_import import SnapshotImportError, snapshot_import
from sketches.importing import import_path
from sketches.models import Render, Sketch
from tests.pool_data import grades_give, pool_renders_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def spring(media) -> PoolSnapshot:
    """Three loved tulips, an okay seascape and a noped poppy pinned in as okay."""
    tulips = pool_renders_create(3, prompt="a tulip")
    (sea,) = pool_renders_create(1, prompt="a seascape", start=3)
    (poppy,) = pool_renders_create(1, prompt="a poppy", start=4)
    for render in tulips:
        grades_give(render, "love")
    grades_give(sea, "okay")
    grades_give(poppy, "nope")
    pool_pin(render=poppy, action="in", tier="okay", reason="the only poppy")
    return snapshot_freeze(name="spring", note="references for the spring runs")


def snapshot_view(snapshot: PoolSnapshot, media: Path) -> dict:
    return {"name": snapshot.name, "note": snapshot.note, "rule": snapshot.rule,
            "counts": snapshot.counts,
            "members": [(m.tier, m.subject, m.pinned, m.prompt, m.code, m.seed,
                         (media / m.png).read_bytes()) for m in snapshot.members.order_by("pk")]}


def database_emptied() -> None:
    """Every row an export carries is gone. The old PNG files stay under
    MEDIA_ROOT, but no row names them: the import reads only the export."""
    PoolSnapshot.objects.all().delete()
    Sketch.objects.all().delete()
    assert not Render.objects.exists()


def stored() -> tuple[int, int, int, int]:
    return (Sketch.objects.count(), Render.objects.count(), PoolSnapshot.objects.count(),
            PoolMember.objects.count())


def files_under(folder: Path) -> set[Path]:
    return {p for p in folder.rglob("*") if p.is_file()} if folder.exists() else set()


@pytest.fixture
def export(spring, tmp_path) -> Path:
    folder = tmp_path / "export"
    snapshot_export_folder(spring, folder)
    return folder


class TestImport:
    def test_the_zip_imports_through_the_command_as_the_same_snapshot(
            self, spring, media, tmp_path, capsys):
        before = snapshot_view(spring, media)
        snapshot_export_zip(spring, tmp_path / "spring.zip")
        database_emptied()
        call_command("import_pool_snapshot", str(tmp_path / "spring.zip"))
        out = capsys.readouterr().out
        assert "Imported snapshot 'spring': 5 members (3 love, 2 okay; 1 pinned)" in out
        assert "5 stored from the export's PNGs, 0 already imported" in out
        assert snapshot_view(PoolSnapshot.objects.get(), media) == before

    def test_an_export_made_before_snapshot_json_named_its_format_imports(
            self, spring, export, media):
        summary = json.loads((export / "snapshot.json").read_text())
        assert summary.pop("format") == "paintrl-pool-snapshot/1"
        (export / "snapshot.json").write_text(json.dumps(summary))
        before = snapshot_view(spring, media)
        database_emptied()
        snapshot_import(path=export)
        assert snapshot_view(PoolSnapshot.objects.get(), media) == before

    def test_code_and_seeds_imported_earlier_are_reused_not_stored_again(self, export, media):
        database_emptied()
        report = import_path(export, queue_renders=False)  # import_renders of the same export
        assert report.counts["imported"] == 5
        renders = set(Render.objects.values_list("pk", flat=True))
        result = snapshot_import(path=export)
        assert (result.renders_new, result.renders_reused) == (0, 5)
        assert set(Render.objects.values_list("pk", flat=True)) == renders
        assert set(result.snapshot.members.values_list("render", flat=True)) == renders

    def test_another_name_can_be_chosen(self, export, media):
        result = snapshot_import(path=export, name="  spring   on the new box ")
        assert result.snapshot.name == "spring on the new box"
        assert PoolSnapshot.objects.count() == 2
        # Into the database it came from, the sketches are found (same code)
        # but the renders made here are not reused: the render import reuses,
        # for an item that brings a PNG, only a render it imported itself
        # (sketches.importing.services._render_reuse). Each member gets a new
        # render of the same code, seed and PNG beside the original.
        assert (result.renders_new, result.renders_reused) == (5, 0)
        assert Sketch.objects.count() == 5 and Render.objects.count() == 10


class TestTwice:
    def test_a_second_import_is_refused_as_existing_and_duplicates_nothing(
            self, export, media):
        database_emptied()
        call_command("import_pool_snapshot", str(export))
        counts, files = stored(), files_under(media)
        assert counts == (5, 5, 1, 5)
        with pytest.raises(CommandError, match="a snapshot named 'spring' exists already.*"
                                               "--name"):
            call_command("import_pool_snapshot", str(export))
        assert stored() == counts and files_under(media) == files

    def test_a_second_import_under_another_name_points_at_the_same_renders(self, export, media):
        database_emptied()
        first = snapshot_import(path=export).snapshot
        renders = Render.objects.count()
        second = snapshot_import(path=export, name="spring, again")
        assert (second.renders_new, second.renders_reused) == (0, 5)
        assert Render.objects.count() == renders
        assert list(second.snapshot.members.values_list("render", "tier", "pinned")) == \
            list(first.members.values_list("render", "tier", "pinned"))


def manifest_edit(export: Path, edit) -> None:
    """Apply `edit(lines)` to the parsed manifest lines and write them back."""
    path = export / "manifest.jsonl"
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    edit(lines)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def summary_edit(export: Path, **changes) -> None:
    path = export / "snapshot.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def first_member_file(export: Path, key: str) -> Path:
    return export / json.loads((export / "manifest.jsonl").read_text().splitlines()[0])[key]


BREAKAGES = {
    "no snapshot.json": (lambda e: (e / "snapshot.json").unlink(),
                         "no snapshot.json in the export"),
    "snapshot.json not JSON": (lambda e: (e / "snapshot.json").write_text("{name: spring"),
                               "snapshot.json is not valid JSON"),
    "snapshot.json without a rule": (lambda e: summary_edit(e, rule=None),
                                     "snapshot.json: 'rule' must be a JSON object, got None"),
    "a NUL in the note": (lambda e: summary_edit(e, note="spring\x00"),
                          "snapshot.json: 'note' contains NUL characters"),
    "a half surrogate pair in the rule": (
        lambda e: (e / "snapshot.json").write_text(
            (e / "snapshot.json").read_text().replace('"rule": {', '"rule": {"x": "\\ud800", ')),
        "snapshot.json: 'rule' contains an unpaired surrogate"),
    "a newer format": (lambda e: summary_edit(e, format="paintrl-pool-snapshot/2"),
                       "the export is format 2, made by a newer paintrl"),
    "an unknown format": (lambda e: summary_edit(e, format="someone-else/1"),
                          "unknown format 'someone-else/1'"),
    "no manifest": (lambda e: (e / "manifest.jsonl").unlink(), "no manifest.jsonl"),
    "a manifest line not JSON": (
        lambda e: (e / "manifest.jsonl").write_text(
            (e / "manifest.jsonl").read_text().replace('{"file"', '{file', 1)),
        "manifest.jsonl line 1: not JSON"),
    "an unknown tier": (lambda e: manifest_edit(e, lambda ls: ls[1].update(tier="adore")),
                        "manifest.jsonl line 2: unknown tier 'adore'"),
    "a line without its pin": (lambda e: manifest_edit(e, lambda ls: ls[2].pop("pinned")),
                               "line 3: 'pinned' must be a true or false, got None"),
    "a member's code missing": (lambda e: first_member_file(e, "file").unlink(),
                                r"line 1: the member's code code/0001-\S+\.js is not in"),
    "a member's PNG missing": (lambda e: first_member_file(e, "png").unlink(),
                               r"line 1: the member's PNG png/0001-\S+\.png is not in"),
    "a member exported without its PNG": (
        lambda e: manifest_edit(e, lambda ls: ls[3].pop("png")),
        "line 4: code/0004-\\S+ has no PNG .*export it again"),
    "a truncated manifest": (lambda e: manifest_edit(e, lambda ls: ls.pop()),
                             "says the snapshot has 5 members but manifest.jsonl lists 4"),
    "a sketch the manifest does not name": (
        lambda e: (e / "code" / "extra.js").write_text("function setup() {}"),
        "code/extra.js is not in manifest.jsonl"),
    "an unsafe path in the manifest": (
        lambda e: manifest_edit(e, lambda ls: ls[0].update(png="../outside.png")),
        "line 1: the path leaves the input"),
}


class TestBadInput:
    @pytest.mark.parametrize("breakage", list(BREAKAGES))
    def test_is_refused_with_a_clear_error_before_anything_is_stored(
            self, breakage, export, media):
        database_emptied()
        files = files_under(media)
        breaking, message = BREAKAGES[breakage]
        breaking(export)
        with pytest.raises(CommandError, match=message):
            call_command("import_pool_snapshot", str(export))
        assert stored() == (0, 0, 0, 0) and files_under(media) == files

    def test_a_path_that_is_neither_a_folder_nor_a_zip_is_refused(self, tmp_path, media):
        with pytest.raises(SnapshotImportError, match="does not exist"):
            snapshot_import(path=tmp_path / "nowhere")
        (tmp_path / "spring.jsonl").write_text('{"code": "function setup() {}"}\n')
        with pytest.raises(SnapshotImportError, match="neither a folder nor a zip"):
            snapshot_import(path=tmp_path / "spring.jsonl")
        assert stored() == (0, 0, 0, 0)

    def test_a_png_that_does_not_decode_leaves_no_snapshot_and_the_fixed_export_imports(
            self, export, media, tmp_path):
        database_emptied()
        png = first_member_file(export, "png")
        shutil.copy(png, tmp_path / "good.png")
        png.write_bytes(png.read_bytes()[:60])  # the signature and a cut-off header
        with pytest.raises(SnapshotImportError,
                           match=r"1 of 5 members could not be imported, so no snapshot was "
                                 r"made: code/0001-\S+: corrupt_image: .*The 4 renders"):
            snapshot_import(path=export)
        assert stored()[1:] == (4, 0, 0)
        shutil.copy(tmp_path / "good.png", png)
        result = snapshot_import(path=export)
        assert (result.renders_new, result.renders_reused) == (1, 4)
        assert stored() == (5, 5, 1, 5)
