"""An imported sketch without its PNG renders within the import's own
deadline (PAINTRL_IMPORT_DEADLINE_S), not the renderer's: rendered now by the
command, and queued, where the render keeps it, so a queued render that was
lost and is rendered again by render_pending has it too. Real Chromium, the
session's pool standing in as the process's shared pool; the import deadline
is set shorter than the pool's so that a slow painting shows which one
stopped it."""
from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import call_command

from paintrl_site.celery import app as celery_app
from sketches import gate
from sketches.importing import import_path
from sketches.importing.conf import MAX_IMPORT_DEADLINE_S, import_deadline_s
from sketches.models import Render
from sketches.tasks import render_task
from tests.chromium import SHORT_DEADLINE_S
from tests.sketch_files import read_sketch
from tests.workers import broker_use

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media")]

# About 15 s of drawing: past SHORT_DEADLINE_S, the import deadline here.
SLOW_PAINTING = read_sketch("slow/paced_lines.js")


@pytest.fixture
def shared(browser_pool, monkeypatch, settings):
    """The session's pool as sketches.renderer.shared_pool(), its deadline
    longer than the import's."""
    monkeypatch.setattr("sketches.renderer._pool", browser_pool)
    settings.PAINTRL_IMPORT_DEADLINE_S = SHORT_DEADLINE_S
    assert browser_pool.config.deadline_s > SHORT_DEADLINE_S
    return browser_pool


def folder(tmp_path):
    root = tmp_path / "batch"
    root.mkdir()
    (root / "slow.js").write_text(SLOW_PAINTING)
    return root


@pytest.fixture
def queued_import(tmp_path, django_capture_on_commit_callbacks):
    """The slow sketch imported without its PNG, its render queued on the
    test's Redis."""
    broker_use()
    with django_capture_on_commit_callbacks(execute=True):
        import_path(folder(tmp_path))


def assert_stopped_at_the_import_deadline(render: Render) -> None:
    assert render.status == Render.Status.REJECTED, render.violations
    assert gate.TIMEOUT in render.violations
    assert f"the {SHORT_DEADLINE_S:g} s deadline" in render.violation_details[gate.TIMEOUT]


@pytest.mark.browser
class TestAnImportRendersWithinItsDeadline:
    def test_rendered_now_by_the_command(self, shared, tmp_path):
        out = StringIO()
        call_command("import_renders", str(folder(tmp_path)), "--now", "--json", stdout=out)
        assert json.loads(out.getvalue())["counts"]["imported"] == 1
        assert_stopped_at_the_import_deadline(Render.objects.get())

    def test_queued_for_a_render_worker(self, shared, queued_import):
        # The message as a render worker takes it off the render queue, and
        # the task's body run on it here.
        with celery_app.connection_for_read() as connection:
            message = connection.SimpleQueue("render").get(timeout=10)
            args, kwargs, _ = message.payload
            message.ack()
        assert args == [Render.objects.get().pk]
        render_task(*args, **kwargs)
        assert_stopped_at_the_import_deadline(Render.objects.get())

    def test_a_lost_queued_render_rendered_again(self, shared, queued_import):
        # The message is lost (a broker flushed, a worker gone): render_pending
        # renders what is still pending, within the deadline it was made with.
        with celery_app.connection_for_read() as connection:
            connection.SimpleQueue("render").clear()
        call_command("render_pending", stdout=StringIO())
        assert_stopped_at_the_import_deadline(Render.objects.get())


class TestTheSetting:
    @pytest.mark.parametrize("value", [0, -1, MAX_IMPORT_DEADLINE_S + 1])
    def test_a_value_out_of_bounds_is_refused_by_name(self, settings, value):
        settings.PAINTRL_IMPORT_DEADLINE_S = value
        with pytest.raises(ImproperlyConfigured, match="PAINTRL_IMPORT_DEADLINE_S"):
            import_deadline_s()

    def test_the_default_is_longer_than_a_training_render(self, settings):
        assert import_deadline_s() > settings.PAINTRL_RENDER_DEADLINE_S
