"""seed_corpus: painter sketches stored once per seed and rendered by a real
render worker from the `render` queue."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from sketches.models import Render, Sketch
from tests.workers import wait_for


def seed(capsys, **options) -> str:
    call_command("seed_corpus", **options)
    return capsys.readouterr().out


@pytest.mark.django_db
class TestSeeding:
    def test_stores_one_procedural_sketch_per_seed_with_its_prompt(self, capsys):
        out = seed(capsys, count=6, seed=100, size=160)
        sketches = list(Sketch.objects.order_by("meta__seed"))
        assert [s.meta["seed"] for s in sketches] == list(range(100, 106))
        assert all(s.origin == Sketch.Origin.PROCEDURAL and s.prompt for s in sketches)
        assert Render.objects.filter(status="pending").count() == 6
        assert "6 sketches added" in out and "seeding: 6/6" in out

    def test_running_twice_adds_nothing_and_overlapping_ranges_add_only_new_seeds(self, capsys):
        seed(capsys, count=4, seed=0, size=160)
        again = seed(capsys, count=4, seed=0, size=160)
        assert "0 sketches added" in again and "4 already there" in again
        seed(capsys, count=6, seed=2, size=160)
        assert sorted(Sketch.objects.values_list("meta__seed", flat=True)) == list(range(8))
        assert Render.objects.count() == 8

    def test_rejects_a_canvas_larger_than_the_renderer_allows(self, settings):
        settings.PAINTRL_RENDER_MAX_CANVAS_SIDE = 600
        with pytest.raises(CommandError, match="--size must be between 32 and 600"):
            call_command("seed_corpus", count=1, size=800, stdout=io.StringIO())


def test_seeded_renders_are_rendered_by_the_render_worker(render_worker):
    call_command("seed_corpus", count=2, seed=7, size=160, stdout=io.StringIO())
    ids = list(Render.objects.values_list("pk", flat=True))
    wait_for(lambda: not Render.objects.filter(pk__in=ids, status="pending").exists(),
             timeout=120, worker=render_worker)
    renders = Render.objects.filter(pk__in=ids)
    assert [r.status for r in renders] == ["ok", "ok"], [r.violation_details for r in renders]
    assert all(r.png and r.unknown_calls == [] and r.width == 160 for r in renders)
