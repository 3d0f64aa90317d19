"""The renderer on real Chromium: honest sketches render, the same seed gives
the same pixels, the gate names what is wrong, and the pool survives faults."""
from __future__ import annotations

import io
import json
import threading
from dataclasses import replace

import pytest
from PIL import Image, ImageChops

from sketches.brush_api import BRUSH_1_METHODS, BRUSH_METHODS
from sketches.painter import paint
from sketches.renderer import RenderPool
from sketches.renderer.fidelity import MEAN_LEVELS_MAX, OFF_SHARE_MAX, picture_difference
from sketches.renderer.sandbox import STOP_GRACE_S
from sketches.rendering import HARNESS_VERSION, brush_version_for, render_text
from tests.chromium import SHORT_DEADLINE_S, make_config
from tests.chromium_faults import chromium_that_fails_mid_render
from tests.sketch_files import read_sketch

LINES = read_sketch("good/lines.js")
SLOW_PAINTING = read_sketch("slow/paced_lines.js")
# The slow painting's background: its strokes are what differs from it.
PAPER = (0xF6, 0xF1, 0xE8)
# Three lines on a small canvas: well inside the short deadline.
QUICK = """
function setup() {
  createCanvas(80, 80, WEBGL);
  background(250);
  brush.set("HB", "#222", 1);
  for (const y of [-20, 0, 20]) brush.line(-30, y, 30, -y);
}
"""
# The verdict on a sketch the deadline stopped comes within the stop's grace
# (the rest of the slack: decoding the picture, a loaded event loop).
STOPPED_VERDICT_MS = (SHORT_DEADLINE_S + STOP_GRACE_S) * 1000 + 250

ANIMATED = """
function setup() { createCanvas(160, 160, WEBGL); background(250); }
function draw() {
  brush.set("2B", "#334", 1);
  brush.line(random(-70, 70), -70, random(-70, 70), 70);
  if (frameCount >= 4) noLoop();
}
"""


def share_off_paper(png: bytes) -> float:
    """Share of the pixels visibly unlike the paper the slow painting starts on."""
    pixels = list(Image.open(io.BytesIO(png)).convert("RGB").get_flattened_data())
    inked = [px for px in pixels if max(abs(c - p) for c, p in zip(px, PAPER, strict=True)) > 8]
    return len(inked) / len(pixels)


def pixel_difference(a: bytes, b: bytes) -> tuple[int, int]:
    """How many pixels differ between two PNGs, and by how much at most."""
    first = Image.open(io.BytesIO(a)).convert("RGB")
    second = Image.open(io.BytesIO(b)).convert("RGB")
    assert first.size == second.size
    diff = ImageChops.difference(first, second).get_flattened_data()
    changed = [max(px) for px in diff if max(px) > 0]
    return len(changed), max(changed, default=0)


class TestHonestSketches:
    def test_watercolour_painting_renders_non_blank(self, browser_pool):
        outcome = render_text(browser_pool, read_sketch("good/hibiscus.js"), seed=1)
        assert outcome.status == "ok", outcome.details
        assert outcome.paint_fraction > 0.02
        image = Image.open(io.BytesIO(outcome.png))
        assert image.size == (240, 240)
        assert outcome.brush_call_counts["circle"] == 1
        assert outcome.draw_ms > 0 and outcome.elapsed_ms >= outcome.draw_ms

    def test_no_loop_in_setup_still_captures_the_one_draw_frame(self, browser_pool):
        outcome = render_text(browser_pool, read_sketch("good/noloop_in_setup.js"), seed=2)
        assert outcome.status == "ok", outcome.details
        assert outcome.frames == 1
        assert outcome.brush_call_counts["line"] == 6 and outcome.paint_fraction > 0.005

    def test_an_animation_over_frames_finishes_on_every_render(self, browser_pool):
        # Each browser renders in two tabs by turns; a tab left in the
        # background got no animation frames and ran this to the deadline.
        code = """
        let n = 0;
        function setup() { createCanvas(160, 160, WEBGL); background(250); }
        function draw() {
          brush.set("HB", "#223", 1);
          brush.line(random(-70, 70), -70, random(-70, 70), 70);
          if (++n >= 12) noLoop();
        }"""
        for seed in range(5):
            outcome = render_text(browser_pool, code, seed=seed)
            assert (outcome.status, outcome.frames) == ("ok", 12), outcome.report()

    def test_same_code_and_seed_give_identical_pixels(self, browser_pool):
        first = render_text(browser_pool, LINES, seed=7)
        second = render_text(browser_pool, LINES, seed=7)
        assert first.png == second.png

    def test_watercolour_repeats_within_rasteriser_noise(self, browser_pool):
        # SwiftShader's two worker threads leave a few pixels at a watercolour
        # fill's edge off by a few levels between runs (docs/renderer.md,
        # determinism: the figures, and why it is not made one thread);
        # strokes alone repeat bit for bit (test above).
        first = render_text(browser_pool, read_sketch("good/hibiscus.js"), seed=7)
        second = render_text(browser_pool, read_sketch("good/hibiscus.js"), seed=7)
        changed, worst = pixel_difference(first.png, second.png)
        assert changed <= 60 and worst <= 8

    def test_another_seed_paints_differently(self, browser_pool):
        a = render_text(browser_pool, LINES, seed=1)
        b = render_text(browser_pool, LINES, seed=2)
        assert a.status == b.status == "ok"
        assert a.png != b.png

    def test_animated_sketch_is_captured_after_noloop(self, browser_pool):
        outcome = render_text(browser_pool, ANIMATED, seed=3)
        assert outcome.status == "ok", outcome.details
        assert outcome.frames == 4
        assert outcome.brush_call_counts["line"] == 4

    def test_sketch_inside_a_chat_reply_is_found(self, browser_pool):
        reply = f"Here is your sketch:\n\n```javascript\n{LINES}\n```\nEnjoy!"
        outcome = render_text(browser_pool, reply, seed=1)
        assert outcome.status == "ok", outcome.details

    @pytest.mark.browser
    def test_animation_without_noloop_stops_at_the_frame_cap(self):
        with RenderPool(make_config(browsers=1, max_frames=5)) as pool:
            outcome = render_text(pool, ANIMATED.replace("if (frameCount >= 4) noLoop();", ""))
        assert outcome.status == "ok"
        assert outcome.frames == 5

    def test_the_window_a_sketch_sees_is_the_largest_canvas(self, browser_pool):
        # The page's real viewport is small (RendererConfig.viewport_side);
        # a sketch sized by the window still gets the canvas it got before.
        side = browser_pool.config.max_canvas_side
        assert browser_pool.config.viewport_side < side
        by_window = "createCanvas(windowWidth, windowHeight, WEBGL)"
        sized = render_text(browser_pool, LINES.replace("createCanvas(200, 160, WEBGL)", by_window))
        assert (sized.width, sized.height) == (side, side)
        probe = LINES.replace("background(", f"""const seen = [innerWidth, innerHeight, outerWidth,
            screen.width, screen.availHeight, visualViewport.width,
            document.documentElement.clientWidth, document.documentElement.clientHeight,
            document.body.clientWidth, document.body.offsetWidth, document.body.clientHeight];
          if (seen.some((v) => v !== {side})) throw new Error("window " + seen);
          background(""")
        outcome = render_text(browser_pool, probe)
        assert outcome.status == "ok" and not outcome.errors, outcome.errors


# Watercolours to compare two ways of rendering on. The painter's poppy (seed
# 0, good tier): bleed, texture and layered glazes, where a plain CPU canvas
# painted visibly paler washes; its hills (seed 5, good tier): the slowest of
# six good-tier sketches whose blend passes were timed for harness 6.
WATERCOLOURS = {
    "hibiscus": lambda: read_sketch("good/hibiscus.js"),
    "painter_poppy_good": lambda: paint(0, subject="poppy", size=200).code,
    "painter_hills_good": lambda: paint(5, subject="hills", size=200).code,
}


# A p5.brush 1.x watercolour: bled fills in two colours over pencil strokes.
WATERCOLOUR_1 = """
function setup() {
  createCanvas(200, 200, WEBGL);
  translate(-100, -100);
  background("#fffceb");
  brush.noStroke();
  brush.fill("#d4553a", 90); brush.bleed(0.2); brush.rect(30, 30, 90, 80);
  brush.fill("#2c695a", 80); brush.bleed(0.1); brush.circle(120, 120, 45);
  brush.noFill();
  brush.set("2B", "#222", 1);
  for (let i = 0; i < 5; i++) brush.line(20, 160 + i * 6, 180, 162 + i * 6);
}"""


def difference_between(pool: RenderPool, other: RenderPool, code: str,
                       brush: str = "2") -> tuple[float, float]:
    """picture_difference of the two pools' renders of `code` at one seed,
    both of which must be ok."""
    new = render_text(pool, code, seed=4, brush=brush)
    old = render_text(other, code, seed=4, brush=brush)
    assert new.status == old.status == "ok", (new.details, old.details)
    return picture_difference(new.png, old.png)


class TestFillMasks:
    """Harness 3 draws p5.brush's fill masks on CPU canvases; the picture must
    stay the one the SwiftShader masks painted (cpu_fill_masks=False)."""

    @pytest.fixture(scope="class")
    def swiftshader_masks_pool(self):
        with RenderPool(make_config(browsers=1, cpu_fill_masks=False)) as pool:
            yield pool

    @pytest.mark.parametrize("name", ["hibiscus", "painter_poppy_good"])
    def test_cpu_masks_paint_the_swiftshader_masks_picture(self, browser_pool,
                                                           swiftshader_masks_pool, name):
        mean, off = difference_between(browser_pool, swiftshader_masks_pool, WATERCOLOURS[name]())
        assert mean <= MEAN_LEVELS_MAX and off <= OFF_SHARE_MAX, \
            f"mean {mean:.3f} levels, {off:.3%} of pixels off"

    def test_the_two_ways_are_told_apart_in_the_version(self, browser_pool, swiftshader_masks_pool):
        new = render_text(browser_pool, LINES, seed=1).renderer_version
        old = render_text(swiftshader_masks_pool, LINES, seed=1).renderer_version
        assert new.startswith(f"harness/{HARNESS_VERSION} ")
        assert old.startswith(f"harness/{HARNESS_VERSION}+gpu-masks ")


class TestLeanBlend:
    """Harness 6 gives p5.brush's blend shader its squares as products; the
    picture must stay the library's own (lean_blend=False), to within the
    rasteriser's noise between two renders, not just the fidelity bounds."""

    @pytest.fixture(scope="class")
    def brush_blend_pool(self):
        with RenderPool(make_config(browsers=1, lean_blend=False)) as pool:
            yield pool

    @pytest.mark.browser
    def test_the_installed_brush_blend_shader_is_the_one_rewritten(self):
        # A new p5.brush whose shader no longer holds the texts would lose the
        # speed quietly: this says so instead. Counted where the sketch's own
        # page paints (paint_by_replay=False): paint_speed.js, which the
        # replay page loads too, reports it there.
        code = read_sketch("good/hibiscus.js")
        # 1.x compiles its blend shader for a watercolour fill.
        code_1 = ("function setup() { createCanvas(120, 120, WEBGL); background(250); "
                  "brush.noStroke(); brush.fill('#d4553a', 90); brush.rect(-40, -40, 80, 60); }")
        for lean, expected in ((True, lambda n: n >= 1), (False, lambda n: n == 0)):
            config = make_config(browsers=1, lean_blend=lean, paint_by_replay=False)
            with RenderPool(config) as pool:
                assert expected(pool.render(code, 3).snapshot["leanBlends"]), lean
                assert expected(pool.render(code_1, 3, brush="1").snapshot["leanBlends"]), lean

    @pytest.mark.parametrize("name", ["hibiscus", "painter_hills_good"])
    def test_the_lean_blend_paints_the_brush_blend_picture(self, browser_pool,
                                                           brush_blend_pool, name):
        mean, off = difference_between(browser_pool, brush_blend_pool, WATERCOLOURS[name]())
        assert mean < 0.02 and off == 0, f"mean {mean:.4f} levels, {off:.3%} of pixels off"

    def test_the_lean_blend_paints_p5_brush_1s_blend_picture(self, browser_pool,
                                                            brush_blend_pool):
        # 1.x's shader is rewritten too (its own minified text).
        mean, off = difference_between(browser_pool, brush_blend_pool, WATERCOLOUR_1, brush="1")
        assert mean < 0.02 and off == 0, f"mean {mean:.4f} levels, {off:.3%} of pixels off"

    def test_the_two_blends_are_told_apart_in_the_version(self, browser_pool, brush_blend_pool):
        assert render_text(browser_pool, LINES, seed=1).renderer_version.startswith(
            f"harness/{HARNESS_VERSION} ")
        assert render_text(brush_blend_pool, LINES, seed=1).renderer_version.startswith(
            f"harness/{HARNESS_VERSION}+brush-blend ")


class TestCpuCanvases1x:
    """Harness 10 puts p5.brush 1.x's blend mask on a CPU canvas; the picture
    must stay the one the GPU canvas painted (cpu_canvases_1x=False), and
    the buffer for pencils and hatches, left on the GPU canvas, exactly so."""

    @pytest.fixture(scope="class")
    def gpu_canvases_pool(self):
        with RenderPool(make_config(browsers=1, cpu_canvases_1x=False)) as pool:
            yield pool

    def test_fills_on_the_cpu_mask_paint_the_gpu_canvas_picture(self, browser_pool,
                                                                gpu_canvases_pool):
        mean, off = difference_between(browser_pool, gpu_canvases_pool, WATERCOLOUR_1, brush="1")
        assert mean <= MEAN_LEVELS_MAX and off <= OFF_SHARE_MAX, \
            f"mean {mean:.3f} levels, {off:.3%} of pixels off"

    def test_pencils_and_hatches_paint_as_on_the_gpu_canvas(self, browser_pool,
                                                             gpu_canvases_pool):
        # Moved to the CPU too, these lines were 1.3 levels darker on average.
        mean, off = difference_between(browser_pool, gpu_canvases_pool, BRUSH_1_SKETCH, brush="1")
        assert mean < 0.02 and off == 0, f"mean {mean:.4f} levels, {off:.3%} of pixels off"

    def test_the_two_ways_are_told_apart_in_the_version(self, browser_pool, gpu_canvases_pool):
        assert render_text(browser_pool, BRUSH_1_SKETCH, seed=1, brush="1").renderer_version \
            .startswith(f"harness/{HARNESS_VERSION} ")
        assert render_text(gpu_canvases_pool, BRUSH_1_SKETCH, seed=1, brush="1") \
            .renderer_version.startswith(f"harness/{HARNESS_VERSION}+gpu-canvases-1x ")


class TestStoppedAtDeadline:
    """A render the deadline stops keeps what it had done by then, and is
    still rejected as a timeout (a sketch failure, never `ok` or `unavailable`)."""

    def test_slow_painting_keeps_its_phase_counts_size_and_picture_so_far(
            self, short_deadline_browsers):
        outcome = render_text(short_deadline_browsers, SLOW_PAINTING, seed=1)
        assert outcome.status == "rejected" and "timeout" in outcome.violations, outcome.report()
        assert outcome.stopped_at_deadline and outcome.phase == "running"
        assert outcome.brush_call_counts["line"] > 10, outcome.report()
        assert outcome.brush_calls == outcome.brush_call_counts["line"] + 1  # and one set()
        assert (outcome.width, outcome.height) == (120, 100)
        assert Image.open(io.BytesIO(outcome.png)).size == (120, 100)
        assert share_off_paper(outcome.png) > 0.05
        assert outcome.details["timeout"] == (
            f"stopped at the {SHORT_DEADLINE_S:g} s deadline in phase running after 0 frames "
            f"and {outcome.brush_calls} brush calls")
        assert 0 < outcome.draw_ms <= SHORT_DEADLINE_S * 1000
        assert outcome.elapsed_ms <= STOPPED_VERDICT_MS

    def test_endless_loop_in_setup_is_a_prompt_timeout_and_the_pool_renders_on(
            self, short_deadline_browsers):
        loop = """
        function setup() {
          createCanvas(80, 80, WEBGL);
          brush.set("HB", "#222", 1);
          brush.line(-30, -30, 30, 30);
          while (true) {}
        }"""
        outcome = render_text(short_deadline_browsers, loop)
        assert outcome.status == "rejected" and outcome.violations == ["timeout"], outcome.report()
        assert outcome.stopped_at_deadline and outcome.phase == "running"
        assert outcome.brush_call_counts == {"set": 1, "line": 1}
        assert (outcome.width, outcome.height) == (80, 80) and outcome.png
        assert outcome.elapsed_ms <= STOPPED_VERDICT_MS
        # Both tabs of the browser: the stopped one is replaced, the other was waiting.
        for seed in (1, 2):
            assert render_text(short_deadline_browsers, QUICK, seed).status == "ok"

    def test_loop_restarted_by_a_timer_is_still_a_timeout_within_the_grace(
            self, short_deadline_browsers):
        # Each stopped loop lets the sketch's interval start another before the
        # page answers: it may not be readable, but the verdict still comes.
        restarting = """
        function setup() {
          createCanvas(80, 80, WEBGL);
          setInterval(() => { for (;;) {} }, 0);
          for (;;) {}
        }"""
        outcome = render_text(short_deadline_browsers, restarting)
        assert outcome.status == "rejected" and "timeout" in outcome.violations, outcome.report()
        assert outcome.elapsed_ms <= STOPPED_VERDICT_MS
        if not outcome.stopped_at_deadline:
            assert outcome.png is None and "could not be read" in outcome.details["timeout"]
        assert render_text(short_deadline_browsers, QUICK).status == "ok"


class TestBrushApi:
    def test_known_method_list_matches_the_installed_library(self, browser_pool):
        # A sketch that writes the library's own method list into an unknown
        # call's name would be silly; instead read it through a plain render:
        # the harness counts every call, so call each known method's typeof.
        # The difference both ways, so the message stays short.
        probe = """
        function setup() {
          createCanvas(60, 60, WEBGL);
          brush.set("HB", "#000", 1); brush.line(-20, -20, 20, 20);
          const listed = EXPECTED;
          const keys = Object.keys(brush);
          throw new Error("KEYS:" + JSON.stringify([keys.filter((k) => !listed.includes(k)),
                                                    listed.filter((k) => !keys.includes(k))]));
        }"""
        # In the library's own page, and in the recording page, where the
        # recorder stands in for it (paint by construction) and must offer the same.
        with RenderPool(make_config(browsers=1, paint_by_replay=False)) as library_pool:
            for pool in (library_pool, browser_pool):
                for brush, methods in (("2", BRUSH_METHODS), ("1", BRUSH_1_METHODS)):
                    code = probe.replace("EXPECTED", json.dumps(sorted(methods)))
                    outcome = render_text(pool, code, brush=brush)
                    message = next(e for e in outcome.errors if "KEYS:" in e)
                    assert json.loads(message.split("KEYS:", 1)[1]) == [[], []], \
                        (brush, pool.config.paint_by_replay)


@pytest.mark.browser
class TestPoolRecovery:
    def test_pool_keeps_serving_after_its_browsers_are_killed_mid_render(self):
        with chromium_that_fails_mid_render("browsers") as chromium, \
                RenderPool(replace(make_config(browsers=2),
                                   chromium_path=str(chromium.path))) as pool:
            results = []
            workers = [
                threading.Thread(target=lambda s=s: results.append(render_text(pool, LINES, s)))
                for s in range(4)
            ]
            # Every browser is killed as the first sketch runs in its page
            # (tests/chromium_faults.py: only while that call has not returned).
            chromium.arm()
            for w in workers:
                w.start()
            for w in workers:
                w.join(timeout=60)
            assert chromium.strikes() == ["struck browsers"]
            assert len(results) == 4
            assert [r.status for r in results] == ["ok"] * 4
            # And it still renders afterwards.
            assert render_text(pool, LINES, 9).status == "ok"

    def test_missing_chromium_is_a_clear_error(self, tmp_path):
        from sketches.renderer import RendererConfig, RendererUnavailable

        with pytest.raises(RendererUnavailable, match="Chromium not found"):
            RenderPool(RendererConfig(chromium_path=str(tmp_path / "no-chromium")))


# Sketches that take their randomness from the clock or crypto: `{source}` is
# a number drawn from it, which seeds p5's random() for the strokes.
CLOCK_SKETCH = """
function setup() {{
  createCanvas(120, 120, WEBGL);
  background(250);
  randomSeed({source});
  brush.set("HB", "#222", 1);
  for (let i = 0; i < 5; i++) brush.line(random(-50, 50), -50, random(-50, 50), 50);
}}
"""
CLOCK_SOURCES = {
    "date_now": "Date.now()",
    "new_date": "new Date().getTime() % 1000003",
    "date_string": "[...Date()].reduce((h, c) => h * 31 + c.charCodeAt(0), 7) % 1000003",
    "performance_now": "Math.floor(performance.now() * 1000)",
    "event_time_stamp": "Math.floor(new Event('x').timeStamp * 1000)",
    "temporal_now": "Number(Temporal.Now.instant().epochMilliseconds)",
    "intl_format": "[...new Intl.DateTimeFormat('en', {timeStyle: 'medium'}).format()]"
                   ".reduce((h, c) => h * 31 + c.charCodeAt(0), 7) % 1000003",
    "get_random_values": "crypto.getRandomValues(new Uint32Array(1))[0]",
    "random_uuid": "parseInt(crypto.randomUUID().replace(/-/g, '').slice(0, 12), 16)",
}
# Animation by time: frame timestamps, millis() and deltaTime place the strokes.
ANIMATED_BY_TIME = """
let start;
function setup() { createCanvas(120, 120, WEBGL); background(250); start = millis(); }
function draw() {
  brush.set("2B", "#334", 1);
  const t = (millis() - start) + deltaTime;
  brush.line(-50, (t * 7) % 100 - 50, 50, (t * 13) % 100 - 50);
  requestAnimationFrame((stamp) => { window.lastStamp = stamp; });
  if (window.lastStamp) brush.line(-50, (window.lastStamp * 3) % 100 - 50, 50, 0);
  if (frameCount >= 5) noLoop();
}
"""


def render_on_both_browsers(pool, code: str, seed: int) -> list:
    """The same render twice at once, so each browser of the pool takes one."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as workers:
        return list(workers.map(lambda _: render_text(pool, code, seed), range(2)))


class TestSeededClockAndCrypto:
    """The page's clock and crypto come from the seed: the same code and seed
    paint the same pixels on either browser, another seed paints another picture."""

    @pytest.mark.parametrize("name", sorted(CLOCK_SOURCES))
    def test_same_seed_paints_the_same_and_another_seed_differs(self, browser_pool, name):
        code = CLOCK_SKETCH.format(source=CLOCK_SOURCES[name])
        first, second = render_on_both_browsers(browser_pool, code, seed=5)
        other = render_text(browser_pool, code, seed=6)
        assert first.status == second.status == other.status == "ok", first.report()
        assert first.png == second.png
        assert other.png != first.png

    def test_animation_by_time_repeats_frame_for_frame(self, browser_pool):
        first, second = render_on_both_browsers(browser_pool, ANIMATED_BY_TIME, seed=3)
        assert first.status == second.status == "ok", first.report()
        assert first.frames == second.frames == 5
        assert first.png == second.png

    def test_animation_frames_are_the_callbacks_asked_for_since_the_last(self, browser_pool):
        # Two callbacks asked for together share a frame and its timestamp;
        # one asked for inside a frame runs in the next, one frame later; a
        # cancelled one never runs. One that throws is the sketch's error, as
        # in a plain page.
        frames = """
        const seen = [];
        function setup() {
          createCanvas(80, 80, WEBGL);
          const gone = requestAnimationFrame(() => seen.push(-1));
          requestAnimationFrame((a) => {
            seen.push(a);
            requestAnimationFrame((b) => seen.push(b - a));
          });
          requestAnimationFrame((a) => seen.push(a));
          cancelAnimationFrame(gone);
        }
        function draw() {
          if (frameCount < 4) return;
          brush.set("2B", "#222", 3);
          for (let y = -30; y <= 30; y += 10) brush.line(-35, y, 35, y);
          brush.line(seen.length, seen[0] - seen[1], seen[2], -1);
          noLoop();
        }"""
        outcome = render_text(browser_pool, frames, seed=2)
        assert outcome.status == "ok", outcome.report()
        lines = [call for frame in json.loads(outcome.calls)["frames"] for call in frame
                 if call[0] == "line"]
        assert lines[-1][1:4] == [3, 0, pytest.approx(1000 / 60)]
        throws = frames.replace("cancelAnimationFrame(gone);",
                                'requestAnimationFrame(() => { throw new Error("frame boom"); });')
        outcome = render_text(browser_pool, throws, seed=2)
        assert "runtime_error" in outcome.violations, outcome.report()
        assert "frame boom" in outcome.details["runtime_error"]

    def test_busy_wait_on_the_clock_ends_and_draw_time_stays_the_browsers(self, browser_pool):
        # Ten seconds of page time pass in a million reads of the virtual clock;
        # drawMs is the browser's own clock, so it shows the real (short) time.
        wait = """
        function setup() {
          createCanvas(80, 80, WEBGL);
          const t = performance.now();
          while (performance.now() - t < 10000) {}
          brush.set("HB", "#222", 1);
          brush.line(-30, -30, 30, 30);
        }"""
        outcome = render_text(browser_pool, wait, seed=1)
        assert outcome.status == "ok", outcome.report()
        assert 0 < outcome.draw_ms < 5000

    def test_getrandomvalues_keeps_its_contract(self, browser_pool):
        probe = """
        function setup() {
          createCanvas(60, 60, WEBGL);
          brush.set("HB", "#000", 1); brush.line(-20, -20, 20, 20);
          const errors = [];
          for (const bad of [new Float32Array(2), new DataView(new ArrayBuffer(2)), [1, 2], 7,
                             new Uint8Array(65537)]) {
            try { crypto.getRandomValues(bad); errors.push("none"); }
            catch (e) { errors.push(e.name); }
          }
          const a = new Uint16Array(4);
          const same = crypto.getRandomValues(a) === a;
          const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/
            .test(crypto.randomUUID());
          throw new Error("RESULT:" + JSON.stringify({ errors, same, uuid }));
        }"""
        outcome = render_text(browser_pool, probe, seed=1)
        message = next(e for e in outcome.errors if "RESULT:" in e)
        result = json.loads(message.split("RESULT:", 1)[1])
        assert result == {"errors": ["TypeError"] * 4 + ["QuotaExceededError"],
                          "same": True, "uuid": True}


class TestHonestRoutes:
    """Honest calls that go through the routes the gate watches stay `ok`."""

    def test_set_attributes_replaces_the_canvas_and_the_new_one_is_read(self, browser_pool):
        # p5 2.2 recreates the canvas and its context in setAttributes(): the
        # new context is p5's (no raw_webgl), its canvas no overlay.
        code = """
        function setup() {
          createCanvas(120, 120, WEBGL);
          setAttributes("antialias", false);
          background("#f6f1e8");
          brush.set("HB", "#222", 1.5);
          for (let i = 0; i < 6; i++) brush.line(-50, -50 + i * 20, 50, -40 + i * 20);
        }"""
        outcome = render_text(browser_pool, code, seed=1)
        assert outcome.status == "ok", outcome.report()
        assert outcome.paint_fraction > 0.01

    def test_guide_lines_and_background_under_a_painting_pass(self, browser_pool):
        code = """
        function setup() {
          createCanvas(200, 200, WEBGL);
          background("#1d2340");
          stroke(200);
          line(-100, 40, 100, 40);
          line(0, -100, 0, 100);
          brush.noStroke();
          brush.fill("#e0603a", 80);
          brush.circle(0, -10, 70);
          brush.noFill();
          brush.set("2B", "#f0e0c0", 1);
          for (let i = 0; i < 8; i++) brush.line(-90, 50 + i * 5, 90, 52 + i * 5);
        }"""
        outcome = render_text(browser_pool, code, seed=2)
        assert outcome.status == "ok", outcome.report()

    def test_custom_field_tip_and_callbacks_that_only_answer_stay_ok(self, browser_pool):
        # Sketch code p5.brush calls back, drawing only where it is handed to
        # (the tip on its buffer, the field in its array): the brush's paint.
        code = """
        function setup() {
          createCanvas(200, 200, WEBGL);
          background("#f6f1e8");
          brush.addField("swirl", (t, field) => {
            for (let i = 0; i < field.length; i++) {
              for (let j = 0; j < field[0].length; j++) field[i][j] = 40 * sin(i / 6 + j / 9);
            }
            return field;
          });
          brush.add("dots", {
            type: "custom", weight: 4, vibration: 0.3, opacity: 120, spacing: 1.5,
            pressure: [0.8, 1.2],
            tip: (surface) => { surface.fill(0); surface.circle(0, 0, 6); },
          });
          const x = { valueOf() { return -80; } };
          const ink = { toString() { return "#2b3a55"; } };
          brush.field("swirl");
          brush.set("dots", ink, 1);
          for (let i = 0; i < 8; i++) brush.flowLine(x, -70 + i * 18, 150, 0);
          brush.noField();
          brush.fill("#c8432b", 70);
          brush.polygon([[-60, 40], [60, 40], [0, 95]]);
        }"""
        outcome = render_text(browser_pool, code, seed=4)
        assert outcome.status == "ok", outcome.report()
        assert outcome.paint_fraction > 0.01


def png_size(outcome) -> tuple[int, int]:
    with Image.open(io.BytesIO(outcome.png)) as img:
        return img.size


class TestPixelBudget:
    """The budget bounds device pixels (max_canvas_side squared), not CSS size."""

    @staticmethod
    def sketch(size: str, density: str = "") -> str:
        return f"""
        function setup() {{
          createCanvas({size}, WEBGL);
          {density}
          background("#f6f1e8");
          brush.set("HB", "#222", 3);
          brush.line(-width / 3, -height / 3, width / 3, height / 3);
          brush.line(-width / 3, height / 3, width / 3, -height / 3);
        }}"""

    def test_a_canvas_sized_for_a_screen_is_drawn_whole_at_a_lower_density(self, browser_pool):
        outcome = render_text(browser_pool, self.sketch("1360, 1800"), seed=0)
        assert outcome.status == "ok", outcome.report()
        assert (outcome.width, outcome.height) == (1360, 1800)
        budget = browser_pool.config.max_canvas_side ** 2
        w, h = png_size(outcome)
        assert w * h <= budget
        assert 0 < outcome.pixel_density < 1
        # The whole sketch, scaled (p5 rounds the buffer's sides down).
        assert abs(w - 1360 * outcome.pixel_density) < 1
        assert abs(h - 1800 * outcome.pixel_density) < 1

    def test_a_small_canvas_keeps_the_density_it_asks_for(self, browser_pool):
        outcome = render_text(browser_pool, self.sketch("100, 80", "pixelDensity(8);"), seed=0)
        assert outcome.status == "ok", outcome.report()
        assert outcome.pixel_density == 8
        assert png_size(outcome) == (800, 640)

    def test_a_density_asked_past_the_budget_is_held_to_it(self, browser_pool):
        outcome = render_text(browser_pool, self.sketch("400, 300", "pixelDensity(8);"), seed=0)
        assert outcome.status == "ok", outcome.report()
        w, h = png_size(outcome)
        assert w * h <= browser_pool.config.max_canvas_side ** 2
        assert 1 < outcome.pixel_density < 8

    def test_a_canvas_that_fits_at_no_allowed_density_is_refused_saying_so(self, browser_pool):
        outcome = render_text(browser_pool, self.sketch("5000, 5000"), seed=0)
        assert "canvas_too_large" in outcome.violations, outcome.report()
        assert "even at pixel density" in outcome.details["canvas_too_large"]


class TestSketchNames:
    """A sketch's own names behave as in a plain page: declaring what p5, the
    page or the harness also defines neither breaks the harness nor p5."""

    def test_names_shadowing_p5_and_the_page_render_and_p5_keeps_working(self, browser_pool):
        code = """
        function red() { return "#c8432b"; }
        function random(a, b) { return (a + b) / 2; }
        function open() { return 1; }
        function alert() {}
        let innerWidth = 5;
        let status = "drawing";
        var height = 7;
        function setup() {
          createCanvas(200, 160, WEBGL);
          background("#f6f1e8");
          brush.set("HB", red(), 2);
          for (let i = 0; i < 5; i++) brush.line(-80, -60 + i * 30, 80, random(-70, -50) + i * 30);
          if (open() !== 1 || innerWidth !== 5 || height !== 7) throw new Error("not its names");
        }"""
        outcome = render_text(browser_pool, code, seed=0)
        assert outcome.status == "ok", outcome.report()
        # p5's own code kept its own names: the canvas is the size asked for.
        assert (outcome.width, outcome.height) == (200, 160)


# A p5.brush 1.x sketch: push()/rotate()/pop(), setHatch() and reBlend() are
# not in 2.x.
BRUSH_1_SKETCH = """
function setup() {
  createCanvas(200, 160, WEBGL);
  angleMode(DEGREES);
  background("#f6f1e8");
  brush.push();
  brush.rotate(8);
  brush.set("HB", "#222", 1.5);
  for (let i = 0; i < 6; i++) brush.line(-80, -60 + i * 22, 80, -55 + i * 22);
  brush.pop();
  brush.setHatch("HB", "#2b5fc8", 1);
  brush.hatch(6, 45);
  brush.noStroke();
  brush.rect(-70, 20, 80, 50);
  brush.reBlend();
}
"""


class TestBrushVersions:
    """p5.brush 1.x sketches render with p5.brush 1.x and its p5 1.x, chosen by
    name or detected ("auto"); 2.x stays the default; the report names the
    libraries used."""

    def test_a_brush_1_sketch_is_detected_and_rendered_with_brush_1(self, browser_pool):
        outcome = render_text(browser_pool, BRUSH_1_SKETCH, seed=0, brush="auto")
        assert outcome.status == "ok", outcome.report()
        assert outcome.brush_version == "1"
        assert outcome.libraries["p5.brush"].startswith("1.")
        assert outcome.libraries["p5"].startswith("1.")
        assert outcome.report()["libraries"] == outcome.libraries

    def test_a_brush_2_sketch_stays_on_brush_2(self, browser_pool):
        outcome = render_text(browser_pool, LINES, seed=0, brush="auto")
        assert outcome.status == "ok", outcome.report()
        assert outcome.brush_version == "2"
        assert outcome.libraries["p5.brush"].startswith("2.")

    def test_by_default_a_brush_1_sketch_is_told_which_calls_2_lacks(self, browser_pool):
        outcome = render_text(browser_pool, BRUSH_1_SKETCH, seed=0)
        assert "unknown_brush_method" in outcome.violations, outcome.report()
        assert "not in p5.brush 2.x" in outcome.details["unknown_brush_method"]

    def test_a_brush_1_0_sketch_finds_spectral_js(self, browser_pool):
        # p5.brush 1.0's pages loaded spectral.js, and sketches written for it
        # mix their palettes with it; 2.x's page has no such global.
        code = BRUSH_1_SKETCH.replace(
            'brush.set("HB", "#222", 1.5);',
            'const inks = spectral.palette("#1b3a6b", "#e0a33a", 4);\n'
            '  brush.set("HB", inks[1], 1.5);')
        outcome = render_text(browser_pool, code, seed=0, brush="auto")
        assert outcome.status == "ok", outcome.report()
        assert outcome.libraries["spectral.js"] == "2.0.2"
        plain = LINES.replace("function setup() {",
                              "function setup() {\n  spectral.mix('#fff', '#000', 0.5);")
        outcome = render_text(browser_pool, plain, seed=0, brush="2")
        assert "runtime_error" in outcome.violations, outcome.report()
        assert "spectral" in outcome.details["runtime_error"]
        assert "spectral.js" not in outcome.libraries

    @pytest.mark.parametrize("sign", [
        "spectral.mix('#fff', '#000', 0.5);",   # 1.0's pages loaded spectral.js
        "",                                     # preload(), which p5 2.x never calls
    ])
    def test_a_sketch_calling_shared_names_but_written_for_p5_1_is_detected(self, sign):
        code = LINES.replace("function setup() {", f"function setup() {{\n  {sign}")
        if not sign:
            code = "function preload() {}\n" + code
        assert brush_version_for(code) == "1"
        # In a comment or a string it is not a sign.
        quoted = LINES.replace("function setup() {",
                               "// function preload() {} spectral.mix\nfunction setup() {")
        assert brush_version_for(quoted) == brush_version_for(LINES) == "2"

    def test_versions_alternate_on_the_same_browsers(self, browser_pool):
        # Tabs wait with the 2.x page; a 1.x sketch loads its page first.
        for _ in range(2):
            for text, brush in ((BRUSH_1_SKETCH, "1"), (LINES, "2")):
                outcome = render_text(browser_pool, text, seed=1, brush="auto")
                assert outcome.status == "ok", outcome.report()
                assert outcome.brush_version == brush
