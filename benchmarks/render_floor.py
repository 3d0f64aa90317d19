"""The render cost floor: what a light sketch costs, and where it goes.

Issue 36 asks for 20 light renders at full pool width in at most 0.4 of
today's wall time. This measures where that time goes, in six parts:

1. The light corpus (benchmarks/light/: 20 sketches of one to a dozen
   strokes or one small wash, 400 px) at full pool width: the default
   number of browsers, one thread per browser, every core busy, --rounds
   times, by today's renderer and by the one before it (V8 with TurboFan in
   the sandbox's pages, RendererConfig.js_turbofan) taking turns. It prints
   wall time, throughput, and the CPU each render cost by Chromium process:
   the GPU process (SwiftShader compiles and draws there), the renderers
   (p5, p5.brush, the harness and the sketch) and the browser; then the
   ratio of the two ways' median wall times, and whether their verdicts and
   pictures agree. CPU is read from /proc for this process's own
   descendants only, so other work on the machine is not counted;
   CPU-seconds a render are what size a render fleet.
2. A ladder, one browser, one render at a time: what each step of a light
   render adds to the CPU a render costs. A p5 page with a 2D canvas (a
   fresh document with p5 and p5.brush loaded and run), a WebGL canvas, one
   brush dab too short to paint (p5.brush's programs and framebuffers set
   up and used once), one long line, twelve long lines.
3. Where the GPU process's fixed cost comes from, in a plain page (no p5):
   one small WebGL program drawn once in a fresh context, again, then a
   second program of the same source in the same context, each timed to
   the end of its drawing (readPixels). A new context pays for its first
   draw; a new program in a warm context does not.
4. A bound, not a renderer: the light corpus's stroke sketches (its washes
   need the harness's CPU fill masks, which a bare page lacks) drawn one
   after another in ONE document, realm and WebGL context, on a bare page
   with p5 and p5.brush and no harness: what a light render would cost if
   nothing were made fresh. No isolation at all; it bounds what keeping the
   context across sketches could save.
5. p5.brush's blend shader (every stroke and fill ends in a pass of it) in
   a plain page: its first draw in a fresh context, again, over 20 px, and
   a new program of the same source; then the same with its spectral mixing
   swapped for a linear mix (not a renderer: it shows what the spectral
   maths costs to compile and to run).
6. A route, not a renderer: the stroke sketches each in a realm of its own
   (a new isolated world) of ONE kept document and WebGL canvas, with p5
   and p5.brush loaded again in every realm, against today's renderer, one
   browser, one at a time. No harness and no isolation between sketches
   (docs/benchmarks.md says why none could be had this way).

    .venv/bin/python benchmarks/render_floor.py [--rounds 3] [--ladder 8] [--documents 10]

It asserts nothing. Figures depend on the machine; compare runs on the same
machine only (docs/benchmarks.md, "The render floor", has this machine's).
"""
from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from sketches.brush_api import BRUSH_2  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool, os_sandbox  # noqa: E402
from sketches.renderer.config import DEFAULT_BROWSERS  # noqa: E402
from sketches.renderer.fidelity import picture_difference  # noqa: E402
from sketches.renderer.libraries import load_brush, load_p5, shader_sources  # noqa: E402
from sketches.renderer.page_server import PageServer  # noqa: E402
from sketches.renderer.sandbox import chromium_args  # noqa: E402
from sketches.rendering import render_text  # noqa: E402

LIGHT = Path(__file__).resolve().parent / "light"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Chromium names each child process's kind in its command line.
KINDS = ("gpu-process", "renderer", "utility", "zygote")
SHOWN = ("gpu-process", "renderer", "browser", "utility", "other")

LADDER = {
    "p5, 2D canvas": "function setup() { createCanvas(400, 400); background(250); }",
    "WebGL canvas": "function setup() { createCanvas(400, 400, WEBGL); background(250); }",
    "one brush dab": ('function setup() { createCanvas(400, 400, WEBGL); background(250);'
                      ' brush.set("HB", "#222", 1); brush.line(0, 0, 5, 5); }'),
    "one long line": ('function setup() { createCanvas(400, 400, WEBGL); background(250);'
                      ' brush.set("HB", "#222", 1); brush.line(-190, -190, 190, 190); }'),
    "twelve lines": ('function setup() { createCanvas(400, 400, WEBGL); background(250);'
                     ' brush.set("HB", "#222", 1); for (let i = 0; i < 12; i++)'
                     ' brush.line(-190, -190 + i * 30, 190, 190 - i * 30); }'),
}

# The plain-page probes (parts 3 and 5) link a program from `vertex` and
# `fragment` alike.
LINK_PROGRAM = r"""
  const program = () => {
    const p = gl.createProgram();
    for (const [type, text] of [[gl.VERTEX_SHADER, vertex], [gl.FRAGMENT_SHADER, fragment]]) {
      const shader = gl.createShader(type);
      gl.shaderSource(shader, text);
      gl.compileShader(shader);
      gl.attachShader(p, shader);
    }
    gl.linkProgram(p);
    return p;
  };
"""

# Part 3: a fragment shader with some work in it, so that compiling it is
# not free; timed with the browser's own clock (the sandbox page's clock is
# virtual, so this runs on a plain page of the page server: its 404).
CONTEXT_PROBE = r"""
() => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 400;
  document.body.appendChild(canvas);
  const gl = canvas.getContext("webgl2");
  const vertex = `#version 300 es
    in vec2 p; void main() { gl_Position = vec4(p, 0.0, 1.0); }`;
  const fragment = `#version 300 es
    precision highp float; out vec4 colour; uniform float k;
    void main() {
      vec3 a = vec3(0.0);
      for (int i = 0; i < 38; i++) {
        float w = float(i) * k;
        a += vec3(sin(w * gl_FragCoord.x), cos(w * gl_FragCoord.y), sin(w));
      }
      colour = vec4(a / 38.0, 1.0);
    }`;
""" + LINK_PROGRAM + r"""
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 0.1, -1, -1, 0.1]), gl.STATIC_DRAW);
  const pixel = new Uint8Array(4);
  const draw = (p) => {
    const started = performance.now();
    gl.useProgram(p);
    const at = gl.getAttribLocation(p, "p");
    gl.enableVertexAttribArray(at);
    gl.vertexAttribPointer(at, 2, gl.FLOAT, false, 0, 0);
    gl.uniform1f(gl.getUniformLocation(p, "k"), 0.01);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    return performance.now() - started;
  };
  const first = program();
  const firstDraw = draw(first);
  const again = draw(first);
  const second = program();
  return [firstDraw, again, draw(second)];
}
"""


def descendants_cpu() -> dict[tuple[int, str], float]:
    """CPU seconds so far of every process below this one, keyed by pid and
    Chromium process kind ("browser" for the browser itself, "other" for
    what is not Chromium: Playwright's driver, the sandbox launcher)."""
    parents, stats = {}, {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                # Chromium rewrites its children's titles with spaces.
                args = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        stats[pid] = ((int(fields[11]) + int(fields[12])) / CLOCK_TICKS, args)
    mine, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - mine
        mine |= frontier
    out = {}
    for pid in mine:
        cpu, args = stats[pid]
        kind = next((k for k in KINDS if f"--type={k}" in args), None)
        if kind is None:
            kind = "browser" if "chromium" in args.split(" ", 1)[0] else "other"
        out[(pid, kind)] = cpu
    return out


def cpu_spent(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds by kind between two readings (a process that ended in
    between is lost: its last reading is unknown)."""
    spent: dict[str, float] = {}
    for key, cpu in after.items():
        spent[key[1]] = spent.get(key[1], 0.0) + cpu - before.get(key, 0.0)
    return spent


def cpu_row(spent: dict[str, float], renders: int) -> str:
    cells = [1000 * spent.get(kind, 0.0) / renders for kind in SHOWN]
    return " ".join(f"{c:11.0f}" for c in cells) + f" {sum(cells):7.0f}"


def cpu_header() -> str:
    return " ".join(f"{k:>11}" for k in SHOWN) + f" {'total':>7}"


def light_corpus(rounds: int, browsers: int) -> None:
    """Part 1: today's renderer and the one before it side by side, each pool
    at full width, taking turns within each round and going first in turn (the
    machine's load then falls on both alike). A third turn renders as many
    copies of a p5 page that draws nothing (the ladder's first step) with
    today's renderer: the floor of a fresh document a render."""
    sketches = [path.read_text() for path in sorted(LIGHT.glob("*.js"))]
    # "before" is the renderer of 1d25403, which issue 43 measures against:
    # V8 with TurboFan, the sketch's own page painting (harness 7).
    ways = {"before": RendererConfig(browsers=browsers, js_turbofan=True,
                                     paint_by_replay=False),
            "now": RendererConfig(browsers=browsers)}
    print(f"1. {len(sketches)} light sketches, {browsers} browsers a pool, {rounds} rounds; "
          "before: 1d25403's renderer (TurboFan, the sketch's page paints); now: paint by "
          "construction; blank: a p5 page drawing nothing")
    walls: dict[str, list[float]] = {name: [] for name in (*ways, "blank")}
    outcomes: dict[str, list] = {}
    with (contextlib.ExitStack() as stack,
          ThreadPoolExecutor(max_workers=browsers) as threads):
        pools = {name: stack.enter_context(RenderPool(config)) for name, config in ways.items()}
        turns = [("before", pools["before"], sketches), ("now", pools["now"], sketches),
                 ("blank", pools["now"], [LADDER["p5, 2D canvas"]] * len(sketches))]

        def render_all(pool: RenderPool, codes: list[str]) -> list:
            return list(threads.map(lambda code: render_text(pool, code, 0), codes))

        for pool in pools.values():
            render_all(pool, sketches[:2 * browsers])
        print(f"   {'way':6} {'round':5} {'wall s':>7} {'ms/r':>6}   "
              f"CPU ms a render: {cpu_header()}")
        for index in range(rounds):
            for name, pool, codes in turns[::-1] if index % 2 else turns:
                before = descendants_cpu()
                started = time.perf_counter()
                outcomes[name] = render_all(pool, codes)
                wall = time.perf_counter() - started
                walls[name].append(wall)
                spent = cpu_spent(before, descendants_cpu())
                not_ok = [o.status for o in outcomes[name] if o.status != "ok"]
                print(f"   {name:6} {index + 1:5d} {wall:7.2f} "
                      f"{1000 * wall / len(codes):6.0f}   {'':17}{cpu_row(spent, len(codes))}"
                      + (f"   not ok: {not_ok}" if not_ok and name != "blank" else ""),
                      flush=True)
    median = {name: statistics.median(times) for name, times in walls.items()}
    pairs = list(zip(outcomes["now"], outcomes["before"], strict=True))
    verdicts = sum(a.status == b.status for a, b in pairs)
    means = [picture_difference(a.png, b.png)[0] for a, b in pairs if a.png and b.png]
    print(f"   now / before, median wall time: {median['now'] / median['before']:.2f}; same "
          f"verdict {verdicts} of {len(sketches)}; pictures' mean difference at most "
          f"{max(means, default=0):.3f} levels")
    print(f"   blank / before: {median['blank'] / median['before']:.2f}")


def ladder(renders: int) -> None:
    print(f"\n2. the ladder: one browser, {renders} renders a step, one at a time")
    print(f"   {'step':15} {'ms/r':>6}   CPU ms a render: {cpu_header()}")
    with RenderPool(RendererConfig(browsers=1)) as pool:
        for name, code in LADDER.items():
            for _ in range(2):
                render_text(pool, code, 0)  # warm: the browser's caches hold this step
            before = descendants_cpu()
            started = time.perf_counter()
            for _ in range(renders):
                render_text(pool, code, 0)
            wall = time.perf_counter() - started
            print(f"   {name:15} {1000 * wall / renders:6.0f}   {'':17}"
                  f"{cpu_row(cpu_spent(before, descendants_cpu()), renders)}", flush=True)


@contextlib.asynccontextmanager
async def bare_page():
    """A page of one sandboxed browser, launched as the pool launches its
    own, on the page server's 404: an origin of ours without the harness."""
    config = RendererConfig()
    server = PageServer(config)
    try:
        async with async_playwright() as playwright:
            browser = await os_sandbox.launch(playwright.chromium, config,
                                              args=chromium_args(config, server), headless=True)
            side = config.viewport_side
            context = await browser.new_context(viewport={"width": side, "height": side})
            page = await context.new_page()
            await page.goto(server.origin + "/plain")
            yield page
            await browser.close()
    finally:
        server.close()


async def context_probe(documents: int) -> list[list[float]]:
    times = []
    async with bare_page() as page:
        for _ in range(documents):
            await page.reload()  # a fresh document, so a fresh context
            times.append(await page.evaluate(CONTEXT_PROBE))
    return times


def context_part(documents: int) -> None:
    times = asyncio.run(context_probe(documents))[2:]  # the first documents fill the caches
    first, again, second = (statistics.median(t[i] for t in times) for i in range(3))
    print(f"\n3. one WebGL program in a fresh document, median of {len(times)} documents:")
    print(f"   first draw in a new context    {first:6.1f} ms")
    print(f"   the same program drawn again   {again:6.1f} ms")
    print(f"   a new program, same source     {second:6.1f} ms  (same context)")


# Part 4: p5 in global mode on a bare page, started once; each sketch's
# setup() body (its createCanvas dropped) becomes draw() for one redraw(),
# which ends the frame as p5 does, so p5.brush lays its strokes.
SHARED_START = """() => new Promise((started) => {
  window.setup = () => { createCanvas(400, 400, WEBGL); noLoop(); started(); };
  window.draw = () => { if (window.sketchBody) window.sketchBody(); };
  new p5();
})"""
SHARED_DRAW = """(body) => {
  window.sketchBody = new Function(body);
  redraw();
  const gl = drawingContext;
  gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
  return document.querySelector("canvas").toDataURL("image/png").length;
}"""


def stroke_sketches() -> list[str]:
    """The light corpus without its washes, which need the harness's CPU
    fill masks: what parts 4 and 6 draw on pages without the harness."""
    return [path.read_text() for path in sorted(LIGHT.glob("*.js")) if "wash" not in path.name]


def stroke_bodies() -> list[str]:
    bodies = []
    for code in stroke_sketches():
        body = code.split("function setup() {", 1)[1].rsplit("}", 1)[0]
        bodies.append(re.sub(r"createCanvas\([^)]*\);", "", body))
    return bodies


async def shared_context(bodies: list[str], rounds: int) -> list[tuple[float, dict]]:
    results = []
    async with bare_page() as page:
        await page.add_script_tag(url="/lib/p5.js")
        await page.add_script_tag(url="/lib/p5.brush.js")
        await page.evaluate(SHARED_START)
        for body in bodies[:4]:
            await page.evaluate(SHARED_DRAW, body)
        for _ in range(rounds):
            before = descendants_cpu()
            started = time.perf_counter()
            for body in bodies:
                await page.evaluate(SHARED_DRAW, body)
            results.append((time.perf_counter() - started, cpu_spent(before, descendants_cpu())))
    return results


def shared_part(rounds: int) -> None:
    bodies = stroke_bodies()
    print(f"\n4. a bound: {len(bodies)} stroke sketches in one document, realm and context, "
          "one browser, one at a time")
    print(f"   {'round':5} {'ms/r':>6}   CPU ms a render: {cpu_header()}")
    for index, (wall, spent) in enumerate(asyncio.run(shared_context(bodies, rounds))):
        print(f"   {index + 1:5d} {1000 * wall / len(bodies):6.0f}   {'':17}"
              f"{cpu_row(spent, len(bodies))}")


# Part 5: p5.brush 2.x's blend shader (the pass that lays every stroke and
# fill on the canvas) in a fresh context, on a plain page. Its mask is empty
# but for two pixels a row, so the shader's early return covers nearly every
# pixel; the plain-mix variant swaps the spectral mixing for a linear one
# (not a renderer: it shows how much of both costs is the spectral maths).
BLEND_PROBE = r"""
([vertex, fragment, side]) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = side;
  document.body.appendChild(canvas);
  const gl = canvas.getContext("webgl2");
  const texture = (red, painted) => {
    const t = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, t);
    const data = new Uint8Array(side * side * 4);
    for (let i = 0; i < data.length; i += 4) {
      data[i] = red; data[i + 1] = 200; data[i + 2] = 100;
      data[i + 3] = painted(i / 4 % side) ? 255 : 0;
    }
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, side, side, 0, gl.RGBA, gl.UNSIGNED_BYTE, data);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    return t;
  };
  const source = texture(250, () => true), mask = texture(30, (x) => x < 2);
""" + LINK_PROGRAM + r"""
  const pixel = new Uint8Array(4);
  const draw = (p, box) => {
    const started = performance.now();
    gl.useProgram(p);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D, source);
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, mask);
    gl.uniform1i(gl.getUniformLocation(p, "u_source"), 0);
    gl.uniform1i(gl.getUniformLocation(p, "u_mask"), 1);
    gl.uniform1i(gl.getUniformLocation(p, "u_isBrush"), 1);
    gl.uniform3f(gl.getUniformLocation(p, "u_color"), 0.2, 0.3, 0.4);
    gl.enable(gl.SCISSOR_TEST);
    gl.scissor(0, 0, box, box);
    gl.drawArrays(gl.TRIANGLES, 0, 3);
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, pixel);
    return performance.now() - started;
  };
  const first = program();
  return [draw(first, side), draw(first, side), draw(first, 20), draw(program(), side)];
}
"""
SPECTRAL_MIX = "outColor=vec4(spectral_mix(bgColor,pigment.rgb,mixIntensity),1.);"
PLAIN_MIX = "outColor=vec4(mix(bgColor,pigment.rgb,mixIntensity),1.);"
BLEND_ROWS = ("first draw in a new context", "the same draw again", "again, over 20 x 20 px",
              "a new program, same source")


async def blend_probe(documents: int) -> dict[str, list[list[float]]]:
    shaders = shader_sources(load_brush(RendererConfig().library_dir, BRUSH_2))
    vertex, fragment = next((v, f) for v, f in zip(shaders, shaders[1:], strict=False)
                            if SPECTRAL_MIX in f)
    times: dict[str, list[list[float]]] = {}
    async with bare_page() as page:
        for name, text in (("spectral mix", fragment),
                           ("plain mix", fragment.replace(SPECTRAL_MIX, PLAIN_MIX))):
            times[name] = []
            for _ in range(documents):
                await page.reload()  # a fresh document, so a fresh context
                times[name].append(await page.evaluate(BLEND_PROBE, [vertex, text, 400]))
    return times


def blend_part(documents: int) -> None:
    print(f"\n5. p5.brush's blend shader, 400 px, one browser, median of {documents - 2} documents")
    print(f"   {'':30} {'spectral mix':>13} {'plain mix':>10}   (ms to the end of the draw)")
    times = {name: rows[2:] for name, rows in asyncio.run(blend_probe(documents)).items()}
    for index, row in enumerate(BLEND_ROWS):
        cells = [statistics.median(t[index] for t in times[name]) for name in times]
        print(f"   {row:30} {cells[0]:13.1f} {cells[1]:10.1f}")


# Part 6: a route, not a renderer. One kept document and WebGL canvas; each
# sketch in a realm of its own (a new isolated world: fresh globals and
# prototypes, the same DOM), where p5 and p5.brush are loaded again and p5 is
# handed the kept canvas, so the context and its compiled programs carry
# over. No harness and no isolation between sketches (a world's timers and
# listeners outlive it, and the DOM is shared): what the route would cost
# before any of the work that would make it safe.
KEEP_CANVAS = r"""
(() => {
  const createElement = Document.prototype.createElement;
  let wantWebGL = false;
  const createCanvas = () => {
    const kept = document.querySelector("canvas[data-kept]");
    if (kept) return kept;
    const canvas = createElement.call(document, "canvas");
    canvas.dataset.kept = "";
    return canvas;
  };
  Document.prototype.createElement = function (tag, ...rest) {
    if (wantWebGL && String(tag).toLowerCase() === "canvas") {
      wantWebGL = false;
      return createCanvas();
    }
    return createElement.call(this, tag, ...rest);
  };
  window.__wantWebGL = () => { wantWebGL = true; };
})();
"""
AFTER_P5 = r"""
(() => {
  const createCanvas = p5.prototype.createCanvas;
  p5.prototype.createCanvas = function (w, h, mode, ...rest) {
    if (mode === this.WEBGL) window.__wantWebGL();
    return createCanvas.call(this, w, h, mode, ...rest);
  };
})();
"""
RUN_IN_WORLD = r"""
new Promise((done) => {
  const setup = window.setup;
  window.setup = function () { setup(); noLoop(); };
  const sketch = new p5();
  const finished = () => {
    if (!sketch._setupDone) return setTimeout(finished, 5);
    const gl = sketch.drawingContext;
    gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
    const png = sketch.canvas.toDataURL("image/png");
    for (const canvas of document.querySelectorAll("canvas:not([data-kept])")) canvas.remove();
    done(png.length);
  };
  finished();
})
"""


async def fresh_worlds(sketches: list[str], rounds: int) -> list[tuple[float, dict]]:
    library_dir = RendererConfig().library_dir
    libraries = [load_p5(library_dir, BRUSH_2).source.decode(),
                 load_brush(library_dir, BRUSH_2).source.decode()]
    results = []
    async with bare_page() as page:
        cdp = await page.context.new_cdp_session(page)
        frame = (await cdp.send("Page.getFrameTree"))["frameTree"]["frame"]["id"]
        worlds = 0

        async def render(code: str) -> None:
            nonlocal worlds
            worlds += 1
            world = (await cdp.send("Page.createIsolatedWorld", {
                "frameId": frame, "worldName": f"sketch-{worlds}"}))["executionContextId"]
            for text in (KEEP_CANVAS, *libraries, AFTER_P5, code, RUN_IN_WORLD):
                answer = await cdp.send("Runtime.evaluate", {
                    "expression": text, "contextId": world, "awaitPromise": True})
                if "exceptionDetails" in answer:
                    raise RuntimeError(str(answer["exceptionDetails"])[:300])

        for code in sketches[:4]:
            await render(code)
        for _ in range(rounds):
            before = descendants_cpu()
            started = time.perf_counter()
            for code in sketches:
                await render(code)
            results.append((time.perf_counter() - started, cpu_spent(before, descendants_cpu())))
    return results


def todays_renderer(sketches: list[str], rounds: int) -> list[tuple[float, dict]]:
    results = []
    with RenderPool(RendererConfig(browsers=1)) as pool:
        for code in sketches[:4]:
            render_text(pool, code, 0)
        for _ in range(rounds):
            before = descendants_cpu()
            started = time.perf_counter()
            for code in sketches:
                render_text(pool, code, 0)
            results.append((time.perf_counter() - started, cpu_spent(before, descendants_cpu())))
    return results


def worlds_part(rounds: int) -> None:
    sketches = stroke_sketches()
    print(f"\n6. a route: {len(sketches)} stroke sketches, each in a fresh realm of one kept "
          "document and canvas, one browser, one at a time, against today's renderer")
    print(f"   {'way':7} {'round':5} {'ms/r':>6}   CPU ms a render: {cpu_header()}")
    for name, results in (("today", todays_renderer(sketches, rounds)),
                          ("worlds", asyncio.run(fresh_worlds(sketches, rounds)))):
        for index, (wall, spent) in enumerate(results):
            print(f"   {name:7} {index + 1:5d} {1000 * wall / len(sketches):6.0f}   {'':17}"
                  f"{cpu_row(spent, len(sketches))}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--browsers", type=int, default=DEFAULT_BROWSERS)
    parser.add_argument("--ladder", type=int, default=8, help="renders a ladder step")
    parser.add_argument("--documents", type=int, default=10, help="documents in part 3")
    parser.add_argument("--parts", type=int, nargs="+", default=[1, 2, 3, 4, 5, 6],
                        help="which parts to run")
    args = parser.parse_args()
    parts = {1: lambda: light_corpus(args.rounds, args.browsers), 2: lambda: ladder(args.ladder),
             3: lambda: context_part(args.documents), 4: lambda: shared_part(args.rounds),
             5: lambda: blend_part(args.documents), 6: lambda: worlds_part(args.rounds)}
    for part in args.parts:
        parts[part]()


if __name__ == "__main__":
    main()
