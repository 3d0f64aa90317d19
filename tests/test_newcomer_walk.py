"""The whole loop walked in the real Chromium as a newcomer walks it, on a
fresh database, guided by the pages alone: the home page marks the step to
take next, and each step is taken from the page it links to. Grade the
seeded corpus by keyboard, freeze a pool snapshot, train a reward model from
the admin's form (Activate comes ticked), launch a run of the built-in
policy from the admin and watch its page until it is done.

Real parts throughout: the painter's sketches rendered by Chromium on a
Celery worker, the reward model trained on it, TRL's GRPO steps run on it.
One worker takes the render, short and train queues, so the walk keeps the
two cores for the browser and the server; the Procfile's separate workers
are tested in tests/test_job_queues.py. The policy is tests/policy_data.py's
test size standing in for the built-in one (its folder is
PAINTRL_POLICY_DIR): it writes sketch-shaped text the gate mostly rejects,
which is all the walk needs."""
from __future__ import annotations

import pytest
from django.core.management import call_command

from pool.models import PoolSnapshot, RewardModel
from rating.models import Grade
from sketches.models import Render
from tests import policy_data
from tests.browser import logged_in_context
from tests.lab_data import presets_ensure
from tests.rating_data import curator_create
from tests.train_worker import run_train_worker
from tests.workers import wait_for
from training.models import Rollout, TrainingRun, TrainingStep

pytestmark = [pytest.mark.browser, pytest.mark.worker, pytest.mark.training]

# The painter's tiers, graded as a curator with its taste would.
KEY_FOR_TIER = {"good": "1", "fair": "2", "bad": "3"}
# Enough renders that every tier shows up and the reward model has pairs to
# learn from; small enough to render in about 15 s at CORPUS_SIZE.
CORPUS = 18
CORPUS_SIZE = 160
WAIT_MS = 20_000
JOB_WAIT_MS = 120_000  # a reward model on a busy two-core machine
RUN_WAIT_MS = 300_000  # two steps of a real TRL run, rendered and judged


@pytest.fixture
def newcomer(transactional_db):
    return curator_create("newcomer", superuser=True)


@pytest.fixture
def walk(media, live_server, newcomer, settings, tmp_path, monkeypatch):
    """Chromium logged in as the newcomer, one worker on every queue a
    newcomer's steps use, and the built-in policy in its folder."""
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    policy = tmp_path / "policy"
    policy_data.test_policy_build(policy)
    settings.PAINTRL_POLICY_DIR = str(policy)
    presets_ensure()  # what the data migrations installed, before the flush
    worker = run_train_worker(media, settings, queue="render,short,train", env={
        "PAINTRL_POLICY_DIR": str(policy), "PAINTRL_RENDER_BROWSERS": "1",
        "PAINTRL_RENDER_DEADLINE_S": "8"})
    proc = next(worker)
    with logged_in_context(live_server, newcomer, timeout_ms=WAIT_MS) as context:
        yield context.new_page(), proc
    next(worker, None)


def next_step(page, live_server):
    """The home page's one step marked next (a locator), after a fresh load."""
    from playwright.sync_api import expect

    page.goto(f"{live_server.url}/")
    marked = page.locator("#next-steps li.step-next")
    expect(marked).to_have_count(1)
    return marked


def test_a_newcomer_walks_the_loop_from_the_pages(walk, live_server, newcomer):
    from playwright.sync_api import expect

    page, worker = walk
    # What `make demo` seeds, on the render queue.
    call_command("seed_corpus", count=CORPUS, size=CORPUS_SIZE)
    wait_for(lambda: not Render.objects.filter(status="pending").exists(), timeout=180,
             worker=worker)
    gradable = Render.objects.filter(status="ok").select_related("sketch")
    assert gradable.count() >= CORPUS * 2 // 3, list(Render.objects.values("status"))
    tiers = {r.pk: r.sketch.meta["quality"] for r in gradable}
    assert "good" in tiers.values()

    # 1. Grade: the home page says so, and links to the grading page.
    step = next_step(page, live_server)
    expect(step).to_contain_text("Grade.")
    expect(step).to_contain_text(f"{len(tiers)} renders wait for your grade")
    step.get_by_role("link", name="Open the grading page").click()
    # The page takes keys once its script has started (it marks #grading with
    # "js"); a key pressed before that is lost.
    expect(page.locator("#grading.js")).to_be_attached()
    stage = page.locator("#stage")
    for graded in range(1, len(tiers) + 1):
        shown = int(stage.get_attribute("data-render"))
        page.keyboard.press(KEY_FOR_TIER[tiers[shown]])
        expect(page.locator("#save-status")).to_have_attribute("data-saved", str(graded))
    expect(page.locator("#queue-empty")).to_be_visible()
    expect(page.locator("#grade-actions")).to_be_hidden()
    loved = sum(tier == "good" for tier in tiers.values())
    assert Grade.objects.filter(curator=newcomer, value="love").count() == loved
    # The default rule keeps the okay renders as a second tier.
    members = loved + sum(tier == "fair" for tier in tiers.values())

    # 2. Curate the pool and freeze a snapshot.
    step = next_step(page, live_server)
    expect(step).to_contain_text("Curate the pool and freeze a snapshot")
    expect(page.locator("#next-steps li.step-done").first).to_contain_text("Grade.")
    step.get_by_role("link", name="review it").click()
    expect(page.locator("h1")).to_contain_text("Reference pool")
    page.fill(".pool-freeze input[name=name]", "first pool")
    page.click(f".pool-freeze button:has-text('Freeze {members} members')")
    expect(page.locator("body")).to_contain_text(f"Snapshot 'first pool' frozen with {members}")
    assert PoolSnapshot.objects.get().counts["total"] == members

    # 3. Train a reward model; the form comes with Activate ticked, since none is.
    step = next_step(page, live_server)
    expect(step).to_contain_text("No reward model is trained yet")
    step.get_by_role("link", name="Train one").click()
    expect(page.locator("#id_activate")).to_be_checked()
    page.click("input[type=submit][value=Train]")
    expect(page.locator("body")).to_contain_text("on the short worker")
    # The page refreshes itself while the job runs; 18 renders are too few to
    # trust, and the page says so where the model is shown.
    expect(page.locator("body")).to_contain_text("Do not rely on this model",
                                                 timeout=JOB_WAIT_MS)
    model = RewardModel.objects.get()
    assert model.status == "done" and model.active, model.error

    # 4. The policy is built (PAINTRL_POLICY_DIR), so the next step is a run.
    step = next_step(page, live_server)
    expect(step).to_contain_text("Launch a run")
    expect(page.locator("#next-steps")).to_contain_text("The built-in policy. Ready")
    expect(page.locator("#next-steps")).to_contain_text("trained on too little to trust")
    step.get_by_role("link", name="new run").click()
    page.fill("#id_name", "my first run")
    for field, value in {"num_generations": "2", "max_steps": "2",
                         "max_completion_length": "48"}.items():
        page.fill(f"#id_{field}", value)
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    page.click("button:has-text('Launch')")
    page.wait_for_url("**/training/runs/*/")
    expect(page.locator("#run-body")).to_contain_text("Done", timeout=RUN_WAIT_MS)

    run = TrainingRun.objects.get(name="my first run")
    assert run.status == "done", run.error
    assert run.rubric.name == "v2" and run.snapshot.name == "first pool"
    assert TrainingStep.objects.filter(run=run).count() == 2
    assert Rollout.objects.filter(run=run).count() == 4
    page.reload()
    # The gallery says why each rollout scored what it did.
    expect(page.locator(".run-gate").first).to_be_visible()

    # Every step done: no step is marked next, and the page says what comes after.
    page.goto(f"{live_server.url}/")
    expect(page.locator("#next-steps li.step-next")).to_have_count(0)
    expect(page.locator("#next-steps li.step-done")).to_have_count(5)
    expect(page.locator("#next-steps")).to_contain_text("Every step has been done once")
