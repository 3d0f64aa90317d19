"""The words on the pages: counts pluralised right with 1 and with 2 of a thing,
no stray space before a full stop, no stage that repeats or contradicts the
status, the model names in the admin, and the site's favicon."""
from __future__ import annotations

import re
from html import unescape

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from rating.services import grade_record
from sketches.models import Sketch
from tests.rating_data import curator_create, renders_create


def text_of(html: str) -> str:
    """The page's words, tags dropped and whitespace collapsed, as a reader sees them."""
    return " ".join(re.sub(r"<[^>]+>", " ", html).split())


@pytest.mark.django_db
class TestHomeGrades:
    def test_no_grades_end_the_sentence_without_a_stray_space(self, admin_client):
        html = admin_client.get(reverse("home")).content.decode()
        assert re.search(r"0 of 0 gradable renders graded\.</p>", html)

    @pytest.mark.parametrize(("curators", "words"), [(1, "by 1 curator."), (2, "by 2 curators.")])
    def test_curators_counted(self, media, admin_client, curators, words):
        [render] = renders_create(1)
        for n in range(curators):
            grade_record(render=render, curator=curator_create(f"c{n}"), value="love")
        text = text_of(admin_client.get(reverse("home")).content.decode())
        assert f"1 of 1 gradable render graded {words}" in text


@pytest.mark.django_db
class TestAgreementCounts:
    @pytest.mark.parametrize(("curators", "words"), [
        (1, "1 curator 1 grade 0 renders graded by two or more"),
        (2, "2 curators 2 grades 1 render graded by two or more")])
    def test_curators_grades_and_renders(self, media, admin_client, curators, words):
        [render] = renders_create(1)
        for n in range(curators):
            grade_record(render=render, curator=curator_create(f"c{n}"), value="love")
        assert words in text_of(admin_client.get(reverse("rating:agreement")).content.decode())


@pytest.mark.django_db
class TestModelNames:
    def test_sketches_not_sketchs(self, admin_client):
        assert Sketch._meta.verbose_name_plural == "sketches"
        html = admin_client.get(reverse("admin:index")).content.decode()
        assert ">Sketches<" in html and "Sketchs" not in html


@pytest.mark.django_db
class TestRunPage:
    @pytest.fixture
    def run(self):
        from tests.lab_data import presets_ensure
        from tests.run_data import run_create

        presets_ensure()
        return run_create(progress={"stage": "queued", "step": 0, "max_steps": 4})

    def test_a_queued_stage_beside_running_is_not_shown(self, admin_client, run):
        html = admin_client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert "Running" in html and "(queued)" not in html
        run.progress = {**run.progress, "stage": "loading"}
        run.save()
        html = admin_client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert "(loading)" in html

    @pytest.mark.parametrize(("save_steps", "words"), [
        (1, "a checkpoint every step"), (2, "a checkpoint every 2 steps")])
    def test_checkpoint_every(self, admin_client, run, save_steps, words):
        run.save_steps = save_steps
        run.save()
        html = admin_client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert words in html and "every 1 steps" not in html

    def test_the_scale_settings_are_said_only_when_set(self, admin_client, run):
        html = admin_client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert "process" not in html.split("Settings</dt>")[1].split("</dd>")[0]
        run.processes, run.use_vllm, run.vllm_mode = 2, True, "server"
        run.chat_template_kwargs, run.renders = {"enable_thinking": False}, "fleet"
        run.save()
        html = unescape(admin_client.get(reverse("training:run", args=[run.pk])).content.decode())
        assert ('; chat template {"enable_thinking": false}; use vLLM yes; vLLM mode server '
                "(`trl vllm-serve` on other GPUs); processes 2; renders by the render workers "
                "(the render queue)" in html)

    @pytest.mark.parametrize(("generations", "words"), [
        (1, "1 generation ×"), (2, "2 generations ×")])
    def test_generations(self, admin_client, run, generations, words):
        run.num_generations = run.max_steps = run.prompts_per_step = generations
        run.save()
        html = admin_client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert words in html and "prompt(s)" not in html
        assert f"{generations} step{'s' if generations > 1 else ''};" in html
        assert f"{generations} prompt{'s' if generations > 1 else ''} per step" in html


class TestTemplateCounts:
    """Fragments rendered with 1 and 2 of the thing they count."""

    @pytest.mark.parametrize(("n", "word"), [(1, "group"), (2, "groups")])
    def test_replay_diagnostics_groups(self, n, word):
        column = {"label": "v2", "diagnosis": {"rollouts": 4, "groups": n, "total": {}},
                  "findings": [], "charts": {}}
        html = render_to_string("training/_diagnostics.html", {"column": column})
        assert f"<strong>{n}</strong> {word}</li>" in html

    @pytest.mark.parametrize(("n", "words"), [(1, "again in 1 second;"),
                                              (2, "again in 2 seconds;")])
    def test_503_seconds(self, n, words):
        assert words in text_of(render_to_string("503.html", {"retry_s": n}))


@pytest.mark.django_db
class TestReplayPage:
    @pytest.mark.parametrize(("n", "words"), [(1, "0 of 1 render scored"),
                                              (2, "0 of 2 renders scored")])
    def test_renders_scored(self, admin_client, n, words):
        from tests.lab_data import presets_ensure
        from training.models import Judge, Replay, Rubric

        presets_ensure()
        local = Judge.objects.get(name="local")
        replay = Replay.objects.create(rubric=Rubric.objects.get(name="v2"), judge=local,
                                       scorer=local, progress={"done": 0, "total": n},
                                       selection={"per_group": 8})
        html = admin_client.get(reverse("training:replay", args=[replay.pk])).content.decode()
        assert words in text_of(html)


@pytest.mark.django_db
class TestFavicon:
    def test_every_page_links_the_svg_favicon(self, admin_client):
        html = admin_client.get(reverse("home")).content.decode()
        found = re.search(r'<link rel="icon" href="([^"]+)" type="image/svg\+xml">', html)
        assert found and found.group(1).endswith("favicon.svg")
        from django.contrib.staticfiles import finders

        path = finders.find("favicon.svg")
        assert path and open(path).read().startswith("<svg")
