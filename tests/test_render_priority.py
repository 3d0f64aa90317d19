"""A render a person asked for goes ahead of bulk corpus renders on the real
render queue (Redis priorities, a real worker), and its page reloads itself
until it is done."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import transaction
from django.urls import reverse

from sketches import services
from sketches.models import Render
from tests.sketch_files import read_sketch
from tests.workers import wait_for

BULK_RENDERS = 12


def test_an_asked_render_overtakes_the_bulk_queued_before_it(render_worker):
    code = read_sketch("good/lines.js")
    with transaction.atomic():
        bulk = [services.render_create(sketch=services.sketch_create(code=code, prompt=f"b{i}"),
                                       seed=i, priority=services.BULK)
                for i in range(BULK_RENDERS)]
    asked = services.render_create(sketch=services.sketch_create(code=code, prompt="mine"),
                                   seed=99)
    wait_for(lambda: not Render.objects.filter(status="pending").exists(), worker=render_worker,
             timeout=240)
    asked.refresh_from_db()
    finished = sorted(Render.objects.filter(pk__in=[r.pk for r in bulk])
                      .values_list("rendered", flat=True))
    after = sum(1 for when in finished if when > asked.rendered)
    # The worker had taken a few bulk renders (two threads, one message each
    # reserved) before the asked one arrived; the rest waited behind it.
    assert asked.status == "ok"
    assert after >= BULK_RENDERS - 5, (after, asked.rendered, finished)


@pytest.mark.django_db
def test_a_pending_render_page_reloads_itself_and_a_finished_one_does_not(client):
    client.force_login(get_user_model().objects.create_user("c", password="a-long-password-1"))
    sketch = services.sketch_create(code="function setup(){}")
    pending = Render.objects.create(sketch=sketch)
    page = client.get(reverse("sketches:render_detail", args=[pending.pk])).content.decode()
    assert '<meta http-equiv="refresh" content="3">' in page
    assert "waiting for a worker" in page and "0×0" not in page
    done = Render.objects.create(sketch=sketch, status="ok", width=40, height=30)
    page = client.get(reverse("sketches:render_detail", args=[done.pk])).content.decode()
    assert 'http-equiv="refresh"' not in page and "40×30" in page
