"""A training run launched from the admin in the real Chromium, against a
live server and a real train worker: the staff member fills in the add form,
saves, presses Launch, lands on the run page and watches it finish (the page
polls); the database then holds its steps, rollouts and renders. A curator
gets no admin and cannot post the launch button's form."""
from __future__ import annotations

import pytest
from django.urls import reverse

from tests.browser import logged_in_context
from tests.lab_data import presets_ensure
from tests.rating_data import curator_create
from tests.run_data import RUBRIC, WORKER_ENV, fresh
from tests.workers import run_worker
from training.models import Rollout, Rubric, TrainingRun, TrainingStep

WAIT_MS = 20_000
RUN_WAIT_MS = 240_000  # two steps of a real TRL run on a busy two-core machine


@pytest.fixture
def boss(transactional_db):
    return curator_create("boss", superuser=True)


@pytest.fixture
def page(media, live_server, boss, settings, monkeypatch):
    """Chromium logged in as staff, and a train worker."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    worker = run_worker("train", media, settings, env=WORKER_ENV)
    next(worker)
    with logged_in_context(live_server, boss, timeout_ms=WAIT_MS) as context:
        yield context.new_page()
    next(worker, None)


@pytest.mark.worker
def test_launch_from_the_admin_and_watch_the_run_finish(page, live_server, test_policy):
    from playwright.sync_api import expect

    presets_ensure()  # the add form starts from them
    Rubric.objects.create(name="ramp", signals=RUBRIC)
    page.goto(f"{live_server.url}{reverse('admin:training_trainingrun_add')}")
    page.fill("#id_name", "from the browser")
    page.fill("#id_base_model", str(test_policy))
    page.select_option("#id_rubric", label="ramp (rev. 1)")
    for field, value in {"num_generations": "2", "max_steps": "2",
                         "max_completion_length": "48", "learning_rate": "0.0001"}.items():
        page.fill(f"#id_{field}", value)
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")

    page.click("button:has-text('Launch')")
    page.wait_for_url("**/training/runs/*/")
    run = TrainingRun.objects.get(name="from the browser")
    expect(page.locator("h1")).to_contain_text("from the browser")
    # The page polls while the run works and shows it done without a reload.
    expect(page.locator("#run-body")).to_contain_text("Done", timeout=RUN_WAIT_MS)

    run = fresh(run)
    assert run.status == "done", run.error
    assert run.created_by is not None and run.launched_config["rubric"]["signals"] == RUBRIC
    assert list(TrainingStep.objects.filter(run=run).values_list("step", flat=True)) == [1, 2]
    rollouts = Rollout.objects.filter(run=run)
    assert rollouts.count() == 4
    assert all(r.sketch.origin == "rollout" and r.render is not None for r in rollouts)
    page.reload()
    assert page.locator("svg").count() >= 5  # the curves and the diagnostics


@pytest.mark.django_db
def test_a_curator_cannot_reach_the_admin_or_launch(client, test_policy):
    from tests.run_data import make_run

    run = make_run(test_policy)
    client.force_login(curator_create("alice"))
    launch = reverse("admin:training_trainingrun_launch", args=[run.pk])
    assert client.get(reverse("admin:training_trainingrun_changelist")).status_code == 302
    response = client.post(launch)
    assert response.status_code == 302 and "/admin/login/" in response["Location"]
    assert fresh(run).status == "draft"
