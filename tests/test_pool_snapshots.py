"""Freezing the pool: what a snapshot copies, that nothing changes it
afterwards, and that its export imports back as the same code and prompts."""
from __future__ import annotations

import json
import zipfile

import pytest
from django.core.management import call_command

from pool.export import snapshot_export_folder, snapshot_export_zip
from pool.models import PoolMember, PoolSnapshot, SnapshotImmutableError, Tier
from pool.services import PoolError, pool_pin, pool_rule_edit, snapshot_freeze
from rating.models import Grade
from sketches.importing import Outcome, import_path
from sketches.models import Render, Sketch
from tests.pool_data import grades_give, pool_renders_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]


@pytest.fixture
def graded():
    """Three loved tulips, one okay seascape, one noped render."""
    tulips = pool_renders_create(3, prompt="a tulip")
    (sea,) = pool_renders_create(1, prompt="a seascape", start=3)
    (nope,) = pool_renders_create(1, prompt="a poppy", start=4)
    for render in tulips:
        grades_give(render, "love")
    grades_give(sea, "okay")
    grades_give(nope, "nope")
    return tulips, sea, nope


def membership(snapshot: PoolSnapshot) -> dict[int | None, str]:
    return {m.render_id: m.tier for m in PoolMember.objects.filter(snapshot=snapshot)}


class TestFreeze:
    def test_members_are_copied_with_tier_subject_prompt_code_seed_and_png(self, graded):
        tulips, sea, _ = graded
        snapshot = snapshot_freeze(name="first", note="for run 1")
        assert membership(snapshot) == {tulips[0].pk: "love", tulips[1].pk: "love",
                                        tulips[2].pk: "love", sea.pk: "okay"}
        member = snapshot.members.get(render=sea)
        assert (member.subject, member.prompt, member.code, member.seed, member.png) == (
            "seascape", sea.sketch.prompt, sea.sketch.code, sea.seed, sea.png.name)
        assert snapshot.counts == {"love": 3, "okay": 1, "total": 4, "subjects": {
            "seascape": {"love": 0, "okay": 1}, "tulip": {"love": 3, "okay": 0}}}
        assert snapshot.rule["love_share"] == 0.5 and snapshot.rule["id"]
        assert snapshot.rule["grades"] == "human"

    def test_a_pool_of_simulated_grades_is_labelled_so(self):
        from rating.models import Grade
        from rating.services import curator_get_or_create, grade_record

        (render,) = pool_renders_create(1)
        grade_record(render=render, curator=curator_get_or_create(username="simulated-curator"),
                     value="love", source=Grade.Source.SIMULATED)
        assert snapshot_freeze(name="demo").rule["grades"] == "simulated"

    def test_pinned_members_are_marked(self, graded):
        _, _, nope = graded
        pool_pin(render=nope, action="in", reason="a fine poppy after all")
        snapshot = snapshot_freeze(name="pinned")
        assert snapshot.members.get(render=nope).pinned

    def test_a_name_is_used_once(self, graded):
        snapshot_freeze(name="once")
        with pytest.raises(PoolError, match="exists already"):
            snapshot_freeze(name=" once ")

    def test_an_empty_pool_is_not_frozen(self):
        with pytest.raises(PoolError, match="the pool is empty"):
            snapshot_freeze(name="nothing")
        assert not PoolSnapshot.objects.exists()


class TestImmutability:
    def test_later_grades_pins_rule_changes_and_edits_leave_a_snapshot_as_it_was(self, graded):
        tulips, sea, nope = graded
        snapshot = snapshot_freeze(name="frozen")
        before = list(snapshot.members.values_list("render", "tier", "subject", "prompt",
                                                   "code", "seed", "png", "pinned"))
        grades_give(tulips[0], "nope", "nope")             # c0 changes, c1 adds
        grades_give(nope, "love", "love")
        pool_pin(render=tulips[1], action="out", reason="on reflection")
        pool_rule_edit(love_share=0.5, okay_tier=False, min_grades=1, min_per_subject=5)
        Sketch.objects.filter(pk=sea.sketch_id).update(prompt="renamed", code="// edited")
        after = list(PoolSnapshot.objects.get(pk=snapshot.pk).members.values_list(
            "render", "tier", "subject", "prompt", "code", "seed", "png", "pinned"))
        assert after == before
        # ... while the live pool has moved on.
        assert snapshot_freeze(name="later").counts["total"] == 2

    def test_saving_a_member_raises(self, graded):
        member = snapshot_freeze(name="frozen").members.first()
        member.tier = Tier.OKAY
        with pytest.raises(SnapshotImmutableError):
            member.save()

    def test_saving_a_snapshot_raises(self, graded):
        snapshot = snapshot_freeze(name="frozen")
        snapshot.note = "changed"
        with pytest.raises(SnapshotImmutableError):
            snapshot.save()
        assert PoolSnapshot.objects.get(pk=snapshot.pk).note == ""

    def test_bulk_updates_raise(self, graded):
        snapshot = snapshot_freeze(name="frozen")
        with pytest.raises(SnapshotImmutableError):
            PoolMember.objects.filter(snapshot=snapshot).update(tier=Tier.OKAY)
        with pytest.raises(SnapshotImmutableError):
            PoolSnapshot.objects.update(name="renamed")

    def test_a_deleted_render_leaves_its_member_with_the_copied_fields(self, graded):
        tulips, _, _ = graded
        snapshot = snapshot_freeze(name="frozen")
        prompt = tulips[0].sketch.prompt
        tulips[0].sketch.delete()
        member = snapshot.members.get(prompt=prompt)
        assert member.render_id is None
        assert member.code.startswith("// sketch")


def reimported(export_path) -> set[tuple[str, str, int]]:
    """Delete every sketch (a fresh database as far as sketches go), import
    the export, and return (code, prompt, seed) of what came back."""
    Sketch.objects.all().delete()
    report = import_path(export_path, queue_renders=False)
    assert {r.outcome for r in report.items} == {Outcome.IMPORTED}, report.summary()
    renders = Render.objects.select_related("sketch")
    assert all(r.status == Render.Status.OK and r.png for r in renders)  # PNGs, not re-renders
    return {(r.sketch.code, r.sketch.prompt, r.seed) for r in renders}


class TestExport:
    def test_the_zip_reimports_as_the_same_code_prompts_and_seeds(self, graded, tmp_path):
        snapshot = snapshot_freeze(name="Export me")
        expected = set(snapshot.members.values_list("code", "prompt", "seed"))
        path = tmp_path / "export.zip"
        summary = snapshot_export_zip(snapshot, path)
        assert (summary.members, summary.pngs, summary.missing_pngs) == (4, 4, [])
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
            manifest = [json.loads(line) for line in
                        archive.read("export-me/manifest.jsonl").decode().splitlines()]
        assert "export-me/snapshot.json" in names
        assert {line["tier"] for line in manifest} == {"love", "okay"}
        assert reimported(path) == expected
        assert not Grade.objects.exists()  # a snapshot exports no grades

    def test_the_command_writes_a_folder_that_reimports(self, graded, tmp_path, capsys):
        snapshot = snapshot_freeze(name="folder")
        expected = set(snapshot.members.values_list("code", "prompt", "seed"))
        out = tmp_path / "out"
        call_command("export_pool_snapshot", "folder", str(out))
        assert "4 members, 4 PNGs" in capsys.readouterr().out
        assert (out / "manifest.jsonl").exists() and len(list((out / "png").iterdir())) == 4
        assert reimported(out) == expected

    def test_a_missing_png_is_exported_without_it(self, graded, tmp_path):
        tulips, _, _ = graded
        snapshot = snapshot_freeze(name="gaps")
        tulips[0].png.storage.delete(tulips[0].png.name)
        summary = snapshot_export_folder(snapshot, tmp_path / "gaps")
        assert summary.pngs == 3 and len(summary.missing_pngs) == 1
        lines = [json.loads(x) for x in (tmp_path / "gaps" / "manifest.jsonl").read_text()
                 .splitlines()]
        assert sum("png" not in line for line in lines) == 1

    def test_the_command_refuses_an_unknown_snapshot_and_a_used_folder(self, graded, tmp_path):
        from django.core.management.base import CommandError

        snapshot_freeze(name="there")
        with pytest.raises(CommandError, match="no snapshot named 'missing'"):
            call_command("export_pool_snapshot", "missing", str(tmp_path / "x"))
        (tmp_path / "used").mkdir()
        (tmp_path / "used" / "file").write_text("x")
        with pytest.raises(CommandError, match="not an empty folder"):
            call_command("export_pool_snapshot", "there", str(tmp_path / "used"))
