"""Shared fixtures, and the test tiers applied at collection (tests/tiers.py
says which a test gets and why). Browser tests use the real Chromium; where
it is missing they fail and say how to install it (they never skip).

Helpers live in their own modules (tests/chromium.py, tests/sketch_files.py,
tests/workers.py, tests/*_data.py); a test module imports those, never this
file."""
from __future__ import annotations

from pathlib import Path

import pytest

from sketches.renderer import RenderPool
from tests.chromium import SHORT_DEADLINE_S, make_config
from tests.tiers import current, tiers_of


def pytest_collection_modifyitems(config, items):
    for item in items:
        marked = {mark.name for mark in item.iter_markers()}
        for tier in tiers_of(getattr(item, "fixturenames", ()), marked,
                             database=item.get_closest_marker("django_db") is not None):
            item.add_marker(tier)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    current["item"] = item  # before its fixtures start anything


@pytest.fixture(scope="session")
def browser_pool():
    """One browser pool (the renderer's RenderPool, not the reference pool) of
    two browsers for the whole session."""
    with RenderPool(make_config(browsers=2)) as pool:
        yield pool


@pytest.fixture(scope="session")
def short_deadline_browsers():
    """One browser whose deadline (SHORT_DEADLINE_S) stops slow sketches early."""
    with RenderPool(make_config(browsers=1, deadline_s=SHORT_DEADLINE_S)) as pool:
        yield pool


@pytest.fixture
def render_worker(transactional_db, media, settings):
    """A real Celery worker process on the `render` queue (Redis database 15),
    sharing this test's database and `media`."""
    from tests.workers import run_render_worker

    yield from run_render_worker(media, settings)


@pytest.fixture
def fleet_watch_fresh():
    """The reward service's view of the render fleet asked afresh: it keeps
    what it heard for seconds, across tests in one process."""
    from training.external.services import fleet_watch

    fleet_watch.forget()
    yield fleet_watch
    fleet_watch.forget()


@pytest.fixture
def train_worker(transactional_db, media, settings):
    """A real Celery worker process on the `train` queue, sharing this test's
    database and `media`."""
    from tests.train_worker import run_train_worker

    yield from run_train_worker(media, settings)


@pytest.fixture
def short_worker(transactional_db, media, settings):
    """A real Celery worker process on the `short` queue (reward models,
    scoring, replays), sharing this test's database and `media`."""
    from tests.train_worker import run_short_worker

    yield from run_short_worker(media, settings)


@pytest.fixture
def media(settings, tmp_path) -> Path:
    """This test's own MEDIA_ROOT (tmp_path/media, so a test's other files in
    tmp_path stay apart from the app's) and reward-model decode cache. The
    worker fixtures share it with their worker process."""
    root = tmp_path / "media"
    settings.MEDIA_ROOT = root
    settings.PAINTRL_REWARD_CACHE_DIR = str(tmp_path / "reward_cache")
    return root


@pytest.fixture
def staff(db):
    """A staff member ("boss") who is not a superuser: what the app's staff
    pages let in. pytest-django's `admin_user` is the superuser."""
    from tests.rating_data import curator_create

    return curator_create("boss", staff=True)


@pytest.fixture
def staff_client(client, staff):
    """The test client logged in as `staff`."""
    client.force_login(staff)
    return client


@pytest.fixture(scope="session")
def test_policy(tmp_path_factory) -> Path:
    """The folder of tests/policy_data.py's test-size policy, built once per
    session: it writes sketch-shaped text, so its rollouts go through the
    browser; few pass the gate. Tests read it and never write into it."""
    from tests.policy_data import test_policy_build

    out = tmp_path_factory.mktemp("policy") / "test-policy"
    test_policy_build(out)
    return out


@pytest.fixture
def policy_folder(tmp_path) -> Path:
    """A policy folder with no weights (tests/policy_data.py policy_folder_write):
    enough for a launch and its refusals, which never load the policy, so
    those tests stay out of the `training` tier."""
    from tests.policy_data import policy_folder_write

    return policy_folder_write(tmp_path / "policy")


@pytest.fixture(scope="session")
def canned_policy(tmp_path_factory) -> Path:
    """The folder of a canned policy (training.policy.canned): a real checkpoint that writes
    only painter sketches the gate passes, so success paths run on a real worker. Built once
    per session."""
    from training.policy.canned import canned_policy_build

    return canned_policy_build(tmp_path_factory.mktemp("policy") / "canned-policy")


@pytest.fixture
def offline_datasets(monkeypatch, tmp_path):
    """`datasets` as an export's user loads it here: told it has no network
    (the hub is unreachable from these machines), with a cache of its own."""
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    import datasets

    return datasets
