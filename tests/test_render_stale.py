"""Bringing a corpus to the current renderer: `render_pending --stale` with
the real parts (Chromium, storage under a temporary MEDIA_ROOT), the
selector that says which renders are stale, and a re-render whose browsers
are gone for real, which must lose nothing."""
from __future__ import annotations

import io
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest
from django.core.files.base import ContentFile
from django.core.management import call_command

from pool.models import PoolMember, PoolSnapshot
from sketches import selectors, services
from sketches.models import IMPORTED_RENDERER, Render
from sketches.renderer import RenderPool
from sketches.rendering import renderer_version
from tests import chromium_relay
from tests.chromium import chromium_path, make_config
from tests.pool_data import grades_give
from tests.rating_data import png_bytes
from tests.sketch_files import read_sketch
from tests.workers import wait_for

LINES = read_sketch("good/lines.js")
OLD_VERSION = "harness/2 p5@2.2.3 p5.brush@2.2.2"


def stored_render(*, version: str, status: str = "ok", png_index: int = 0,
                  seed: int = 3) -> Render:
    """A finished render of the pencil-lines sketch as some renderer stored
    it: `version`, `status` and a small PNG of one colour (never what the
    current renderer paints, so a re-render shows)."""
    sketch = services.sketch_create(code=LINES, prompt="pencil lines")
    render = Render.objects.create(sketch=sketch, seed=seed, status=status, width=48, height=48,
                                   renderer_version=version, brush_calls=1)
    render.png.save("render.png", ContentFile(png_bytes(png_index)), save=True)
    return render


def as_stored(render: Render) -> tuple:
    render.refresh_from_db()
    return (render.status, render.renderer_version, render.png.name, render.rendered,
            render.brush_calls)


class TestCurrentVersion:
    def test_worked_out_without_a_browser_it_is_what_a_pool_stamps(self, browser_pool):
        assert selectors.renderer_version_current() == renderer_version(browser_pool)


@pytest.mark.django_db
class TestStaleSelector:
    def test_finished_renders_of_another_renderer_are_stale_imported_and_pending_never(
            self, media):
        current = selectors.renderer_version_current()
        stale = [stored_render(version=OLD_VERSION).pk,
                 stored_render(version=OLD_VERSION, status="rejected").pk,
                 stored_render(version=OLD_VERSION, status="unavailable").pk,
                 stored_render(version="").pk]  # no version recorded: not the current one
        stored_render(version=current)
        stored_render(version=IMPORTED_RENDERER)
        Render.objects.create(sketch=services.sketch_create(code=LINES),
                              renderer_version=OLD_VERSION)  # pending: render_pending's
        assert selectors.renders_stale_ids() == stale
        assert selectors.renders_stale_ids(2) == stale[:2]


@pytest.mark.browser
@pytest.mark.django_db
class TestRerenderCommand:
    def test_stale_renders_are_rerendered_in_place_and_the_rest_left_alone(
            self, media, settings, django_capture_on_commit_callbacks):
        settings.PAINTRL_CHROMIUM_PATH = chromium_path()
        settings.PAINTRL_RENDER_BROWSERS = 1
        current = selectors.renderer_version_current()
        stale = stored_render(version=OLD_VERSION, png_index=1)
        grades_give(stale, "love", "okay")
        # A second stale one whose picture a frozen snapshot reads.
        frozen = stored_render(version=OLD_VERSION, png_index=2, seed=4)
        snapshot = PoolSnapshot.objects.create(name="frozen before harness 3", rule={}, counts={})
        PoolMember.objects.create(snapshot=snapshot, render=frozen, tier="love", code=LINES,
                                  seed=frozen.seed, png=frozen.png.name)
        up_to_date = stored_render(version=current, png_index=3)
        imported = stored_render(version=IMPORTED_RENDERER, png_index=4)
        untouched = {r.pk: as_stored(r) for r in (up_to_date, imported)}
        old_files = {r.pk: Path(r.png.path) for r in (stale, frozen)}

        out = io.StringIO()
        with django_capture_on_commit_callbacks(execute=True):
            call_command("render_pending", "--stale", stdout=out)

        for render in (stale, frozen):
            status, version, png, _, brush_calls = as_stored(render)
            assert (status, version) == ("ok", current), render.violation_details
            assert brush_calls > 1 and (render.width, render.height) == (200, 160)
            assert Path(render.png.path).read_bytes() != png_bytes(1)
        # The same row: its grades and snapshot membership still point at it.
        assert sorted(stale.grades.values_list("value", flat=True)) == ["love", "okay"]
        assert PoolMember.objects.get(snapshot=snapshot).render_id == frozen.pk
        # The old picture is gone, except the one the frozen snapshot reads.
        assert not old_files[stale.pk].exists()
        assert old_files[frozen.pk].read_bytes() == png_bytes(2)
        assert {r.pk: as_stored(r) for r in (up_to_date, imported)} == untouched
        summary = out.getvalue()
        assert "2 re-rendered (2 ok), 0 kept as they were (unavailable); 0 still stale" \
            in summary, summary

        out = io.StringIO()
        call_command("render_pending", "--stale", stdout=out)
        assert out.getvalue().startswith("nothing stale"), out.getvalue()


@pytest.fixture
def browser_folder():
    """A folder Chromium may read and write: a root worker runs it as the
    sandbox user (sketches/renderer/os_sandbox.py), who cannot enter
    pytest's tmp_path (root's alone)."""
    with tempfile.TemporaryDirectory(prefix="paintrl-browser-") as folder:
        os.chmod(folder, 0o777)
        yield Path(folder)


def chromium_that_stops_launching(folder: Path) -> tuple[Path, Path, Path]:
    """A `chromium` that is the real one until its stop file exists, then a
    program that exits at once; it records each browser's process id."""
    stop, pids = folder / "stop", folder / "pids"
    wrapper = folder / "chromium"
    wrapper.write_text(f"""#!/bin/sh
[ -e "{stop}" ] && exit 1
echo $$ >> "{pids}"
exec "{chromium_path()}" "$@"
""")
    wrapper.chmod(0o755)
    return wrapper, stop, pids


@pytest.mark.browser
@pytest.mark.django_db
class TestUnavailableRerender:
    def test_a_rerender_without_a_browser_keeps_the_old_png_verdict_and_version(
            self, media, browser_folder, django_capture_on_commit_callbacks):
        render = stored_render(version=OLD_VERSION, png_index=5)
        before = as_stored(render)
        wrapper, stop, pids = chromium_that_stops_launching(browser_folder)
        with RenderPool(replace(make_config(browsers=2), chromium_path=str(wrapper))) as pool:
            # Both browsers die, as a lost machine's would, and none relaunches.
            stop.touch()
            browsers = [int(pid) for pid in pids.read_text().split()]
            chromium_relay.kill(browsers)
            wait_for(lambda: not any(psutil.pid_exists(pid) and
                                     psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
                                     for pid in browsers), timeout=30)
            # A margin for Playwright to mark them disconnected, so the pool
            # tells the browser's failure from the sketch's.
            time.sleep(0.5)
            with django_capture_on_commit_callbacks(execute=True):
                [rerender] = services.renders_rerender(render_ids=[render.pk], pool=pool)
            assert (rerender.status, rerender.replaced) == ("unavailable", False)
            assert as_stored(render) == before
            assert Path(render.png.path).read_bytes() == png_bytes(5)
            assert selectors.renders_stale_ids() == [render.pk]

            # Chromium is back: the next run replaces it.
            os.remove(stop)
            [retried] = services.renders_rerender(render_ids=[render.pk], pool=pool)
        assert (retried.status, retried.replaced) == ("ok", True)
        assert as_stored(render)[:2] == ("ok", selectors.renderer_version_current())
