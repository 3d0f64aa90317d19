"""Paint by construction (RendererConfig.paint_by_replay, renderer/record.py):
the picture is painted from the sketch's recorded p5.brush calls in a page
that runs no sketch code. Each attack below is a painting plus a route that
once earned reward for paint p5.brush did not lay (issue 43's classes); the
invariant is that the route adds nothing to the picture: the render shows the
same picture as the painting alone, or is refused by name."""
from __future__ import annotations

import io
import json

import pytest
from django.urls import reverse
from PIL import Image
from playwright.sync_api import sync_playwright

from sketches import gate
from sketches.models import Render
from sketches.renderer import RenderPool
from sketches.renderer import record as recording
from sketches.renderer.fidelity import picture_difference, same_picture
from sketches.renderer.page_server import PageServer
from sketches.renderer.sandbox import chromium_args
from sketches.rendering import OK, render_text
from sketches.services import render_store, sketch_create
from tests.chromium import make_config
from tests.sketch_files import SKETCHES_DIR, read_sketch

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


# About 2.5 s of setup here (a computation, then a few strokes).
LONG_SETUP = read_sketch("slow/long_compute_then_lines.js")


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
def page_paint_pool():
    """The renderer that paints in the sketch's own page (harness 7's way)."""
    with RenderPool(make_config(browsers=1, paint_by_replay=False)) as pool:
        yield pool


@pytest.fixture(scope="module")
def painting(replay_pool):
    outcome = render_text(replay_pool, sketch(), seed=5)
    assert outcome.status == OK, outcome.report()
    return outcome.png


class TestHonestPaintings:
    @pytest.mark.parametrize("name", ["hibiscus.js", "lines.js", "noloop_in_setup.js"])
    def test_the_replay_paints_the_picture_the_sketch_painted(self, replay_pool,
                                                              page_paint_pool, name):
        code = (SKETCHES_DIR / "good" / name).read_text()
        replayed = render_text(replay_pool, code, seed=11)
        painted = render_text(page_paint_pool, code, seed=11)
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

    def test_an_instance_mode_sketch_for_p5_brush_1_is_painted(self, replay_pool):
        # p5 1.x sets p5.instance in global mode only: the page's hooks take
        # the instance they are called on.
        outcome = render_text(replay_pool, """
new p5((p) => {
  p.setup = () => {
    p.createCanvas(200, 200, p.WEBGL);
    p.background("#f6f1e8");
    brush.setHatch("HB", "#002185");
    brush.hatch(6, 45);
    brush.rect(-80, -80, 160, 160);
  };
});""", seed=3, brush="1")
        assert outcome.status == OK, outcome.report()

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


    def test_a_list_paints_alike_on_a_fresh_page_and_after_itself(self, replay_pool):
        # A fill, a wash over it, then a pen: a replay page kept from the
        # first painting painted the wash the fresh page (and the sketch's own
        # page) leaves out, 3.9 levels mean apart. A size no other test uses,
        # so the first painting is on a fresh page.
        code = """
function setup() {
  createCanvas(240, 240, WEBGL);
  background("#f7f1e6");
  brush.noStroke();
  brush.fill("#6f8f55", 120);
  brush.fillBleed(0.25);
  brush.rect(-100, 0, 90, 90);
  brush.noFill();
  brush.wash("#d9735b", 150);
  brush.circle(0, 0, 40);
  brush.noWash();
  brush.set("pen", "#5a2a2a", 1);
  brush.line(-90, -90, 90, -50);
}"""
        first, second = (render_text(replay_pool, code, seed=4) for _ in range(2))
        assert first.status == second.status == OK, second.report()
        assert picture_difference(first.png, second.png)[0] <= 0.05


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


    @pytest.mark.parametrize("brush", ["2", "1"])
    def test_a_few_plain_marks_beside_a_painting_pass(self, replay_pool, brush):
        # Many calls, little paint: by calls alone these dots were 80 % of
        # the drawing calls. Weighed by what they cover on the sketch's own
        # canvas (its origin at the centre, as WEBGL has it), they are
        # marks beside a painting, as the paint ledger judged them.
        dots = "".join(f"point({i * 8 - 90}, 90); " for i in range(20))
        outcome = render_text(replay_pool, f"""
function setup() {{
  createCanvas(200, 200, WEBGL);
  background("#f6f1e8");
  brush.noStroke();
  brush.fill("#e0603a", 90);
  brush.rect(-70, -70, 140, 120);
  brush.set("HB", "#222", 1);
  for (let i = 0; i < 4; i++) brush.line(-80, 60 + i * 5, 80, 62 + i * 5);
  stroke(30); strokeWeight(2);
  {dots}
}}""", seed=5, brush=brush)
        assert outcome.status == OK, outcome.report()


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


class TestWhatTheMachineLeaksIsPinned:
    def test_text_measures_alike_on_every_machine(self, replay_pool):
        # A stroke placed by textWidth(): each machine's fonts measure apart,
        # so the page measures every character as 0.55 of the font's size.
        outcome = render_text(replay_pool, sketch(after="""
          textSize(20);
          const w = textWidth("abcd");
          brush.set("HB", "#222", 1);
          brush.line(-90, w, 90, textAscent());"""), seed=5)
        assert outcome.status == OK, outcome.report()
        lines = [call for frame in json.loads(outcome.calls)["frames"] for call in frame
                 if call[0] == "line"]
        assert lines[-1][2] == pytest.approx(4 * 0.55 * 20)
        assert lines[-1][4] == pytest.approx(0.8 * 20)


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


class TestEachRecordingHasTheDeadline:
    def test_a_sketch_taking_most_of_the_deadline_is_not_stopped_by_its_second_recording(self):
        """The sketch runs twice (the check above); each run has the whole
        deadline. With one deadline for both, a sketch taking 0.7 of it was
        stopped in its second run: a deadline of 1.4 times the sketch's own
        drawing time, measured just before, fails there every time."""
        with RenderPool(make_config(browsers=1, deadline_s=60.0)) as pool:
            for _ in range(2):  # once more should the machine have slowed meanwhile
                draw_s = render_text(pool, LONG_SETUP, seed=1).draw_ms / 1000
                outcome = render_text(pool, LONG_SETUP, seed=1, deadline_s=1.4 * draw_s)
                if outcome.status == OK:
                    break
        assert draw_s > 0.5, draw_s  # long enough that the deadline is the sketch's
        assert outcome.status == OK, outcome.report()


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

    POLYGON = ["Polygon", 1, [[0, 0], [90, 0], [90, 90]], False]

    @pytest.mark.parametrize(("brush", "flood", "honest"), [
        # A hatch distance of nothing: one stroke on another, without end.
        ("2", [["hatch", 0, 45]], [["hatch", 4, 45]]),
        ("1", [POLYGON, ["Polygon.hatch", 1, 0.01]], [POLYGON, ["Polygon.hatch", 1, 4]]),
        # A full-canvas blend for every call.
        ("1", [["reBlend"]] * 2_001, [["reBlend"]] * 60),
    ])
    def test_a_list_whose_painting_would_flood_is_refused_before_it_is_painted(
            self, brush, flood, honest):
        def listed(calls):
            return json.dumps({"frames": [[["canvas", 100, 100, 1], *calls]]})

        with pytest.raises(recording.RecordRefused) as refused:
            recording.check(listed(flood), 1200, brush)
        assert refused.value.violation == recording.PAINT_OVER_BUDGET
        assert recording.check(listed(honest), 1200, brush).calls == len(honest) + 1

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


# A p5.brush 1.x painting using most of what 1.x records: the brush's own
# push/pop/rotate, fills with bleed and texture, a hatch over a Polygon, a
# custom field and tip, a Plot, and p5's transform (WEBGL's centred origin).
PAINTING_1 = """
function setup() {
  createCanvas(200, 200, WEBGL);
  translate(-width / 2, -height / 2);
  background("#f4efe6");
  brush.add("dab", {type: "custom", weight: 4, vibration: 0.1, opacity: 60, spacing: 0.4,
                    blend: true, pressure: {type: "custom", curve: (x) => 1 - x,
                    min_max: [0.6, 1.2]},
                    tip: (m) => { m.rect(-1.5, -1.5, 3, 3); m.rect(1, 1, 1, 1); },
                    rotate: "natural"});
  brush.push();
  brush.noStroke();
  brush.fill("#d4553a", 90);
  brush.bleed(0.2);
  brush.fillTexture(0.5, 0.3);
  brush.circle(80, 90, 35);
  brush.pop();
  // After a first call: 1.x lays out its field grid when it first paints.
  brush.addField("lean", (t, field) => {
    for (let c = 0; c < field.length; c++)
      for (let r = 0; r < field[c].length; r++) field[c][r] = 20 + 10 * sin(c * 0.1 + t);
    return field;
  });
  brush.setHatch("HB", "#335", 1);
  brush.hatch(6, 30);
  brush.hatchArray([new brush.Polygon([[120, 120], [180, 130], [160, 180], [110, 170]])]);
  brush.noHatch();
  brush.field("lean");
  brush.set("dab", "#1b3a5c", 1);
  brush.flowLine(30, 40, 120, 0);
  brush.noField();
  brush.set("2B", "#222", 1);
  brush.rotate(15);
  for (let i = 0; i < 5; i++) brush.line(20, 150 + i * 6, 100, 152 + i * 6);
  brush.rotate(0);
  const plot = new brush.Plot("curve");
  plot.addSegment(0, 60, 1);
  plot.addSegment(45, 40, 0.8);
  plot.endPlot(90, 0.5);
  brush.plot(plot, 40, 60, 1);
}"""


class TestP5Brush1xIsRecordedToo:
    """p5.brush 1.x lists are recorded and replayed in a 1.x page the same
    way, so 1.x's own routes (a tip painting on the full-colour mask, a
    WebGL 1 canvas) add nothing either."""

    @pytest.fixture(scope="class")
    def gpu_canvases_replay_pool(self):
        # The sketch's own page leaves 1.x's blend mask on the GPU canvas
        # (only the replay page moves it: RendererConfig.cpu_canvases_1x,
        # tested in test_renderer.py), so the replay is compared with it so.
        with RenderPool(make_config(browsers=1, cpu_canvases_1x=False)) as pool:
            yield pool

    def test_the_replay_paints_the_picture_the_sketch_painted(self, gpu_canvases_replay_pool,
                                                              page_paint_pool):
        replayed = render_text(gpu_canvases_replay_pool, PAINTING_1, seed=8, brush="1")
        painted = render_text(page_paint_pool, PAINTING_1, seed=8, brush="1")
        assert replayed.status == painted.status == OK, (replayed.report(), painted.report())
        assert replayed.calls is not None
        names = {call[0] for frame in json.loads(replayed.calls)["frames"] for call in frame}
        assert {"brush.push", "brush.rotate", "hatchArray", "fieldData", "Plot"} <= names
        assert same_picture(replayed.png, painted.png), picture_difference(replayed.png,
                                                                           painted.png)

    def test_a_tip_paints_in_the_brush_colour_never_its_own(self, replay_pool):
        # blend: false draws the tip straight on 1.x's full-colour mask: in
        # the sketch's own page this tip painted the whole canvas green with
        # red and blue on it, from one stamp of one stroke.
        outcome = render_text(replay_pool, """
function setup() {
  createCanvas(200, 200, WEBGL);
  translate(-100, -100);
  background(255);
  brush.add("stamp", {type: "custom", weight: 30, vibration: 0, opacity: 255, spacing: 50,
    blend: false, pressure: {curve: [0.15, 0.2], min_max: [1, 1]},
    tip: (m) => {
      m.background(0, 200, 0);
      m.fill(255, 0, 0); m.rect(-20, -20, 40, 40);
      m.fill(0, 0, 255); m.circle(0, 0, 10);
    }});
  brush.set("stamp", "#000000", 1);
  brush.line(80, 100, 120, 100);
}""", seed=3, brush="1")
        assert outcome.status == OK, outcome.report()
        with Image.open(io.BytesIO(outcome.png)) as picture:
            rgb = picture.convert("RGB")
            data = rgb.tobytes()
            pixels = [data[i:i + 3] for i in range(0, len(data), 3)]
            spread = max(max(px) - min(px) for px in pixels)
            dark = sum(1 for px in pixels if max(px) < 128)
        assert spread < 40  # greys only: no colour the tip named
        assert 0 < dark < rgb.width * rgb.height // 4  # the stamp, not the whole mask

    @pytest.mark.parametrize("version, pressure", [
        ("1", "{curve: [0.15, 0.2], min_max: [1, 1]}"), ("2", "[1, 1]")])
    def test_a_brush_added_as_the_script_loads_is_listed_after_the_canvas(self, replay_pool,
                                                                          version, pressure):
        # Before setup() there is no instance to record against; the
        # library's own examples add their brushes there, and the replay,
        # missing them, failed ("Brush felt not found").
        outcome = render_text(replay_pool, """
brush.add("felt", {type: "marker", weight: 8, vibration: 0, opacity: 180, spacing: 1,
  blend: true, pressure: PRESSURE});
function setup() {
  createCanvas(200, 200, WEBGL);
  translate(-100, -100);
  background(250);
  brush.set("felt", "#203070", 1);
  brush.line(40, 100, 160, 100);
}""".replace("PRESSURE", pressure), seed=3, brush=version)
        assert outcome.status == OK, outcome.report()
        names = [call[0] for frame in json.loads(outcome.calls)["frames"] for call in frame]
        assert names.index("canvas") < names.index("add") < names.index("line")

    def test_a_tip_on_a_brush_that_is_not_custom_is_never_called(self, replay_pool):
        # The library's own 1.x examples leave 1.0-style tips (calling p5's
        # globals) on marker brushes: 1.x never draws them, so neither may
        # the recorder, which called them and failed on `rotate`.
        outcome = render_text(replay_pool, """
function setup() {
  createCanvas(200, 200, WEBGL);
  translate(-100, -100);
  background(250);
  brush.add("felt", {type: "marker", weight: 8, vibration: 0, opacity: 180, spacing: 1,
    blend: true, pressure: {curve: [0.15, 0.2], min_max: [1, 1]},
    tip: function () { rotate(45); rect(-1.5, -1.5, 3, 3); }});
  brush.set("felt", "#203070", 1);
  brush.line(40, 100, 160, 100);
}""", seed=3, brush="1")
        assert outcome.status == OK, outcome.report()

    def test_plain_shapes_on_a_webgl1_canvas_are_named_plain_painting(self, replay_pool):
        outcome = render_text(replay_pool, """
function setup() {
  setAttributes("version", 1);
  createCanvas(200, 200, WEBGL);
  translate(-100, -100);
  background(240);
  brush.set("2B", "#222", 1);
  brush.line(20, 20, 180, 20);
  noStroke();
  for (let i = 0; i < 30; i++) { fill(200, 40 + i * 5, 50); ellipse(30 + i * 5, 110, 24, 24); }
}""", seed=3, brush="1")
        assert gate.PLAIN_PAINTING in outcome.violations, outcome.report()


class TestP5Brush10SketchesPaintInTime:
    def test_a_shape_traced_along_a_field_keeps_1_0s_bleed_floor(self):
        # Written for p5.brush 1.0, which floored the bleed at 0.05 where a
        # shape is traced along a plot: on 1.1 alone bleed(0.001) lays a vertex
        # every few pixels, each fill layer doubles them, and these three
        # rects took about two minutes (117 s here); the replay keeps 1.0's
        # floor there and paints them in seconds. The deadline is generous:
        # only the missing floor fails it, not a slow machine.
        code = """
function setup() {
  createCanvas(300, 300, WEBGL);
  translate(-width / 2, -height / 2);
  background("#f4efe6");
  brush.field("truncated");
  brush.noStroke();
  for (let i = 0; i < 3; i++) {
    brush.fill(["#7b4800", "#002185", "#ff2702"][i], 110);
    brush.bleed(0.001);
    brush.rect(30 + i * 90, 20, 60, 260);
  }
}"""
        with RenderPool(make_config(browsers=1, deadline_s=60.0)) as pool:
            outcome = render_text(pool, code, seed=1, brush="1")
        assert outcome.status == OK, outcome.report()


# p5.brush 1.x as its sketchbooks paint: fills in changing colours, each
# change a blend pass, with pencil lines, a hatch and a marker between them
# on the buffer for brushes that do not blend.
TILES_1 = """
function setup() {
  createCanvas(320, 320, WEBGL);
  translate(-width / 2, -height / 2);
  background("#f4efe4");
  const inks = ["#c8553d", "#2d6a8e", "#e0a458"];
  for (let k = 0; k < 6; k++) {
    const x = 20 + (k % 3) * 100, y = 30 + Math.floor(k / 3) * 150;
    brush.noStroke();
    brush.fill(inks[k % 3], 80);
    brush.bleed(0.2);
    brush.fillTexture(0.4, 0.3);
    brush.rect(x, y, 80, 90);
    brush.noFill();
    brush.set("HB", "#333", 1);
    brush.rect(x - 3, y - 3, 86, 96);
  }
  brush.setHatch("2B", "#223", 1);
  brush.hatch(8, 45);
  brush.rect(200, 200, 90, 60);
  brush.noHatch();
  brush.set("marker", "#1d3557", 1);
  brush.line(30, 300, 290, 280);
}"""
# The same, its first tiles painted off the canvas's plane.
TILES_1_OFF_PLANE = TILES_1.replace('background("#f4efe4");',
                                    'background("#f4efe4");\n  translate(0, 0, 0.5);')


class TestP5Brush1xBlendPassesAreCut:
    """p5.brush 1.x's blend passes in the replay page are scissored to what
    their buffers hold (RendererConfig.blend_bounds_1x, paint_speed.js): the
    picture is the one whole passes paint, to the pixel, and the passes are
    in fact cut where the canvas stays flat, and drawn whole where it does
    not."""

    @pytest.fixture(scope="class")
    def whole_passes_pool(self):
        with RenderPool(make_config(browsers=1, blend_bounds_1x=False)) as pool:
            yield pool

    @pytest.mark.parametrize("code", [TILES_1, TILES_1_OFF_PLANE], ids=["flat", "off-plane"])
    def test_cut_passes_paint_the_whole_passes_picture(self, replay_pool, whole_passes_pool, code):
        cut = render_text(replay_pool, code, seed=4, brush="1")
        whole = render_text(whole_passes_pool, code, seed=4, brush="1")
        assert cut.status == whole.status == OK, (cut.report(), whole.report())
        assert picture_difference(cut.png, whole.png) == (0.0, 0.0)

    def test_passes_are_cut_on_a_flat_canvas_only(self, replay_pool):
        config = make_config(browsers=1)
        server = PageServer(config)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=config.chromium_path,
                                             args=chromium_args(config, server))
                try:
                    passes = {}
                    for name, code in (("flat", TILES_1), ("off-plane", TILES_1_OFF_PLANE)):
                        outcome = render_text(replay_pool, code, seed=4, brush="1")
                        page = browser.new_page()
                        page.goto(server.replay_url_for("1"))
                        page.evaluate("([list, seed]) => __replay.paint(list, seed, false)",
                                      [outcome.calls, 4])
                        passes[name] = page.evaluate("__paintrlSpeed.blendPasses()")
                        page.close()
                finally:
                    browser.close()
        finally:
            server.close()
        # Six colour changes and the end of setup(): a pass over each buffer.
        assert passes["flat"]["cut"] >= 12 and passes["flat"]["whole"] <= 2, passes
        assert passes["off-plane"]["cut"] == 0 and passes["off-plane"]["whole"] >= 12, passes
