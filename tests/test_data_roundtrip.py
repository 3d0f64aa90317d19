"""Data that must outlive processes and machines: grades (with their
history), a frozen pool snapshot and a training run's rows read back
identical by a fresh process after every connection is closed; and the
exports imported into an empty database reproduce what they carry: the
grades JSONL with `import_renders`, the snapshot folder with
`import_pool_snapshot` (tests/test_pool_snapshot_import.py has its errors).

What an export does not carry is asserted as such, so a change that starts
carrying it shows up here (docs/operations.md, "Production", lists what each
export carries)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from django.conf import settings
from django.core import serializers
from django.core.management import call_command
from django.db import connections

from pool.export import snapshot_export_folder
from pool.models import PoolMember, PoolSnapshot
from pool.services import pool_pin, snapshot_freeze
from pool.snapshot_import import snapshot_import
from rating.export import jsonl_lines
from rating.models import Grade, GradeChange
from rating.services import curator_get_or_create, grade_record
from sketches.importing import import_path
from sketches.models import Render, Sketch
from tests.pool_data import pool_renders_create
from tests.workers import database_url
from training.models import (
    Judge,
    PromptSet,
    Rollout,
    Rubric,
    SystemPrompt,
    TrainingRun,
    TrainingStep,
)

ROOT = Path(__file__).resolve().parents[1]
# What survives a restart, in a fixed order so two processes dump the same text.
DUMPED = [Sketch, Render, Grade, GradeChange, PoolSnapshot, PoolMember, TrainingRun,
          TrainingStep, Rollout]


def dump() -> str:
    """Every row of DUMPED as Django's JSON serializer writes it."""
    return "\n".join(serializers.serialize("json", model.objects.order_by("pk"))
                     for model in DUMPED)


def dump_in_a_new_process() -> str:
    """dump(), run by `manage.py shell` in a process of its own."""
    code = ("from tests.test_data_roundtrip import dump; "
            "print('<<<' + dump() + '>>>')")
    result = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", code], cwd=ROOT, timeout=120,
        env={**os.environ, "DATABASE_URL": database_url(), "PAINTRL_LOG_LEVEL": "ERROR"},
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout.split("<<<", 1)[1].rsplit(">>>", 1)[0]


def graded_pool(count: int = 4) -> list[Render]:
    """Renders with PNGs; ana loves the even ones, ben finds all okay but changed his mind once."""
    renders = pool_renders_create(count, prompt="a hibiscus")
    ana, ben = (curator_get_or_create(username=name) for name in ("ana", "ben"))
    for i, render in enumerate(renders):
        grade_record(render=render, curator=ana, value="love" if i % 2 == 0 else "okay")
        grade_record(render=render, curator=ben, value="okay")
    grade_record(render=renders[0], curator=ben, value="love")  # a history entry
    return renders


def training_rows(snapshot: PoolSnapshot, renders: list[Render]) -> TrainingRun:
    judge = Judge.objects.create(name="local (roundtrip)", backend="local")
    run = TrainingRun.objects.create(
        name="roundtrip", base_model="/nowhere",
        prompt_set=PromptSet.objects.create(name="two", prompts=["a red barn", "a lake"]),
        system_prompt=SystemPrompt.objects.create(name="sp (roundtrip)", text="paint"),
        rubric=Rubric.objects.create(name="gate only",
                                     signals=[{"name": "gate", "kind": "gate", "weight": 1}]),
        judge=judge, scorer=judge, snapshot=snapshot, max_steps=2,
        status=TrainingRun.Status.DONE, progress={"step": 2, "notices": ["roundtrip"]})
    for step in (1, 2):
        TrainingStep.objects.create(run=run, step=step, reward_mean=0.25 * step, reward_std=0.1,
                                    signals={"gate": {"mean": 0.5}}, metrics={"loss": 1.5 / step},
                                    times={"generate": 0.5, "total": 0.5})
        for index, render in enumerate(renders[:2]):
            Rollout.objects.create(run=run, step=step, group=0, index=index, prompt="a red barn",
                                   sketch=render.sketch, render=render, values={"gate": 1.0},
                                   total=0.5 + index, advantage=(-0.5, 0.5)[index], tokens=40)
    return run


class TestRestart:
    def test_grades_a_snapshot_and_a_run_read_back_identical_by_a_new_process(
            self, media, transactional_db):
        renders = graded_pool()
        snapshot = snapshot_freeze(name="before the restart")
        training_rows(snapshot, renders)
        before = dump()
        assert GradeChange.objects.count() == 9 and snapshot.members.count() >= 2
        connections.close_all()  # nothing of this process's sessions is left open
        after = dump_in_a_new_process()
        assert after == before
        rows = sum(len(json.loads(part)) for part in before.split("\n"))
        print(f"\nrestart: {rows} rows of {len(DUMPED)} models read back identical")


def grades_view() -> list[tuple]:
    """What a grades export is about: each graded render's sketch (prompt,
    code), seed and grades by curator name."""
    return sorted(
        (r.sketch.prompt, r.sketch.code, r.seed,
         tuple(sorted((g.curator.get_username(), g.value) for g in r.grades.all())))
        for r in Render.objects.filter(grades__isnull=False).distinct()
        .select_related("sketch").prefetch_related("grades__curator"))


class TestExportImport:
    def test_a_grades_export_imported_into_an_empty_database_reproduces_the_grades(
            self, media, transactional_db, tmp_path):
        graded_pool()
        before = grades_view()
        export = tmp_path / "grades.jsonl"
        export.write_text("".join(jsonl_lines()))

        call_command("flush", interactive=False, verbosity=0)  # an empty database
        assert Sketch.objects.count() == Grade.objects.count() == 0
        report = import_path(export, queue_renders=False)
        assert report.counts["imported"] == len(before) and report.counts["errors"] == 0
        assert grades_view() == before
        # What the JSONL does not carry: the PNGs (its "png" is a path on the
        # old machine) and the grades' history; the renders wait to be rendered
        # again (deterministic at their seed: `manage.py render_pending`).
        assert set(Render.objects.values_list("status", flat=True)) == {"pending"}
        assert set(Grade.objects.values_list("source", flat=True)) == {"import"}

    def test_a_snapshot_export_imported_into_an_empty_database_reproduces_the_snapshot(
            self, media, transactional_db, tmp_path):
        renders = graded_pool()
        (poppy,) = pool_renders_create(1, prompt="a poppy", start=4)
        grade_record(render=poppy, curator=curator_get_or_create(username="ana"), value="nope")
        pool_pin(render=poppy, action="in", tier="okay", reason="the one poppy we have")
        snapshot = snapshot_freeze(name="exported", note="references for run 7")
        before = snapshot_view(snapshot)
        assert [m[:3] for m in before["members"]] == [
            ("love", "hibiscus", False), ("okay", "hibiscus", False),
            ("okay", "hibiscus", False), ("okay", "hibiscus", False), ("okay", "poppy", True)]
        summary = snapshot_export_folder(snapshot, tmp_path / "export")
        assert summary.members == summary.pngs == len(renders) + 1 and not summary.missing_pngs

        call_command("flush", interactive=False, verbosity=0)
        assert PoolSnapshot.objects.count() == Render.objects.count() == 0
        result = snapshot_import(path=tmp_path / "export")
        assert (result.renders_new, result.renders_reused) == (5, 0)
        imported = PoolSnapshot.objects.get()
        assert snapshot_view(imported) == before
        # Each member points at an ok render of its code at its seed, holding the PNG.
        for member in imported.members.select_related("render__sketch"):
            render = member.render
            assert (render.status, render.sketch.code, render.seed, render.png.name) == (
                "ok", member.code, member.seed, member.png)
        # What the export does not carry: who froze it and when (the import's time).
        assert imported.created_by is None and imported.created > snapshot.created


def snapshot_view(snapshot: PoolSnapshot) -> dict:
    """What a snapshot is: its name, note, rule and counts, and its members in
    order with tier, subject, pin, prompt, code, seed and PNG bytes."""
    media = Path(settings.MEDIA_ROOT)
    return {
        "name": snapshot.name, "note": snapshot.note, "rule": snapshot.rule,
        "counts": snapshot.counts,
        "members": [(m.tier, m.subject, m.pinned, m.prompt, m.code, m.seed,
                     (media / m.png).read_bytes()) for m in snapshot.members.order_by("pk")],
    }
