"""Admin list pages cost the same number of queries for one row as for many:
a nullable foreign key in list_display is joined (list_select_related), not
fetched row by row."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext

from pool.models import PoolPin, PoolRule, PoolSnapshot, RewardModel
from sketches.models import ImportJob
from tests.rating_data import renders_create
from training.models import (
    Judge,
    PromptCandidate,
    PromptOptimisation,
    PromptSet,
    Replay,
    Rubric,
    SystemPrompt,
    TrainingRun,
)

pytestmark = pytest.mark.django_db


def add_import_job(i, user):
    ImportJob.objects.create(uploaded_by=user, original_filename=f"f{i}.zip", archive="x.zip")


def add_rule(i, user):
    PoolRule.objects.create(created_by=user, note=f"rule {i}")


def add_pin(i, user):
    render = renders_create(1, prompt=f"pin {i}", start=100 + i)[0]
    PoolPin.objects.create(render=render, action=PoolPin.Action.IN, reason="r", created_by=user)


def add_snapshot(i, user):
    PoolSnapshot.objects.create(name=f"s{i}", rule={}, created_by=user)


def add_reward_model(i, user):
    RewardModel.objects.create(version=i + 1, created_by=user)


# The training admins: a row's foreign keys each point at a row of their own,
# so a per-row fetch of any of them would show. Rows with no user to show
# return the text that marks them on the page.

def add_rubric(i, user):
    Rubric.objects.create(name=f"rubric {i}", created_by=user)
    return f"rubric {i}"


def add_judge(i, user):
    Judge.objects.create(name=f"judge {i}", agreement={"pairwise_accuracy": 0.5})
    return f"judge {i}"


def add_replay(i, user):
    judge = Judge.objects.create(name=f"judge {i}")
    Replay.objects.create(name=f"replay {i}", rubric=Rubric.objects.create(name=f"r{i}"),
                          compare_rubric=Rubric.objects.create(name=f"c{i}"),
                          judge=judge, scorer=judge, created_by=user)


def add_system_prompt(i, user):
    SystemPrompt.objects.create(name=f"prompt {i}", text=f"paint {i}")
    return f"prompt {i}"


def add_prompt_set(i, user):
    PromptSet.objects.create(name=f"set {i}", prompts=["a poppy"])
    return f"set {i}"


def add_training_run(i, user):
    judge = Judge.objects.create(name=f"judge {i}")
    TrainingRun.objects.create(
        name=f"run {i}", prompt_set=PromptSet.objects.create(name=f"set {i}"),
        system_prompt=SystemPrompt.objects.create(name=f"prompt {i}"),
        rubric=Rubric.objects.create(name=f"rubric {i}"), judge=judge, scorer=judge,
        status=TrainingRun.Status.RUNNING, progress={"step": 1, "max_steps": 4},
        snapshot=PoolSnapshot.objects.create(name=f"s{i}", rule={}), created_by=user)


def add_prompt_optimisation(i, user):
    """Two kept candidates and a rejected proposal with a higher mean (over its
    minibatch only): the best column shows the better kept one."""
    judge = Judge.objects.create(name=f"judge {i}")
    job = PromptOptimisation.objects.create(
        name=f"optimisation {i}", prompt_set=PromptSet.objects.create(name=f"set {i}"),
        seed_prompt=SystemPrompt.objects.create(name=f"prompt {i}"),
        rubric=Rubric.objects.create(name=f"rubric {i}"), reflection=judge, judge=judge,
        scorer=judge, created_by=user)
    best = 0.5 + i / 100
    for index, score in enumerate((0.25, best)):
        PromptCandidate.objects.create(optimisation=job, index=index, text=f"paint {index}",
                                       iteration=index, mean_score=score)
    PromptCandidate.objects.create(optimisation=job, text="rejected", iteration=2,
                                   mean_score=0.99)
    return f"{best:.3f} (candidate 1)"


@pytest.mark.parametrize("url, add", [
    ("/admin/sketches/importjob/", add_import_job),
    ("/admin/pool/poolrule/", add_rule),
    ("/admin/pool/poolpin/", add_pin),
    ("/admin/pool/poolsnapshot/", add_snapshot),
    ("/admin/pool/rewardmodel/", add_reward_model),
    ("/admin/training/rubric/", add_rubric),
    ("/admin/training/judge/", add_judge),
    ("/admin/training/replay/", add_replay),
    ("/admin/training/systemprompt/", add_system_prompt),
    ("/admin/training/promptset/", add_prompt_set),
    ("/admin/training/trainingrun/", add_training_run),
    ("/admin/training/promptoptimisation/", add_prompt_optimisation),
])
def test_a_list_page_costs_the_same_queries_for_one_row_as_for_five(client, url, add):
    admin = get_user_model().objects.create_superuser("root", "r@example.com", "x" * 12)
    client.force_login(admin)
    counts = []
    for i in range(5):
        # Each row made by its own user, so a per-row fetch would show.
        user = get_user_model().objects.create_user(f"u{i}", password="x" * 12)
        shown = add(i, user) or user.username
        if i in (0, 4):
            with CaptureQueriesContext(connection) as queries:
                page = client.get(url)
            assert page.status_code == 200
            assert shown.encode() in page.content
            counts.append(len(queries))
    assert counts[0] == counts[1], counts
