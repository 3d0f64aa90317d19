"""The whole loop walked in the real Chromium as a newcomer walks it, on a
fresh database, guided by the pages alone: the home page marks the step to
take next, and each step is taken from the page it links to. Grade the
seeded corpus by keyboard, freeze a pool snapshot, train a reward model from
the admin's form (Activate comes ticked), launch a run of the built-in
policy with the new-run form's own "Save and launch" and watch its page
until it is done, then score the renders in the replay lab with the form's
defaults. Then the curator's own path: staff make an account in the admin and
tick the curator group a fresh install already has; the curator is shown
only the pages they may open, grades, and is refused a staff page with the
site's own 403. At the end every main page, as both roles, holds at 390 px and
1280 px (no sideways scrolling), and a missing page is the site's own 404
with DEBUG on, as in the demo. With PAINTRL_SCREENSHOTS=DIR the walk saves a
screenshot of each of those pages at both widths there (docs/pages.md shows
a few).

Real parts throughout: the painter's sketches rendered by Chromium on a
Celery worker, the reward model trained on it, TRL's GRPO steps run on it.
One worker takes the render, short and train queues, so the walk keeps the
two cores for the browser and the server; the Procfile's separate workers
are tested in tests/test_job_queues.py. The policy is tests/policy_data.py's
test size standing in for the built-in one (its folder is
PAINTRL_POLICY_DIR): it writes sketch-shaped text the gate mostly rejects,
which is all the walk needs."""
from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client

from pool.models import PoolSnapshot, RewardModel
from rating.models import Grade
from sketches.models import Render
from tests import policy_data
from tests.browser import logged_in_context
from tests.lab_data import presets_ensure
from tests.rating_data import curator_create
from tests.train_worker import run_train_worker
from tests.workers import wait_for
from training.models import Replay, Rollout, TrainingRun, TrainingStep

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
# A phone and a laptop: every main page must hold at both, without sideways scrolling.
WIDTHS = {"phone": {"width": 390, "height": 844}, "laptop": {"width": 1280, "height": 900}}


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


def context_as(page, live_server, user):
    """A second browser context, in the walk's browser, logged in as `user`."""
    client = Client()
    client.force_login(user)
    context = page.context.browser.new_context(viewport=WIDTHS["laptop"])
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value,
                          "url": live_server.url}])
    context.set_default_timeout(WAIT_MS)
    return context


def shots_dir() -> Path | None:
    """PAINTRL_SCREENSHOTS, where the walk saves its screenshots when asked."""
    folder = os.environ.get("PAINTRL_SCREENSHOTS", "")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder)


def pages_hold(page, live_server, pages: dict[str, str], role: str) -> None:
    """Each page, at each width, fits the screen: nothing scrolls sideways
    (the document is no wider than the window). Saves screenshots if asked."""
    folder = shots_dir()
    too_wide = []
    for width, viewport in WIDTHS.items():
        page.set_viewport_size(viewport)
        for name, path in pages.items():
            page.goto(f"{live_server.url}{path}")
            page.wait_for_load_state("load")
            sizes = page.evaluate(
                "[document.scrollingElement.scrollWidth, window.innerWidth]")
            if sizes[0] > sizes[1]:
                too_wide.append(f"{name} ({path}) at {width}: {sizes[0]} > {sizes[1]} px")
            if folder:  # every picture in, lazy ones too, before the whole page is taken
                page.evaluate("() => { for (const i of document.images) i.loading = 'eager'; }")
                page.wait_for_function("Array.from(document.images).every(i => i.complete)")
                page.screenshot(path=str(folder / f"{role}-{name}-{width}.png"), full_page=True)
    page.set_viewport_size(WIDTHS["laptop"])
    assert not too_wide, f"{role}: {too_wide}"


def ids_unique(page) -> list[str]:
    """The ids the page uses more than once (a label points at the first)."""
    return page.evaluate("""() => {
        const seen = {};
        for (const el of document.querySelectorAll('[id]')) seen[el.id] = (seen[el.id] || 0) + 1;
        return Object.keys(seen).filter((id) => seen[id] > 1); }""")


def test_a_newcomer_walks_the_loop_from_the_pages(walk, live_server, newcomer, settings,
                                                 caplog):
    from playwright.sync_api import expect

    page, worker = walk
    # A fresh install has the curator group (sketches.access), before anyone makes it.
    group = Group.objects.get(name=django_settings.PAINTRL_CURATOR_GROUP)
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
    grading_holds_its_layout(page)
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

    # 2. Curate the pool and freeze a snapshot; with no name, the page says why not.
    step = next_step(page, live_server)
    expect(step).to_contain_text("Curate the pool and freeze a snapshot")
    expect(page.locator("#next-steps li.step-done").first).to_contain_text("Grade.")
    step.get_by_role("link", name="review it").click()
    expect(page.locator("h1")).to_contain_text("Reference pool")
    assert ids_unique(page) == []
    expect(page.locator(".pool-freeze label", has_text="Note")).to_have_attribute(
        "for", "id_freeze_note")
    page.click(f".pool-freeze button:has-text('Freeze {members} members')")
    expect(page.locator("[role=alert]")).to_contain_text(
        "This field is required: name the snapshot")
    assert not PoolSnapshot.objects.exists()
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
    # Where its grades came from: graded here, none imported.
    expect(page.locator("body")).to_contain_text(f"{len(tiers)} graded in the app")

    # 4. The policy is built (PAINTRL_POLICY_DIR), so the next step is a run,
    # launched from the new-run form's own button.
    step = next_step(page, live_server)
    expect(step).to_contain_text("Launch a run")
    expect(page.locator("#next-steps")).to_contain_text("The built-in policy. Ready")
    expect(page.locator("#next-steps")).to_contain_text("trained on too little to trust")
    step.get_by_role("link", name="new run").click()
    page.fill("#id_name", "my first run")
    for field, value in {"num_generations": "2", "max_steps": "2",
                         "max_completion_length": "48"}.items():
        page.fill(f"#id_{field}", value)
    page.click("input[name=_launch]")
    page.wait_for_url("**/training/runs/*/")
    expect(page.locator(".messages")).to_contain_text("launched, queued on the train worker")
    expect(page.locator("#run-body")).to_contain_text("Done", timeout=RUN_WAIT_MS)

    run = TrainingRun.objects.get(name="my first run")
    assert run.status == "done", run.error
    assert run.rubric.name == "v2" and run.snapshot.name == "first pool"
    assert TrainingStep.objects.filter(run=run).count() == 2
    assert Rollout.objects.filter(run=run).count() == 4
    page.reload()
    # The gallery says why each rollout scored what it did, and the Gate column
    # what it counts.
    expect(page.locator(".run-gate").first).to_be_visible()
    expect(page.locator(".run-gate-note")).to_contain_text("of the step's 2 rollouts")
    gallery_keeps_its_captions_clear(page)

    # Every step done: no step is marked next, and the page says what comes after.
    page.goto(f"{live_server.url}/")
    expect(page.locator("#next-steps li.step-next")).to_have_count(0)
    expect(page.locator("#next-steps li.step-done")).to_have_count(5)
    expect(page.locator("#next-steps")).to_contain_text("Every step has been done once")

    # 5. The replay lab takes its own defaults: the first submit is a replay.
    page.goto(f"{live_server.url}/training/lab/")
    page.click("button:has-text('Score on the worker')")
    page.wait_for_url("**/training/lab/replays/*/")
    replay = Replay.objects.get()
    wait_for(lambda: Replay.objects.get().is_finished, timeout=JOB_WAIT_MS / 1000,
             worker=worker)
    replay.refresh_from_db()
    assert replay.status == "done", replay.error

    # 6. The curator's own path. Staff make the account in the admin...
    page.goto(f"{live_server.url}/admin/auth/user/add/")
    page.fill("#id_username", "cora")
    page.fill("#id_password1", "a-long-password-1")
    page.fill("#id_password2", "a-long-password-1")
    page.click("input[name=_continue]")
    expect(page.locator(".messagelist")).to_contain_text("was added successfully")
    cora = get_user_model().objects.get(username="cora")
    curator = context_as(page, live_server, cora).new_page()
    # ...who, before they are a curator, is shown no page they may not open,
    curator.goto(f"{live_server.url}/")
    expect(curator.locator("body")).to_contain_text("not a curator's yet")
    expect(curator.locator(".topbar nav a", has_text="Grade")).to_have_count(0)
    curator.goto(f"{live_server.url}/rate/")
    expect(curator.locator("h1")).to_have_text("Not allowed")
    expect(curator.locator(".lede")).to_contain_text(f"the {group.name!r} group")
    # ...then tick the group, which is there to tick.
    page.select_option("#id_groups_from", label=group.name)
    page.click("#id_groups_add")
    page.click("input[name=_save]")
    expect(page.locator(".messagelist")).to_contain_text("was changed successfully")
    assert list(cora.groups.values_list("name", flat=True)) == [group.name]
    curator.goto(f"{live_server.url}/")
    nav = curator.locator(".topbar nav")
    for name in ("Grade", "Compare", "Pool"):
        expect(nav.get_by_role("link", name=name, exact=True)).to_have_count(1)
    for name in ("Runs", "Jobs", "Lab", "Admin"):
        expect(nav.get_by_role("link", name=name, exact=True)).to_have_count(0)
    # The staff graded everything there was (enough grades each): more sketches
    # come in, as the home page tells staff to seed them, and wait for the curator.
    graded = set(Render.objects.values_list("pk", flat=True))
    call_command("seed_corpus", count=4, seed=5000, size=CORPUS_SIZE)
    wait_for(lambda: not Render.objects.filter(status="pending").exists(), timeout=180,
             worker=worker)
    waiting = Render.objects.filter(status="ok").exclude(pk__in=graded).count()
    assert waiting >= 2
    curator.goto(f"{live_server.url}/")
    expect(curator.locator("#next-steps")).to_contain_text(f"{waiting} renders wait")
    curator.get_by_role("link", name="Open the grading page").click()
    expect(curator.locator("#grading.js")).to_be_attached()
    keys_help_stays_clear(curator)
    for graded in (1, 2):
        curator.keyboard.press("1")
        expect(curator.locator("#save-status")).to_have_attribute("data-saved", str(graded))
    assert Grade.objects.filter(curator=cora).count() == 2
    curator.goto(f"{live_server.url}/rate/compare/")
    keys_help_stays_clear(curator)
    # A staff page: the site's own 403, logged once, in one line.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="django.request"):
        curator.goto(f"{live_server.url}/jobs/")
    expect(curator.locator(".lede")).to_have_text("Only staff can see the jobs page.")
    refusals = [r for r in caplog.records if "/jobs/" in r.getMessage()]
    assert len(refusals) == 1 and refusals[0].exc_info is None, refusals
    assert refusals[0].getMessage().endswith("Only staff can see the jobs page.")

    # 7. The demo runs with DEBUG on: a missing page is still the site's own.
    settings.DEBUG = True
    curator.goto(f"{live_server.url}/no-such-page/")
    expect(curator.locator("h1")).to_have_text("Not found")
    expect(curator.locator("body")).not_to_contain_text("URLconf")
    settings.DEBUG = False

    # 8. Every main page holds at a phone's width and a laptop's, for both roles.
    render = Render.objects.filter(status="ok").first()
    shared = {"home": "/", "grade": "/rate/", "compare": "/rate/compare/", "pool": "/pool/",
              "snapshot": f"/pool/snapshots/{PoolSnapshot.objects.get().pk}/",
              "render": f"/sketches/renders/{render.pk}/",
              "editor": f"/sketches/{render.sketch_id}/edit/"}
    pages_hold(curator, live_server, {**shared, "not-allowed": "/jobs/",
                                      "not-found": "/no-such-page/"}, "curator")
    pages_hold(page, live_server, {**shared, "runs": "/training/runs/",
                                   "run": f"/training/runs/{run.pk}/",
                                   "lab": "/training/lab/",
                                   "replay": f"/training/lab/replays/{replay.pk}/",
                                   "jobs": "/jobs/", "agreement": "/rate/agreement/",
                                   "import": "/sketches/import/"}, "staff")
    curator.context.close()


def grading_holds_its_layout(page) -> None:
    """`c` opens the code beside the picture without squeezing the picture
    much or wrapping the grade buttons onto a second row; `c` closes it."""
    def picture(box):  # a square picture, fitted (contained) in the stage
        return min(box["width"], box["height"])

    buttons = page.locator(".grade-btn")
    before = page.locator("#stage").bounding_box()
    tops = {round(buttons.nth(i).bounding_box()["y"]) for i in range(buttons.count())}
    assert len(tops) == 1, tops
    page.keyboard.press("c")
    from playwright.sync_api import expect

    expect(page.locator("#code-card")).to_be_visible()
    after = page.locator("#stage").bounding_box()
    assert picture(after) >= picture(before) * 0.9, (before, after)
    tops = {round(buttons.nth(i).bounding_box()["y"]) for i in range(buttons.count())}
    assert len(tops) == 1, tops
    page.keyboard.press("c")
    expect(page.locator("#code-card")).to_be_hidden()


def keys_help_stays_clear(page) -> None:
    """The keyboard help opens inside the window and covers no button."""
    from playwright.sync_api import expect

    expect(page.locator("#comparing.js, #grading.js").first).to_be_attached()
    page.keyboard.press("?")
    help_box = page.locator("#keys-help")
    expect(help_box).to_have_attribute("open", "")
    box = help_box.bounding_box()
    width = page.evaluate("window.innerWidth")
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, (box, width)
    for button in page.locator("main button:visible").all():
        if help_box.locator("button").count() and button in help_box.locator("button").all():
            continue
        other = button.bounding_box()
        if other is None:
            continue
        overlaps = not (other["x"] + other["width"] <= box["x"] or box["x"] + box["width"]
                        <= other["x"] or other["y"] + other["height"] <= box["y"]
                        or box["y"] + box["height"] <= other["y"])
        assert not overlaps, (button.inner_text(), other, box)
    page.keyboard.press("?")


def gallery_keeps_its_captions_clear(page) -> None:
    """No badge lies over a rollout's links or its token count, and a rollout
    with no picture keeps the picture's square."""
    for tile in page.locator(".run-rollout").all():
        links = tile.locator(".run-links").bounding_box()
        for badge in tile.locator(".status, .run-mark").all():
            other = badge.bounding_box()
            if other is None or links is None:
                continue
            assert (other["y"] + other["height"] <= links["y"]
                    or links["y"] + links["height"] <= other["y"]), (other, links)
        holder = tile.locator("img, .run-no-picture").first.bounding_box()
        assert abs(holder["width"] - holder["height"]) <= 2, holder
