"""The tier markers a test gets (tests/tiers.py): a slow tier alone where a
fixture or a mark puts it in one, else unit or services by the database."""
from __future__ import annotations

from tests.tiers import SLOW_TIERS, tiers_of

TIERS = {"unit", "services", *SLOW_TIERS}


def tiers(request) -> set[str]:
    return {mark.name for mark in request.node.iter_markers()} & TIERS


class TestTiersOf:
    def test_a_test_with_no_database_is_unit(self):
        assert tiers_of({"tmp_path"}, set(), database=False) == {"unit"}

    def test_a_database_fixture_or_mark_is_services(self):
        assert tiers_of({"transactional_db"}, set(), database=False) == {"services"}
        assert tiers_of(set(), set(), database=True) == {"services"}

    def test_a_browser_test_without_a_database_is_not_unit(self):
        assert tiers_of({"browser_pool"}, set(), database=False) == {"browser"}
        assert tiers_of(set(), {"browser"}, database=False) == {"browser"}

    def test_a_slow_test_with_a_database_is_its_slow_tiers_alone(self):
        assert tiers_of({"render_worker", "db"}, set(), database=True) == {"browser", "worker"}
        assert tiers_of({"test_policy"}, {"worker"}, database=True) == {"training", "worker"}

    def test_a_light_policy_folder_stays_in_the_fast_tier(self):
        assert tiers_of({"policy_folder", "db"}, set(), database=True) == {"services"}


class TestAsCollected:
    def test_this_test_is_unit(self, request):
        assert tiers(request) == {"unit"}

    def test_this_one_is_services(self, request, db):
        assert tiers(request) == {"services"}
