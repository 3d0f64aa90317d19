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


@pytest.mark.parametrize("url, add", [
    ("/admin/sketches/importjob/", add_import_job),
    ("/admin/pool/poolrule/", add_rule),
    ("/admin/pool/poolpin/", add_pin),
    ("/admin/pool/poolsnapshot/", add_snapshot),
    ("/admin/pool/rewardmodel/", add_reward_model),
])
def test_a_list_page_costs_the_same_queries_for_one_row_as_for_five(client, url, add):
    admin = get_user_model().objects.create_superuser("root", "r@example.com", "x" * 12)
    client.force_login(admin)
    counts = []
    for i in range(5):
        # Each row made by its own user, so a per-row fetch would show.
        user = get_user_model().objects.create_user(f"u{i}", password="x" * 12)
        add(i, user)
        if i in (0, 4):
            with CaptureQueriesContext(connection) as queries:
                page = client.get(url)
            assert page.status_code == 200
            assert f"u{i}".encode() in page.content
            counts.append(len(queries))
    assert counts[0] == counts[1], counts
