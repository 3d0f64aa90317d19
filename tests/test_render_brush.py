"""Choosing the p5.brush a render uses, and that the choice reaches the
renderer: a render records what it asked for and what it rendered with, the
render task honours it, an import chooses it (the command's --brush, the
upload page, a manifest line's "brush"), and a run's `brush` setting reaches
the renderer its rollouts go through. Real Chromium, the session's pool
standing in as the process's shared pool (the one the command's --now and a
run's renderer use)."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from jobs.tasks import job_task
from sketches import selectors, services
from sketches.importing import ErrorCode, import_path
from sketches.models import ImportJob, Render
from tests.run_data import WORKER_ENV
from tests.sketch_files import read_sketch
from tests.workers import TEST_REDIS_URL, broker_use, render_worker_start, render_worker_stop
from training.runs.config import RunConfig, RunConfigError
from training.sampling.renderers import run_renderer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

# Pencil lines: calls both versions have, so "auto" renders them with 2.x and
# only an explicit "1" renders them with 1.x.
LINES = read_sketch("good/lines.js")
BRUSH_1 = {"p5": "1.11.13", "p5.brush": "1.1.4", "spectral.js": "2.0.2"}


@pytest.fixture
def shared(browser_pool, monkeypatch):
    """The session's pool as sketches.renderer.shared_pool()."""
    monkeypatch.setattr("sketches.renderer._pool", browser_pool)
    return browser_pool


def folder(tmp_path, manifest_lines=(), **files: str):
    root = tmp_path / "batch"
    root.mkdir()
    for name, code in files.items():
        (root / f"{name}.js").write_text(code)
    if manifest_lines:
        (root / "manifest.jsonl").write_text("".join(json.dumps(x) + "\n"
                                                     for x in manifest_lines))
    return root


def distinct(n: int) -> str:
    return LINES.replace("i < 6", f"i < {6 + n}")


class TestRenderTask:
    def test_a_queued_render_renders_with_the_version_it_asked_for(self, shared, staff_client):
        sketch = services.sketch_create(code=LINES)
        render = services.render_create(sketch=sketch, seed=2, brush="1")
        render = services.render_execute(render_id=render.pk)  # the render task's body
        assert (render.status, render.brush, render.brush_version) == ("ok", "1", "1")
        assert render.renderer_version.endswith("p5@1.11.13 p5.brush@1.1.4 spectral.js@2.0.2")
        # Made by today's renderer, so not stale (each version has its own stamp).
        assert render.pk not in selectors.renders_stale_ids()
        page = staff_client.get(reverse("sketches:render_detail", args=[render.pk]))
        assert "1.x" in page.text and "p5.brush@1.1.4" in page.text

    def test_by_default_a_render_asks_for_2x(self, shared):
        render = services.render_create(sketch=services.sketch_create(code=LINES))
        render = services.render_execute(render_id=render.pk)
        assert (render.brush, render.brush_version) == ("2", "2")
        assert "p5.brush@2." in render.renderer_version

    def test_an_unknown_choice_is_refused_by_name(self):
        with pytest.raises(ValueError, match=r"unknown p5.brush choice '3': one of auto, 2, 1"):
            services.render_create(sketch=services.sketch_create(code=LINES), brush="3")


class TestImportBrush:
    def test_an_import_with_brush_1_renders_with_1x_and_records_it(self, shared, tmp_path):
        out = StringIO()
        call_command("import_renders", str(folder(tmp_path, lines=LINES)), "--brush", "1",
                     "--now", "--json", stdout=out)
        assert json.loads(out.getvalue())["counts"]["imported"] == 1
        render = Render.objects.get()
        assert (render.status, render.brush, render.brush_version) == ("ok", "1", "1")
        assert "p5.brush@1.1.4" in render.renderer_version

    def test_a_manifest_line_names_its_own_version_over_the_imports(self, tmp_path):
        root = folder(tmp_path, [{"file": "a.js", "brush": "1"}, {"file": "b.js"}],
                      a=distinct(1), b=distinct(2))
        import_path(root, queue_renders=False, brush="2")
        assert {r.sketch.meta["import"]["file"]: r.brush
                for r in Render.objects.select_related("sketch")} == {"a.js": "1", "b.js": "2"}

    def test_an_import_asks_for_auto_by_default(self, tmp_path):
        import_path(folder(tmp_path, lines=LINES), queue_renders=False)
        assert Render.objects.get().brush == "auto"

    def test_a_bad_value_is_a_clear_error(self, tmp_path):
        root = folder(tmp_path, [{"file": "a.js", "brush": "3"}], a=distinct(1), b=distinct(2))
        with pytest.raises(CommandError, match=r"--brush: invalid choice: '3'"):
            call_command("import_renders", str(root), "--brush", "3", "--now")
        report = import_path(root, queue_renders=False)
        [error] = report.errors
        assert (error.name, error.code) == ("a.js", ErrorCode.BAD_LINE)
        assert "'brush' must be one of auto, 2, 1, got '3'" in error.message
        assert report.counts["imported"] == 1  # b.js
        with pytest.raises(ValueError, match="unknown p5.brush choice '0'"):
            import_path(root, queue_renders=False, brush="0")

    def test_the_upload_page_passes_its_choice_to_the_job(self, client, staff, tmp_path):
        import zipfile

        archive = tmp_path / "batch.zip"
        with zipfile.ZipFile(archive, "w") as zf:
            zf.writestr("lines.js", LINES)
        client.force_login(staff)
        url = reverse("sketches:import_upload")
        refused = client.post(url, {"archive": SimpleUploadedFile(
            "batch.zip", archive.read_bytes()), "brush": "3"})
        assert refused.status_code == 400 and "3 is not one of the available" in refused.text
        client.post(url, {"archive": SimpleUploadedFile("batch.zip", archive.read_bytes()),
                          "brush": "1"})
        job = ImportJob.objects.get()
        assert job.brush == "1"
        assert job_task("import", job.pk) == "done"  # what the worker runs
        assert Render.objects.get().brush == "1"


class TestRunBrush:
    def test_a_runs_brush_setting_reaches_the_renderer(self, shared, tmp_path):
        from tests.run_data import make_run
        from training.runs.services import launched_config
        from training.sampling.stored import completion_store

        run = make_run(tmp_path / "policy", brush="1")
        grpo = RunConfig.from_launched({"grpo": launched_config(run)["grpo"]})
        assert grpo.brush == "1"
        renderer = run_renderer(grpo.renders, grpo.brush)  # as the run's worker builds it
        [outcome] = renderer([LINES], [0], ["run:test:1:0"]).outcomes
        assert (outcome.status, outcome.brush_version, outcome.libraries) == ("ok", "1", BRUSH_1)
        _, render = completion_store(text=LINES, prompt="lines", meta={}, seed=0,
                                     outcome=outcome)
        assert (render.brush, render.brush_version) == ("1", "1")

    def test_runs_render_with_2x_unless_told_and_older_runs_read_as_2x(self):
        from training.models import TrainingRun
        from training.runs.config import LAUNCHED_BEFORE

        assert RunConfig.from_run(TrainingRun()).brush == "2"
        assert LAUNCHED_BEFORE["brush"] == "2"
        stored = RunConfig.from_run(TrainingRun()).to_dict()
        del stored["brush"]
        assert RunConfig.from_dict(stored).brush == "2"

    def test_a_bad_value_is_refused_at_launch_by_name(self, tmp_path):
        from tests.run_data import make_run
        from training.runs.services import run_problems

        with pytest.raises(RunConfigError, match="brush must be one of auto, 2, 1, got '3'"):
            RunConfig(**{**RunConfig.from_run(make_run(tmp_path)).to_dict(), "brush": "3"})
        assert any("brush must be one of auto, 2, 1, got '3'" in problem
                   for problem in run_problems(make_run(tmp_path, brush="3")))
        with pytest.raises(ValueError, match="unknown p5.brush choice '3'"):
            run_renderer("fleet", "3")

    @pytest.mark.worker
    def test_a_run_rendering_on_the_fleet_sends_its_brush_to_the_render_workers(
            self, media, transactional_db):
        broker_use()
        worker = render_worker_start(TEST_REDIS_URL, media, env=WORKER_ENV, browsers=1,
                                     name="brush")
        try:
            [outcome] = run_renderer("fleet", "1")([LINES], [0], ["brush:0"]).outcomes
        finally:
            render_worker_stop(worker)
        assert (outcome.status, outcome.brush_version, outcome.libraries) == ("ok", "1", BRUSH_1)

    def test_a_launched_run_with_brush_1_renders_every_rollout_with_1x(self, train_worker,
                                                                       test_policy):
        from tests.run_data import fresh, make_run
        from tests.workers import wait_for
        from training.models import Rollout
        from training.runs.services import run_launch

        run = run_launch(run=make_run(test_policy, max_steps=1, brush="1"))
        assert run.launched_config["grpo"]["brush"] == "1"
        wait_for(lambda: fresh(run).is_finished, timeout=240, worker=train_worker)
        assert fresh(run).status == "done", fresh(run).error
        renders = [r.render for r in Rollout.objects.filter(run=run).select_related("render")]
        assert len(renders) == 2
        assert {(r.brush, r.brush_version) for r in renders} == {("1", "1")}
        assert all("p5.brush@1.1.4" in r.renderer_version for r in renders)
