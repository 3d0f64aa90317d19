"""Shared fixtures, and the test tiers. Browser tests use the real Chromium;
where it is missing they fail and say how to install it (they never skip).

Every test gets one tier marker of unit/services, plus browser, worker or
training where it needs them (pyproject.toml registers them; `make
test-fast` runs `-m "not browser and not worker and not training"`). A test
is tiered by the fixtures it uses (TIER_FIXTURES), so a new test that takes
`render_pool` or `train_worker` is tiered by construction; a test that
starts Chromium or a worker by hand carries the marker itself, and the
helpers that start them fail a test that does not."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from sketches.renderer import RendererConfig, RenderPool

SKETCHES_DIR = Path(__file__).parent / "sketches"

# The slow tiers, by the fixtures that put a test in them. `live_server` is
# here because every test that serves the app to a page drives Chromium.
TIER_FIXTURES = {
    "browser": {"render_pool", "short_deadline_pool", "live_server", "render_worker"},
    "worker": {"render_worker", "train_worker", "short_worker"},
    "training": {"test_policy", "canned_policy"},
}
# (Not django_db_blocker: pytest-django's autouse fixtures take it for every test.)
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences",
                     "django_db_serialized_rollback"}
# The test running now, for tier_require (set as each test is set up).
_current: dict = {}


def pytest_collection_modifyitems(config, items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        for tier, fixtures in TIER_FIXTURES.items():
            if names & fixtures:
                item.add_marker(tier)
        if item.get_closest_marker("django_db") or names & DATABASE_FIXTURES:
            item.add_marker("services")
        else:
            item.add_marker("unit")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _current["item"] = item  # before its fixtures start anything


def tier_require(tier: str, what: str) -> None:
    """Fail the running test unless it is in a slow tier (`tier`, which it
    should carry, or another): `make test-fast` must never start Chromium or
    a worker because a test forgot its marker."""
    item = _current.get("item")
    if item is not None and not any(item.get_closest_marker(t) for t in TIER_FIXTURES):
        pytest.fail(f"{item.nodeid} starts {what} but is not marked `{tier}`: add "
                    f"@pytest.mark.{tier} (or use a fixture of tests/conftest.py's "
                    "TIER_FIXTURES), so `make test-fast` leaves it out.")


# Short enough that the hostile corpus runs quickly, long enough for every
# honest test sketch (the slowest takes about 2.5 s on a cold browser here).
TEST_DEADLINE_S = 8.0
# A deadline that stops tests/sketches/slow/paced_lines.js (about 15 s of
# drawing) after a few hundred strokes, with setup well past its first.
SHORT_DEADLINE_S = 1.5


def chromium_path() -> str:
    tier_require("browser", "Chromium")
    path = os.environ.get("PAINTRL_CHROMIUM_PATH", "/usr/bin/chromium")
    if not os.access(path, os.X_OK):
        pytest.fail(f"Chromium is required at {path}: run `apt-get install chromium` "
                    "(make test does this as root) or set PAINTRL_CHROMIUM_PATH.")
    return path


def make_config(**overrides) -> RendererConfig:
    return RendererConfig(chromium_path=chromium_path(),
                          **{"deadline_s": TEST_DEADLINE_S, **overrides})


@pytest.fixture(scope="session")
def render_pool():
    """One pool of two browsers for the whole session."""
    with RenderPool(make_config(browsers=2)) as pool:
        yield pool


@pytest.fixture(scope="session")
def short_deadline_pool():
    """One browser whose deadline (SHORT_DEADLINE_S) stops slow sketches early."""
    with RenderPool(make_config(browsers=1, deadline_s=SHORT_DEADLINE_S)) as pool:
        yield pool


def read_sketch(relative: str) -> str:
    return (SKETCHES_DIR / relative).read_text()


@pytest.fixture
def render_worker(transactional_db, media, settings):
    """A real Celery worker process on the `render` queue (Redis database 15),
    sharing this test's database and `media`."""
    from tests.workers import run_render_worker

    yield from run_render_worker(media, settings)


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


@pytest.fixture(scope="session")
def canned_policy(tmp_path_factory) -> Path:
    """The folder of a canned policy (training.policy.canned): a real checkpoint that writes
    only painter sketches the gate passes, so success paths run on a real worker. Built once
    per session."""
    from training.policy.canned import canned_policy_build

    return canned_policy_build(tmp_path_factory.mktemp("policy") / "canned-policy")
