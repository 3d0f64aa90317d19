"""The test tiers: which markers a test gets from the fixtures it uses
(tests/conftest.py applies them at collection; pyproject.toml registers
them; `make test-fast` runs `-m "not browser and not worker and not
training"`), and the guard that keeps Chromium and workers out of the fast
tier.

A test in a slow tier (browser, worker, training) gets that tier alone; any
other gets `unit` (no database) or `services` (the database), so `-m unit`
never starts a browser. A test is tiered by the fixtures it uses
(TIER_FIXTURES), so a new test that takes `browser_pool` or `train_worker` is
tiered by construction; a test that starts Chromium or a worker by hand
carries the marker itself, and the helpers that start them call
tier_require, which fails a test that does not."""
from __future__ import annotations

from collections.abc import Iterable

import pytest

# The slow tiers, by the fixtures that put a test in them. `live_server` is
# here because every test that serves the app to a page drives Chromium.
TIER_FIXTURES = {
    "browser": {"browser_pool", "short_deadline_browsers", "live_server", "render_worker"},
    "worker": {"render_worker", "train_worker", "short_worker"},
    "training": {"test_policy", "canned_policy"},
}
SLOW_TIERS = tuple(TIER_FIXTURES)
# (Not django_db_blocker: pytest-django's autouse fixtures take it for every test.)
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences",
                     "django_db_serialized_rollback"}
# The test running now, for tier_require (conftest.py sets it as each test is set up).
current: dict = {}


def tiers_of(fixtures: Iterable[str], marked: Iterable[str], *, database: bool) -> set[str]:
    """The tier markers of a test that uses `fixtures`, carries the markers
    `marked` already, and uses the database (a fixture of DATABASE_FIXTURES
    or the django_db mark) when `database` (module docstring)."""
    fixtures, marked = set(fixtures), set(marked)
    slow = {tier for tier, needs in TIER_FIXTURES.items() if fixtures & needs}
    slow |= marked & set(SLOW_TIERS)
    if slow:
        return slow
    return {"services"} if database or fixtures & DATABASE_FIXTURES else {"unit"}


def tier_require(tier: str, what: str) -> None:
    """Fail the running test unless it is in a slow tier (`tier`, which it
    should carry, or another): `make test-fast` must never start Chromium or
    a worker because a test forgot its marker."""
    item = current.get("item")
    if item is not None and not any(item.get_closest_marker(t) for t in SLOW_TIERS):
        pytest.fail(f"{item.nodeid} starts {what} but is not marked `{tier}`: add "
                    f"@pytest.mark.{tier} (or use a fixture of tests/tiers.py's "
                    "TIER_FIXTURES), so `make test-fast` leaves it out.")
