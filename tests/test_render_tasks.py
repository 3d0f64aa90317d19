"""Queued rendering with the real parts: Redis as the broker, a Celery worker
process on the `render` queue, the database the test wrote to."""
from __future__ import annotations

from pathlib import Path

import pytest
from django.conf import settings

from paintrl_site.celery import app as celery_app
from sketches import services
from sketches.models import Render
from tests.sketch_files import read_sketch
from tests.workers import wait_for


class TestQueuedRendering:
    def test_render_created_in_a_transaction_is_rendered_by_the_worker(self, render_worker):
        sketch = services.sketch_create(code=read_sketch("good/lines.js"), prompt="pencil lines")
        render = services.render_create(sketch=sketch, seed=5)  # queued on commit
        wait_for(lambda: Render.objects.get(pk=render.pk).status != "pending", worker=render_worker)
        render.refresh_from_db()
        assert render.status == "ok", render.violation_details
        assert render.png and Path(render.png.path).read_bytes()[:4] == b"\x89PNG"
        assert render.brush_calls > 0 and render.renderer_version.startswith("harness/")

    def test_batch_task_reports_progress_and_stores_every_render(self, render_worker):
        from sketches.tasks import render_batch_task

        sketches = [services.sketch_create(code=read_sketch("good/lines.js")) for _ in range(3)]
        bad = services.sketch_create(code="function setup(){ createCanvas(50,50); }")
        ids = [Render.objects.create(sketch=s, seed=i).pk for i, s in enumerate(sketches + [bad])]
        result = render_batch_task.delay(ids)
        summary = result.get(timeout=120)
        assert summary["done"] == 4
        assert summary["statuses"] == {"ok": 3, "rejected": 1}
        assert Render.objects.filter(pk__in=ids, status="pending").count() == 0


@pytest.mark.django_db
class TestRenderStore:
    def test_a_redelivered_render_is_not_rendered_twice(self, media, browser_pool):
        sketch = services.sketch_create(code=read_sketch("good/lines.js"))
        render = Render.objects.create(sketch=sketch, seed=1)
        first = services.render_execute(render_id=render.pk, pool=browser_pool)
        again = services.render_execute(render_id=render.pk, pool=browser_pool)
        assert first.status == again.status == "ok"
        assert again.rendered == first.rendered
        assert len(list(Path(media, "renders").rglob("*.png"))) == 1

    def test_render_stopped_at_its_deadline_is_stored_with_its_picture_so_far(
            self, media, short_deadline_browsers, client, django_user_model):
        from django.urls import reverse

        from tests.chromium import SHORT_DEADLINE_S

        sketch = services.sketch_create(code=read_sketch("slow/paced_lines.js"))
        render = Render.objects.create(sketch=sketch, seed=1)
        render = services.render_execute(render_id=render.pk, pool=short_deadline_browsers)
        assert render.status == "rejected" and render.violations == ["timeout"]
        assert render.png and Path(render.png.path).read_bytes()[:4] == b"\x89PNG"
        assert render.brush_calls > 1 and (render.width, render.height) == (120, 100)
        client.force_login(django_user_model.objects.create_user("curator", password="pw-12345678"))
        page = client.get(reverse("sketches:render_detail", args=[render.pk])).content.decode()
        assert (f"Stopped at the {SHORT_DEADLINE_S:g} s deadline in phase running after 0 frames "
                f"and {render.brush_calls} brush calls.") in page
        assert "The picture so far" in page

    def test_queue_routing_sends_render_tasks_to_the_render_queue(self):
        assert settings.CELERY_TASK_ROUTES["sketches.tasks.*"] == {"queue": "render"}
        assert celery_app.conf.task_acks_late is True
        assert celery_app.conf.worker_prefetch_multiplier == 1

    def test_scoring_copy_is_downscaled_to_the_configured_size(self, media, browser_pool,
                                                               settings):
        import io

        from PIL import Image

        from sketches.selectors import render_scoring_png

        settings.PAINTRL_SCORE_SIZE = 64
        sketch = services.sketch_create(code=read_sketch("good/lines.js"))
        render = Render.objects.create(sketch=sketch, seed=1)
        render = services.render_execute(render_id=render.pk, pool=browser_pool)
        assert Image.open(io.BytesIO(render_scoring_png(render))).size == (64, 51)
