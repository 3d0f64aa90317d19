"""Paint by construction (RendererConfig.paint_by_replay, renderer/record.py):
the picture is painted from the sketch's recorded p5.brush calls in a page
that runs no sketch code. Each attack below is a painting plus a route that
once earned reward for paint p5.brush did not lay (issue 43's classes); the
invariant is that the route adds nothing to the picture: the render shows the
same picture as the painting alone, or is refused by name."""
from __future__ import annotations

import json

import pytest
from django.urls import reverse

from sketches import gate
from sketches.models import Render
from sketches.renderer import RenderPool
from sketches.renderer import record as recording
from sketches.renderer.fidelity import picture_difference, same_picture
from sketches.rendering import OK, render_text
from sketches.services import render_store, sketch_create
from tests.chromium import make_config
from tests.sketch_files import SKETCHES_DIR

pytestmark = pytest.mark.browser

# An honest painting: a wash, a fill and a few strokes on a 200 px canvas.
PAINTING = """
  background("#f6f1e8");
  brush.noStroke();
  brush.fill("#e0603a", 80);
  brush.circle(20, -10, 50);
  brush.noFill();
  brush.set("2B", "#223", 1);
  for (let i = 0; i < 6; i++) brush.line(-80, 40 + i * 6, 80, 42 + i * 6);
"""


def sketch(before: str = "", after: str = "") -> str:
    return f"""
function setup() {{
  createCanvas(200, 200, WEBGL);
  {before}
  {PAINTING}
  {after}
}}"""


@pytest.fixture(scope="module")
def replay_pool():
    with RenderPool(make_config(browsers=1, paint_by_replay=True)) as pool:
        yield pool


@pytest.fixture(scope="module")
def painting(replay_pool):
    outcome = render_text(replay_pool, sketch(), seed=5)
    assert outcome.status == OK, outcome.report()
    return outcome.png


class TestHonestPaintings:
    @pytest.mark.parametrize("name", ["hibiscus.js", "lines.js", "noloop_in_setup.js"])
    def test_the_replay_paints_the_picture_the_sketch_painted(self, replay_pool, browser_pool,
                                                              name):
        code = (SKETCHES_DIR / "good" / name).read_text()
        replayed = render_text(replay_pool, code, seed=11)
        painted = render_text(browser_pool, code, seed=11)
        assert replayed.status == painted.status == OK, replayed.report()
        assert same_picture(replayed.png, painted.png), picture_difference(replayed.png,
                                                                           painted.png)

    def test_a_sketch_that_updates_its_url_in_place_is_painted(self, replay_pool, painting):
        # URL-state sync, as sketches written for the web do: not leaving the page.
        outcome = render_text(replay_pool, sketch(
            before='history.replaceState(null, "", "?seed=5"); history.pushState({}, "", "#a");'),
            seed=5)
        assert outcome.status == OK, outcome.report()
        assert same_picture(outcome.png, painting)

    def test_an_instance_mode_sketch_is_painted(self, replay_pool):
        outcome = render_text(replay_pool, """
new p5((s) => {
  s.setup = () => {
    s.createCanvas(200, 200, s.WEBGL);
    s.background("#f6f1e8");
    brush.set("HB", "#222", 1);
    for (let i = 0; i < 6; i++) brush.line(-80, -60 + i * 20, 80, -50 + i * 20);
    s.noLoop();
  };
  s.draw = () => { brush.set("2B", "#a33", 1); brush.line(-80, 80, 80, 80); };
});""", seed=3)
        assert outcome.status == OK, outcome.report()
        assert outcome.brush_call_counts == {"set": 2, "line": 7}

    def test_the_same_code_and_seed_paint_the_same_picture_twice(self, replay_pool):
        first = render_text(replay_pool, sketch(), seed=9)
        second = render_text(replay_pool, sketch(), seed=9)
        assert picture_difference(first.png, second.png)[0] <= 0.05


class TestTheKeptReplayPageForgetsTheLastList:
    def test_a_list_paints_alike_before_and_after_another_on_the_kept_page(self, replay_pool):
        # The list between changes what p5 keeps outside push()/pop() (the
        # angle mode) and the library's state (a fill left on, a brush picked).
        turned = sketch(after='rotate(0.6); brush.set("2B", "#335", 2); '
                              'brush.line(-80, -80, 80, 80);')
        between = sketch(before='angleMode(DEGREES);',
                         after='brush.fill("#2a6", 90); brush.set("charcoal", "#000", 3);')
        first = render_text(replay_pool, turned, seed=6)
        render_text(replay_pool, between, seed=6)
        again = render_text(replay_pool, turned, seed=6)
        assert first.status == again.status == OK, again.report()
        assert picture_difference(first.png, again.png)[0] <= 0.05


class TestWhatTheSketchDrawsNeverReachesThePicture:
    """Each route runs in the recording page, where nothing is captured."""

    ROUTES = {
        # p5.brush's own blend program, or one compiled from its GLSL, bound
        # to copy the sketch's own texture: there is no library and no WebGL
        # context in the recording page to bind.
        "brush_program_rebound": """
          try {
            const gl = drawingContext;
            const program = gl.createProgram();
            gl.useProgram(program);
            gl.drawArrays(gl.TRIANGLES, 0, 3);
          } catch (e) {}""",
        # A WebGL 1 main canvas the ledger could not read, and plain shapes on it.
        "webgl1_canvas_plain_shapes": """
          try { setAttributes("version", 1); } catch (e) {}
          noStroke(); fill(20, 120, 200); ellipse(0, 0, 150, 150);""",
        # The canvas set to width 0 so the capture fell back to a screenshot
        # of the page, with the sketch's own DOM in it.
        "zero_width_canvas_and_dom": """
          const d = document.createElement("div");
          d.style.cssText = "position:fixed;inset:0;background:linear-gradient(red,blue)";
          d.textContent = "BEST PAINTING";
          document.body.appendChild(d);
          try { drawingContext.canvas.width = 0; } catch (e) {}""",
        # Plain pixels written under the brush.
        "pixels_written": """
          loadPixels();
          for (let i = 0; i < pixels.length; i += 4) pixels[i] = 0;
          updatePixels();""",
    }

    @pytest.mark.parametrize("route", sorted(ROUTES))
    def test_the_route_adds_nothing_to_the_picture(self, replay_pool, painting, route):
        outcome = render_text(replay_pool, sketch(after=self.ROUTES[route]), seed=5)
        if outcome.png is not None:
            assert same_picture(outcome.png, painting), picture_difference(outcome.png,
                                                                           painting)

    def test_plain_shapes_beside_a_token_stroke_are_named_plain_painting(self, replay_pool):
        shapes = "noStroke(); " + " ".join(f"fill({i * 20}, 90, 140); ellipse({i * 10 - 90}, 0, "
                                           "40, 40);" for i in range(12))
        outcome = render_text(replay_pool, f"""
function setup() {{
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  {shapes}
  brush.set("HB", "#222", 1);
  brush.line(-80, 90, 80, 90);
}}""", seed=5)
        assert gate.PLAIN_PAINTING in outcome.violations, outcome.report()


class TestClocksAndStateChangeNothing:
    ROUTES = {
        # A window.name left by an earlier render in the same tab.
        "window_name": """
          const n = Number(window.name || 0); window.name = String(n + 1);
          brush.set("HB", "#a22", 2); brush.line(-90, -90 + n * 30, 90, -90 + n * 30);""",
        # Animations read the real clock.
        "animation_clock": """
          const a = document.body.animate([{opacity: 0}, {opacity: 1}], 100000);
          const t = Number(a.currentTime) || 0;
          brush.set("HB", "#2a2", 2); brush.line(-90, t % 180 - 90, 90, t % 180 - 90);""",
    }

    @pytest.mark.parametrize("route", sorted(ROUTES))
    def test_two_renders_paint_the_same_picture(self, replay_pool, route):
        code = sketch(after=self.ROUTES[route])
        first = render_text(replay_pool, code, seed=4)
        second = render_text(replay_pool, code, seed=4)
        assert first.png is not None and second.png is not None
        assert picture_difference(first.png, second.png)[0] <= 0.05, (first.report(),
                                                                      second.report())


class TestWhatTheSeedDoesNotFixIsRefused:
    def test_strokes_placed_by_the_real_pace_of_timers_are_nondeterministic(self, replay_pool):
        # A timer chain counts as fast as the machine runs; each frame paints
        # where the count has got to, so two runs place their strokes apart.
        outcome = render_text(replay_pool, """
let count = 0;
function tick() { count += 1; setTimeout(tick, 0); }
function setup() {
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  brush.set("HB", "#222", 1);
  tick();
}
function draw() {
  brush.line(-90, (count % 180) - 90, 90, (count % 180) - 90);
  if (frameCount >= 20) noLoop();
}""", seed=5)
        assert gate.NONDETERMINISTIC in outcome.violations, outcome.report()
        assert outcome.png is None


class TestTheListIsBounded:
    def test_a_brush_of_huge_weight_and_tiny_spacing_is_refused_unpainted(self, replay_pool):
        outcome = render_text(replay_pool, sketch(after="""
          brush.add("flood", {type: "custom", weight: 5000, spacing: 0.0001, opacity: 255,
                              tip: (s) => s.rect(-50, -50, 100, 100)});
          brush.set("flood", "#000", 1);
          brush.line(-90, 0, 90, 0);"""), seed=5)
        assert recording.PAINT_OVER_BUDGET in outcome.violations, outcome.report()
        assert outcome.png is None

    def test_a_custom_tip_is_replayed_from_its_recorded_shapes(self, replay_pool, painting):
        outcome = render_text(replay_pool, sketch(after="""
          brush.add("dots", {type: "custom", weight: 6, vibration: 0, spacing: 1,
                             opacity: 200, pressure: [1, 1],
                             tip: (s) => { s.fill(0); s.circle(0, 0, 60); }});
          brush.set("dots", "#335", 1);
          brush.line(-80, -80, 80, -80);"""), seed=5)
        assert outcome.status == OK, outcome.report()
        assert not same_picture(outcome.png, painting)  # the tip's stroke is painted

    def test_a_list_too_long_to_read_is_refused_before_it_is_parsed(self):
        raw = '{"frames": [[["canvas", 100, 100, 1], ["line", ' + "1," * 20_000_000 + "1]]]}"
        with pytest.raises(recording.RecordRefused) as refused:
            recording.check(raw, 1200)
        assert refused.value.violation == recording.PAINT_OVER_BUDGET

    def test_a_list_naming_a_call_outside_the_vocabulary_is_refused(self):
        with pytest.raises(recording.RecordRefused) as refused:
            recording.check('{"frames": [[["canvas", 100, 100, 1], ["eval", "x"]]]}', 1200)
        assert refused.value.violation == recording.BAD_RECORD


class TestTheListIsStoredWithTheRender:
    def test_the_render_keeps_the_calls_its_picture_was_painted_from(self, replay_pool,
                                                                      staff_client):
        outcome = render_text(replay_pool, sketch(), seed=5)
        render = Render.objects.create(sketch=sketch_create(code=sketch()), seed=5)
        render_store(render=render, outcome=outcome)
        render.refresh_from_db()
        assert render.calls.name.endswith(".calls.json.gz")
        served = staff_client.get(reverse("sketches:render_calls", args=[render.pk]))
        assert served.status_code == 200
        frames = json.loads(served.content)["frames"]
        names = [call[0] for frame in frames for call in frame]
        assert names.count("line") == 6 and "circle" in names and "background" in names
        page = staff_client.get(reverse("sketches:render_detail", args=[render.pk]))
        assert reverse("sketches:render_calls", args=[render.pk]).encode() in page.content

    def test_a_render_painted_in_its_own_page_has_no_calls_to_serve(self, staff_client, db):
        render = Render.objects.create(sketch=sketch_create(code=sketch()), seed=5)
        served = staff_client.get(reverse("sketches:render_calls", args=[render.pk]))
        assert served.status_code == 404
