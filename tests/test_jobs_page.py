"""The jobs page: every queued and running job across the kinds, with its
queue, place in the queue, share done and time left; the home page's
"Running now" lines."""
from __future__ import annotations

import dataclasses
from datetime import timedelta

from django.urls import reverse
from django.utils import timezone

from jobs.registry import JobProgress, job_kind, job_kind_register, job_kind_unregister, job_kinds
from pool.models import RewardModel
from sketches import services as sketch_services
from sketches.models import ImportJob, Render
from tests.job_rows import job_row
from tests.lab_data import presets_ensure
from tests.rating_data import curator_create
from tests.run_data import run_create
from training.models import Calibration, ExternalBatch, ExternalRun, Judge, Rubric

JOBS = reverse("jobs")


def three_of_twelve_measured(job) -> JobProgress:
    return JobProgress(3, 12, eta_s=90, paced=True)


def reward_model(version: int, **fields) -> RewardModel:
    return RewardModel.objects.create(version=version, **fields)


class TestTheTable:
    def test_queued_jobs_are_numbered_by_queue_oldest_first(self, staff_client, client):
        older = reward_model(1)
        newer = reward_model(2)
        upload = ImportJob.objects.create(original_filename="grades.zip", archive="imports/a.zip")
        RewardModel.objects.filter(pk=older.pk).update(created=timezone.now() - timedelta(1))
        rows = client.get(JOBS).context["rows"]
        places = {(row.kind, row.name): (row.queue, row.position) for row in rows}
        assert places[("Reward model", str(older))] == ("short", 1)
        assert places[("Reward model", str(newer))] == ("short", 2)
        # Its pk, not 1: PostgreSQL's sequences do not restart between tests.
        assert places[("Import", f"Import {upload.pk} of grades.zip: queued")] == ("default", 1)

    def test_every_registered_kind_is_listed_with_its_queue_and_page(self, staff_client, client):
        rows = {row.kind: row for row in client.get(JOBS).context["rows"]}
        assert rows == {}
        made = {kind.label: (kind, job_row(kind)) for kind in job_kinds()}
        rows = {row.kind: row for row in client.get(JOBS).context["rows"]}
        assert set(rows) == set(made) >= {"Calibration", "Import", "Training run"}
        for label, (kind, job) in made.items():
            assert rows[label].queue == kind.queue
            assert rows[label].url == reverse(kind.url_name, args=[getattr(job, kind.url_arg)])

    def test_a_queued_calibration_counts_in_the_train_queue_places(self, staff_client, client):
        calibration = job_row(job_kind("calibration"))
        run = job_row(job_kind("run"))
        Calibration.objects.filter(pk=calibration.pk).update(
            created=timezone.now() - timedelta(1))
        rows = {row.kind: row for row in client.get(JOBS).context["rows"]}
        assert (rows["Calibration"].queue, rows["Calibration"].position) == ("train", 1)
        assert (rows["Training run"].queue, rows["Training run"].position) == ("train", 2)
        assert rows["Calibration"].url == reverse("pool:snapshot",
                                                  args=[calibration.snapshot_id])
        assert str(run) in client.get(JOBS).content.decode()

    def test_a_running_run_shows_its_share_done_and_time_left(self, staff_client, client):
        run = run_create(progress={"step": 1, "max_steps": 4, "eta_s": 240})
        finished = run_create(status="done", name="old run")
        response = client.get(JOBS)
        (row,) = response.context["rows"]
        assert (row.kind, row.status, row.queue, row.position) == (
            "Training run", "Running", "train", None)
        assert (row.percent, row.eta) == (25, "about 4 min left")
        assert reverse("training:run", args=[run.pk]) in response.content.decode()
        assert finished.name not in response.content.decode()

    def test_a_running_job_without_enough_progress_is_estimating(self, staff_client, client):
        reward_model(1, status="running", started=timezone.now(),
                     progress={"stage": "training", "epoch": 0, "max_epochs": 50})
        (row,) = client.get(JOBS).context["rows"]
        assert (row.percent, row.eta) == (0, "estimating…")

    def test_a_kind_reads_its_own_progress(self, staff_client, client):
        own = job_kind("reward_model")
        job_kind_unregister(own.name)
        job_kind_register(dataclasses.replace(
            own, progress=f"{__name__}.three_of_twelve_measured"))
        try:
            reward_model(1, status="running", started=timezone.now(), progress={})
            (row,) = client.get(JOBS).context["rows"]
        finally:
            job_kind_unregister(own.name)
            job_kind_register(own)
        assert (row.percent, row.eta) == (25, "about 2 min left")

    def test_the_policy_build_is_listed_as_any_job(self, staff_client, client, tmp_path):
        from training.models import PolicyBuild

        build = PolicyBuild.objects.create(
            out=str(tmp_path / "builtin"), status="running", started=timezone.now(),
            progress={"message": "training: step 300, loss 1.900", "done": 0.4,
                      "sft_elapsed_s": 240})
        (row,) = client.get(JOBS).context["rows"]
        # Its time left is SFT's pace: 240 s for 40 %, so 360 s.
        assert (row.kind, row.queue, row.percent, row.eta) == (
            "Policy build", "train", 40, "about 6 min left")
        assert row.url == reverse("admin:training_policybuild_change", args=[build.pk])
        PolicyBuild.objects.filter(pk=build.pk).update(status="done")
        assert not client.get(JOBS).context["rows"]  # finished: gone

    def test_pending_renders_are_counted(self, staff_client, client):
        sketch = sketch_services.sketch_create(code="function setup(){}")
        Render.objects.create(sketch=sketch)
        assert "1 render waiting on the" in client.get(JOBS).content.decode()


class TestExternalRuns:
    def test_open_ones_are_listed_with_their_batches_and_scoring_ones_keep_it_polling(
            self, staff_client, client):
        presets_ensure()
        local = Judge.objects.get(name="local")
        rubric = Rubric.objects.create(name="gates", signals=[
            {"name": "gate", "kind": "gate", "weight": 1}])
        served = ExternalRun.objects.create(name="verl-7b", rubric=rubric, judge=local,
                                            scorer=local, status=ExternalRun.Status.OPEN)
        ExternalRun.objects.create(name="draft-one", rubric=rubric, judge=local, scorer=local)
        ExternalBatch.objects.create(run=served, client_key="batch-0001", step=1, size=8,
                                     status=ExternalBatch.Status.DONE)
        text = client.get(JOBS).content.decode()
        [row] = client.get(JOBS).context["external_runs"]
        assert (row.run, row.scoring, row.batches, row.items) == (served, 0, 1, 8)
        assert served.get_absolute_url() in text and "draft-one" not in text
        assert "hx-trigger" not in text
        ExternalBatch.objects.create(run=served, client_key="batch-0002", step=2, size=4)
        assert 'hx-trigger="every 3s"' in client.get(JOBS).content.decode()


class TestRefresh:
    def test_the_table_polls_while_a_job_is_live(self, staff_client, client):
        reward_model(1)
        assert 'hx-trigger="every 3s"' in client.get(JOBS).content.decode()

    def test_it_stops_polling_when_nothing_is_live(self, staff_client, client):
        reward_model(1, status="done")
        text = client.get(JOBS).content.decode()
        assert "No job is queued or running." in text and "hx-trigger" not in text

    def test_a_poll_gets_only_the_table(self, staff_client, client):
        response = client.get(JOBS, headers={"HX-Request": "true"})
        assert response.content.strip().startswith(b'<section id="jobs-table"')


class TestAccess:
    def test_curators_are_refused(self, db, client):
        client.force_login(curator_create("ann"))
        assert client.get(JOBS).status_code == 403


class TestHomePage:
    def test_staff_see_what_is_running_with_a_link_to_its_own_page(self, staff_client, client):
        run = run_create(progress={"step": 2, "max_steps": 4, "eta_s": 30})
        reward_model(1)  # queued: not running
        text = client.get(reverse("home")).content.decode()
        section = text[text.index('id="jobs-running"'):]
        section = section[:section.index("</section>")]
        page = reverse("training:run", args=[run.pk])
        assert (f'<a href="{page}">Training run: hibiscus run</a>, 50 %, '
                "less than a minute left") in section
        assert "Reward model" not in section

    def test_the_navigation_links_the_jobs_page_for_staff_only(self, staff_client, db, client):
        link = f'<a href="{JOBS}">Jobs</a>'
        assert link in client.get(reverse("home")).content.decode()
        client.force_login(curator_create("ann"))
        assert link not in client.get(reverse("home")).content.decode()
