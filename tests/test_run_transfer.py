"""A training run exported (`manage.py export_run`) and imported again
(`manage.py import_run`) reproduces its steps, rollouts, sketches and PNG
bytes, and the run page shows the imported run with its curves and gallery;
the run's rubric, prompts and judges are matched or recreated from the copies
it was launched with; bad input is refused with a clear error and leaves
nothing behind.

The run is built as rows with real renders and PNGs, the way the train
worker stores them (tests/run_data.py's steps_create)."""
from __future__ import annotations

import json
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from django.utils import timezone

from pool.models import PoolSnapshot
from sketches.models import Render, Sketch
from tests.run_data import run_create, steps_create
from training.models import (
    Judge,
    PromptSet,
    Rollout,
    Rubric,
    SystemPrompt,
    TrainingRun,
    TrainingStep,
)
from training.policy import run_dir
from training.runs.services import RunError, launched_config, run_resume
from training.runs.transfer import FORMAT, RUN_FIELDS, STEP_FIELDS

STEP_VALUES = [f for f in STEP_FIELDS if f != "created"]
RENDER_VALUES = ("seed", "status", "width", "height", "violations", "violation_details",
                 "js_errors", "paint_fraction", "brush_calls", "unknown_calls", "renderer_version")


def finished_run(name: str = "hibiscus run", **choices) -> TrainingRun:
    """A done run with two steps of 16 rollouts, launched (launched_config as
    run_launch writes it), with a checkpoint folder on disk. `choices` replace
    the presets run_create picks (rubric, judge...)."""
    started = timezone.now() - timedelta(hours=2)
    run = run_create(status="done", name=name, started=started,
                     finished=started + timedelta(minutes=30), checkpoint_step=2,
                     heartbeat=started + timedelta(minutes=30), worker="train@source")
    TrainingRun.objects.filter(pk=run.pk).update(**choices)
    run.refresh_from_db()
    checkpoint = run_dir(run.pk) / "checkpoint-2"
    checkpoint.mkdir(parents=True)
    (checkpoint / "trainer_state.json").write_text("{}")
    TrainingRun.objects.filter(pk=run.pk).update(
        launched_config=launched_config(run),
        progress={"step": 2, "max_steps": 4, "stage": "done",
                  "final_policy": str(run_dir(run.pk) / "final")})
    run.refresh_from_db()
    steps_create(run)
    for r in run.rollouts.all():  # as training.runs.rewards stores a rollout's sketch
        Sketch.objects.filter(pk=r.sketch_id).update(
            origin="rollout", meta={"run": run.pk, "step": r.step, "group": r.group,
                                    "index": r.index})
    return run


def record(run: TrainingRun) -> dict:
    """Everything about the run an export must carry, without database ids."""
    rollouts = []
    for r in run.rollouts.order_by("step", "group", "index").select_related("sketch", "render"):
        with r.render.png.open("rb") as file:
            png = file.read()
        rollouts.append({
            "key": (r.step, r.group, r.index), "prompt": r.prompt, "values": r.values,
            "total": r.total, "advantage": r.advantage, "tokens": r.tokens,
            "created": r.created, "code": r.sketch.code, "sketch_prompt": r.sketch.prompt,
            "origin": r.sketch.origin, "sketch_created": r.sketch.created,
            "rendered": r.render.rendered, "render_created": r.render.created,
            "render": {f: getattr(r.render, f) for f in RENDER_VALUES},
            "png": png})
    return {
        "run": {f: getattr(run, f) for f in RUN_FIELDS
                if f not in ("name", "progress", "created")},
        "progress": {k: v for k, v in run.progress.items() if k not in ("notices", "imported")},
        "created": run.created,
        "steps": [({f: getattr(s, f) for f in STEP_VALUES}, s.created)
                  for s in run.steps.order_by("step")],
        "rollouts": rollouts,
    }


def run_delete(run: TrainingRun) -> None:
    """The run gone, with its sketches, renders and PNG files."""
    sketch_ids = list(run.rollouts.values_list("sketch_id", flat=True))
    for render in Render.objects.filter(sketch_id__in=sketch_ids):
        render.png.delete(save=False)
    run.delete()
    Sketch.objects.filter(pk__in=sketch_ids).delete()


def png_files(media: Path) -> list[Path]:
    return sorted((media / "renders").rglob("*.png"))


def import_run(path, **options) -> TrainingRun:
    before = set(TrainingRun.objects.values_list("pk", flat=True))
    call_command("import_run", str(path), **options)
    return TrainingRun.objects.exclude(pk__in=before).get()


@pytest.mark.django_db
class TestExport:
    def test_the_folder_holds_run_json_steps_rollouts_and_pngs(self, media, tmp_path, capsys):
        run = finished_run()
        out = tmp_path / "export"
        call_command("export_run", run.pk, str(out))
        header = json.loads((out / "run.json").read_text())
        assert header["format"] == FORMAT and header["exported_run_id"] == run.pk
        assert header["run"]["status"] == "done" and header["run"]["checkpoint_step"] == 2
        assert header["run"]["launched_config"]["rubric"]["signals"] == run.rubric.signals
        assert header["references"]["rubric"] == {"name": "v2", "version": run.rubric.version,
                                                  "signals": run.rubric.signals}
        assert header["counts"] == {"steps": 2, "rollouts": 16, "pngs": 16}
        steps = (out / "steps.jsonl").read_text().splitlines()
        assert [json.loads(line)["step"] for line in steps] == [1, 2]
        lines = [json.loads(line) for line in (out / "rollouts.jsonl").read_text().splitlines()]
        first = Rollout.objects.select_related("sketch", "render").get(run=run, step=1, group=0,
                                                                        index=0)
        assert lines[0]["sketch"]["code"] == first.sketch.code
        assert lines[0]["render"]["seed"] == first.render.seed
        assert lines[0]["render"]["png"] == "png/0001-00-00.png"
        with first.render.png.open("rb") as file:
            assert (out / "png" / "0001-00-00.png").read_bytes() == file.read()
        assert len(list((out / "png").iterdir())) == 16

    def test_checkpoints_are_recorded_by_path_and_not_exported(self, media, tmp_path, capsys):
        run = finished_run()
        out = tmp_path / "export"
        call_command("export_run", run.pk, str(out))
        left = json.loads((out / "run.json").read_text())["not_exported"]
        checkpoint = str(run_dir(run.pk) / "checkpoint-2")
        assert left["checkpoints"] == [checkpoint] and left["final_policy"].endswith("final")
        assert "not exported" in left["note"]
        assert not any("checkpoint" in p.name or p.name == "trainer_state.json"
                       for p in out.rglob("*"))
        printed = capsys.readouterr().out
        assert "Not exported: Checkpoints and the final policy" in printed and checkpoint in printed

    def test_refusals(self, media, tmp_path):
        run = finished_run()
        with pytest.raises(CommandError, match="no training run with id 999"):
            call_command("export_run", 999, str(tmp_path / "x"))
        taken = tmp_path / "taken"
        taken.mkdir()
        (taken / "notes.txt").write_text("mine")
        with pytest.raises(CommandError, match="not an empty folder"):
            call_command("export_run", run.pk, str(taken))
        assert [p.name for p in taken.iterdir()] == ["notes.txt"]
        draft = run_create(status="draft", name="draft")
        with pytest.raises(CommandError, match="draft"):
            call_command("export_run", draft.pk, str(tmp_path / "draft.zip"))
        assert not (tmp_path / "draft.zip").exists()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["media", "taken"]


@pytest.mark.django_db
class TestRoundTrip:
    def test_import_after_deleting_reproduces_the_run(self, media, tmp_path):
        run = finished_run()
        before = record(run)
        call_command("export_run", run.pk, str(tmp_path / "export"))
        run_delete(run)
        assert not png_files(media) and not TrainingStep.objects.exists()

        imported = import_run(tmp_path / "export")
        assert imported.name == "hibiscus run" and imported.status == "done"
        assert not imported.cancel_requested
        assert record(imported) == before
        assert imported.rubric == Rubric.objects.get(name="v2", version=run.rubric.version)
        assert imported.system_prompt.name == "allow-list" and imported.system_prompt.version == 2
        assert imported.prompt_set.name == "painter subjects"
        assert imported.judge.name == imported.scorer.name == "local"
        assert len(png_files(media)) == 16
        rollout = imported.rollouts.select_related("sketch").get(step=2, group=1, index=3)
        assert rollout.sketch.origin == "rollout"
        assert rollout.sketch.meta == {"run": imported.pk, "step": 2, "group": 1, "index": 3}

    def test_the_run_page_shows_the_imported_run(self, media, tmp_path, admin_client):
        run = finished_run()
        call_command("export_run", run.pk, str(tmp_path / "export"))
        run_delete(run)
        imported = import_run(tmp_path / "export")
        text = admin_client.get(reverse("training:run", args=[imported.pk])).content.decode()
        assert "step <strong>2</strong> of 4 (100%)" in text
        assert text.count("<svg") == 9 and 'aria-label="Reward per step"' in text
        assert "<strong>16</strong> rollouts" in text
        assert "Rollouts of step 2" in text and "<code>splatter</code>" in text
        assert text.count('class="run-mark run-mark-best"') == 1
        assert "Imported from an export of run" in text and "hx-trigger" not in text
        best = Rollout.objects.get(run=imported, step=2, group=0, index=2)
        png_url = reverse("sketches:render_png", args=[best.render_id])
        assert png_url in text
        served = b"".join(admin_client.get(png_url).streaming_content)
        assert served == (tmp_path / "export" / "png" / "0002-00-02.png").read_bytes()

    def test_the_zip_form_imports_beside_the_original_under_another_name(self, media, tmp_path):
        run = finished_run()
        before = record(run)
        call_command("export_run", run.pk, str(tmp_path / "run.zip"))
        with zipfile.ZipFile(tmp_path / "run.zip") as archive:
            assert "hibiscus-run/run.json" in archive.namelist()
        copy = import_run(tmp_path / "run.zip", name="hibiscus copy")
        assert copy.name == "hibiscus copy" and copy.pk != run.pk
        assert record(copy) == before
        assert len(png_files(media)) == 32
        assert not set(copy.rollouts.values_list("render_id", flat=True)) & set(
            run.rollouts.values_list("render_id", flat=True))
        assert Rubric.objects.filter(name__endswith="(imported)").count() == 0

    def test_a_png_gone_from_storage_is_exported_without_a_picture(self, media, tmp_path,
                                                                      capsys):
        run = finished_run()
        gone = Rollout.objects.select_related("render").get(run=run, step=1, group=1, index=2)
        gone.render.png.storage.delete(gone.render.png.name)
        call_command("export_run", run.pk, str(tmp_path / "export"))
        assert "1 PNGs were missing from storage (png/0001-01-02.png)" in capsys.readouterr().err
        copy = import_run(tmp_path / "export", name="copy")
        render = Rollout.objects.select_related("render").get(run=copy, step=1, group=1,
                                                              index=2).render
        assert render.status == "ok" and not render.png
        assert copy.rollouts.exclude(render__png="").count() == 15

    def test_a_run_exported_while_running_is_imported_as_cancelled_never_queued(
            self, media, tmp_path):
        run = finished_run()
        TrainingRun.objects.filter(pk=run.pk).update(status="running", finished=None)
        call_command("export_run", run.pk, str(tmp_path / "export"))
        copy = import_run(tmp_path / "export", name="live copy")
        assert copy.status == "cancelled"
        assert any("was running when exported" in n for n in copy.progress["notices"])

    def test_an_imported_run_is_not_resumed_its_checkpoints_stayed_behind(self, media,
                                                                           tmp_path):
        run = finished_run()
        TrainingRun.objects.filter(pk=run.pk).update(status="running", finished=None)
        call_command("export_run", run.pk, str(tmp_path / "export"))
        copy = import_run(tmp_path / "export", name="live copy")
        steps = copy.steps.count()
        with pytest.raises(RunError, match="imported .* cannot be resumed here: clone it"):
            run_resume(run=copy)
        copy.refresh_from_db()
        assert copy.status == "cancelled" and copy.steps.count() == steps > 0


@pytest.mark.django_db
class TestReferences:
    def test_missing_rows_are_created_from_the_launched_copies_and_reused(self, media, tmp_path,
                                                                          capsys):
        rubric = Rubric.objects.create(name="mine", signals=Rubric.objects.get(
            name="v2", preset=True).signals)
        prompt = SystemPrompt.objects.create(name="terse", text="Paint with brush.line only.")
        prompts = PromptSet.objects.create(name="two flowers", prompts=["a poppy", "an iris"])
        judge = Judge.objects.create(name="remote", backend="openai", model="vision-1",
                                     base_url="http://10.0.0.9:8000/v1")
        snapshot = PoolSnapshot.objects.create(name="pool A", rule={}, counts={})
        run = finished_run(rubric=rubric, system_prompt=prompt, prompt_set=prompts,
                           judge=judge, snapshot=snapshot)
        call_command("export_run", run.pk, str(tmp_path / "export"))
        run_delete(run)
        for row in (rubric, prompt, prompts, judge, snapshot):
            type(row).objects.filter(pk=row.pk).delete()

        imported = import_run(tmp_path / "export")
        printed = capsys.readouterr().out
        assert imported.rubric.name == "mine (imported)"
        assert imported.rubric.signals == rubric.signals
        assert imported.system_prompt.name == "terse (imported)"
        assert imported.system_prompt.text == "Paint with brush.line only."
        assert imported.prompt_set.name == "two flowers (imported)"
        assert imported.prompt_set.prompts == ["a poppy", "an iris"]
        assert imported.judge.name == "remote (imported)" and imported.judge.backend == "openai"
        assert imported.judge.base_url == "" and imported.scorer == Judge.objects.get(name="local")
        assert imported.snapshot is None
        assert "Notice: Pool snapshot 'pool A' is not in this database" in printed
        assert "Notice: Rubric mine" in printed and "Judge 'remote'" in printed

        again = import_run(tmp_path / "export", name="second")
        assert (again.rubric, again.system_prompt, again.prompt_set, again.judge) == (
            imported.rubric, imported.system_prompt, imported.prompt_set, imported.judge)
        assert Rubric.objects.filter(name="mine (imported)").count() == 1

    def test_a_rubric_of_the_same_name_and_version_but_other_signals_is_not_used(
            self, media, tmp_path):
        run = finished_run()
        call_command("export_run", run.pk, str(tmp_path / "export"))
        header = json.loads((tmp_path / "export" / "run.json").read_text())
        signals = header["run"]["launched_config"]["rubric"]["signals"]
        signals[0]["weight"] = 9.0
        (tmp_path / "export" / "run.json").write_text(json.dumps(header))
        copy = import_run(tmp_path / "export", name="reweighted")
        assert copy.rubric.name == "v2 (imported)" and copy.rubric.signals == signals


@pytest.mark.django_db
class TestBadInput:
    @pytest.fixture
    def export(self, media, tmp_path) -> Path:
        run = finished_run()
        call_command("export_run", run.pk, str(tmp_path / "export"))
        return tmp_path / "export"

    def refused(self, path, match: str, **options) -> None:
        counts = (TrainingRun.objects.count(), Sketch.objects.count(), Render.objects.count(),
                  Rubric.objects.count(), PromptSet.objects.count())
        with pytest.raises(CommandError, match=match):
            call_command("import_run", str(path), **{"name": "new name", **options})
        assert (TrainingRun.objects.count(), Sketch.objects.count(), Render.objects.count(),
                Rubric.objects.count(), PromptSet.objects.count()) == counts

    def test_a_missing_path_or_file(self, export, tmp_path):
        self.refused(tmp_path / "nowhere", "does not exist")
        (export / "steps.jsonl").unlink()
        self.refused(export, "steps.jsonl is missing")

    def test_a_zip_member_leaving_the_archive(self, export, tmp_path):
        with zipfile.ZipFile(tmp_path / "run.zip", "w") as archive:
            for path in sorted(export.rglob("*")):
                if path.is_file():
                    archive.write(path, f"run/{path.relative_to(export).as_posix()}")
            archive.writestr("../escape.png", b"x")
        self.refused(tmp_path / "run.zip", "refused member '../escape.png'")

    def test_not_a_zip(self, tmp_path, media):
        (tmp_path / "run.zip").write_bytes(b"not a zip at all")
        self.refused(tmp_path / "run.zip", "not a readable zip")

    def test_malformed_json(self, export):
        (export / "run.json").write_text('{"format": "paintrl-run/1", ')
        self.refused(export, "run.json is not valid JSON")

    def test_a_malformed_line_is_named(self, export):
        lines = (export / "rollouts.jsonl").read_text().splitlines()
        lines[4] = lines[4][:-1]
        (export / "rollouts.jsonl").write_text("\n".join(lines))
        self.refused(export, "rollouts.jsonl line 5 is not valid JSON")

    def test_a_bad_value_is_named(self, export):
        lines = (export / "steps.jsonl").read_text().splitlines()
        step = json.loads(lines[1])
        step["reward_mean"] = "lots"
        (export / "steps.jsonl").write_text("\n".join([lines[0], json.dumps(step)]))
        self.refused(export, "steps.jsonl line 2: reward_mean")

    def test_an_unknown_format_version(self, export):
        header = json.loads((export / "run.json").read_text())
        header["format"] = "paintrl-run/9"
        (export / "run.json").write_text(json.dumps(header))
        self.refused(export, "unknown format 'paintrl-run/9'")

    def test_a_duplicate_name(self, export):
        self.refused(export, "a run named 'hibiscus run' exists already", name="hibiscus run")

    def test_a_missing_png(self, export):
        (export / "png" / "0002-01-03.png").unlink()
        self.refused(export, "png/0002-01-03.png' is not in")

    def test_a_png_that_does_not_match_its_hash_leaves_no_file(self, export, media):
        files = png_files(media)
        (export / "png" / "0002-01-03.png").write_bytes(b"\x89PNG\r\n\x1a\nbroken")
        self.refused(export, "do not match the png_sha256")
        assert png_files(media) == files

    def test_a_row_the_database_refuses_rolls_back_everything_written(self, export, media):
        """Step 2's last rollout given step 1's key: the unique constraint
        stops the import after 16 sketches, renders and PNGs were written."""
        files = png_files(media)
        PromptSet.objects.filter(name="painter subjects").update(name="renamed")
        lines = (export / "rollouts.jsonl").read_text().splitlines()
        last = json.loads(lines[-1])
        last.update(step=1, group=0, index=0)
        (export / "rollouts.jsonl").write_text("\n".join([*lines[:-1], json.dumps(last)]))
        self.refused(export, "the database refused the export's rows")
        assert png_files(media) == files
        assert not PromptSet.objects.filter(name__endswith="(imported)").exists()
