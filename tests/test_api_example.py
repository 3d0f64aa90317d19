"""The client example of docs/api.md, run as a user runs it: docs/api_example.py
in its own process, speaking only HTTP to a live server, with a real render
worker and a real train worker behind it. It creates 20 sketches, waits for
their renders, grades them as a curator, freezes a snapshot, launches a
2-step run and polls it to done; the database then holds what it asked for.
docs/api.md shows the same file, so the docs cannot drift from what ran."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from api.tokens import token_create
from pool.models import PoolSnapshot
from rating.models import Grade
from sketches.models import Render
from tests.lab_data import presets_ensure
from tests.rating_data import curator_create
from tests.run_data import WORKER_ENV
from tests.workers import run_render_worker, run_worker
from training.models import Rollout, TrainingRun, TrainingStep

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "docs" / "api_example.py"
GUIDE = ROOT / "docs" / "api.md"
# Twenty light renders and two steps of a real TRL run on a busy two-core machine.
SCRIPT_TIMEOUT_S = 900


@pytest.fixture
def workers(transactional_db, tmp_path, settings):
    """A render worker and a train worker sharing this test's database and media."""
    render = run_render_worker(tmp_path, settings)
    next(render)
    train = run_worker("train", tmp_path, settings, env=WORKER_ENV)
    next(train)
    yield
    next(train, None)
    next(render, None)


def test_the_guide_shows_the_script_that_runs():
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)
    assert SCRIPT.read_text() in blocks, "docs/api.md must show docs/api_example.py as it is"


@pytest.mark.worker
def test_the_example_script_runs_the_loop_over_http(live_server, workers, test_policy):
    presets_ensure()  # what migrate installs: rubrics, the local judge, the prompt set
    boss = curator_create("boss", superuser=True)
    cora = curator_create("cora")
    staff_token = token_create(user=boss, name="example")[1]
    curator_token = token_create(user=cora, name="example")[1]
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--url", live_server.url, "--base-model", str(test_policy),
         "--name", "from the example", "--timeout", str(SCRIPT_TIMEOUT_S - 60)],
        env={"PATH": "/usr/bin:/bin", "PAINTRL_API_TOKEN": staff_token,
             "PAINTRL_CURATOR_TOKEN": curator_token},
        capture_output=True, text=True, timeout=SCRIPT_TIMEOUT_S)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = json.loads(done.stdout.strip().splitlines()[-1])

    renders = Render.objects.filter(pk__in=summary["renders"])
    assert renders.count() == 20 and not renders.filter(status="pending").exists()
    ok = renders.filter(status="ok")
    assert summary["ok"] == ok.count() > 0
    # Every ok render graded once, by the curator, in the app's own way.
    assert set(Grade.objects.filter(curator=cora, source="app").values_list("render", flat=True)) \
        == set(ok.values_list("pk", flat=True))
    snapshot = PoolSnapshot.objects.get(pk=summary["snapshot"])
    assert snapshot.members.count() == ok.count() == snapshot.counts["total"]
    run = TrainingRun.objects.get(pk=summary["run"])
    assert run.status == "done", run.error
    assert run.snapshot == snapshot and run.created_by == boss
    assert run.launched_config["launched_by"] == "boss"
    assert list(TrainingStep.objects.filter(run=run).values_list("step", flat=True)) == [1, 2]
    assert summary["steps"] == [1, 2]
    assert Rollout.objects.filter(run=run).count() == 4  # 2 steps x 1 prompt x 2 generations
