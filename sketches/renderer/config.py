"""How the renderer is set up: one frozen object, so a pool can be built
without Django (benchmarks, scripts) and compared across settings."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from . import libraries

# The deadline stops runaway code; honest heavy paintings must finish well
# inside it. Measured with harness 3 (CPU fill masks) on 2 cores, 2026-12-01:
# benchmarks/render_deadline.py (2 browsers and a spinning process sharing the
# cores) had the painter's good tier at 600 px at median 2.8 s, worst 8.4 s,
# and five layered petals with bleed and texture (benchmarks/heavy) at 4.8 s;
# the heaviest of those (seed 46, hills) took 2.9 s alone at 600 px (the load
# made it 2.9x slower), 4.9 s at 800 px and 8.8 s at 1200 px, the largest
# canvas allowed: about 25 s under that load, estimated, still inside. Before
# harness 3 the five petals drew for 32 s alone and were cut off here.
DEFAULT_DEADLINE_S = 30.0

# p5 draws at most 60 frames a second, so 60 frames cost about 1 s of wall
# time for a sketch that animates without ever calling noLoop().
DEFAULT_MAX_FRAMES = 60

# The window a sketch sees (windowWidth, screen) is a square of this side, and
# its square is the pixel budget: a canvas or buffer with more device pixels
# is drawn at a lower pixel density so that its buffer fits (harness.js,
# fitDensity), as a 1,360 x 1,800 canvas sized for a screen is at 0.766.
DEFAULT_MAX_CANVAS_SIDE = 1200
# A buffer's longest side in device pixels: a 1 x 1,000,000 canvas is inside
# the budget but past what a WebGL drawing buffer holds.
MAX_BUFFER_SIDE = 4096
# A canvas that would need a lower density is refused (canvas_too_large): p5
# makes a main canvas at density 1 before the harness lowers it, so this
# bounds that first canvas to 1 / 0.5^2 = 4 times the budget (2,400 px a
# side); a 20,000 px canvas, a memory bomb, would need 0.06.
MIN_PIXEL_DENSITY = 0.5

# Paint fraction below which a canvas counts as blank. Measured here
# (2026-11-29, 300 px canvases): background only 0.0; a white HB pencil line
# on white 0.0038; one dark 1.4 px HB line across the canvas 0.009.
DEFAULT_BLANK_FLOOR = 0.005

# The page's real viewport. The harness reads the canvas itself, so nothing
# needs a large one, and the compositor's buffers (SwiftShader memory, cleared
# at every new document) grow with it. Measured here (2026-12-01, 8 of the
# painter's bad tier at 400 px, one browser, twice each way): a 200 px viewport
# took 0.12 CPU-s less of the GPU process per render than 1200 px (0.67
# against 0.80, 0.73 against 0.85), and 12 good and 12 bad painter sketches
# got the same verdicts, their pixels as close as two renders in one browser
# (0.0005 levels at most). Not smaller: at 64 px Chromium stopped giving an
# animation frames after its 10th, and the render ran to the deadline (4 of
# 6 times); 100 px and more ran all 12 frames every time.
# Sketches still see a window of max_canvas_side (harness.js, windowWork).
DEFAULT_VIEWPORT_SIDE = 200

# What words read in a passed render do (sketches/painted_words.py): reject
# the render (the painted_words violation), or only flag it, shown on its
# page, in the API and in a run's gallery.
WORDS_REJECT = "reject"
WORDS_FLAG = "flag"

# Two browsers keep both cores busy: SwiftShader serialises inside one browser.
DEFAULT_BROWSERS = 2

# V8's highest tier in the sandbox's pages (--max-opt: 2 is Maglev, above it
# TurboFan). A render's document lives for a fraction of a second, and
# TurboFan's background compiles of its hot functions cost CPU that the page
# is gone before it earns back. Maglev stays: without it (Sparkplug at most)
# the same light corpus took more CPU, not less. docs/benchmarks.md, "The
# render floor", has the figures and the command (benchmarks/render_floor.py)
# that measures the two side by side.
SANDBOX_JS_MAX_OPT = 2


@dataclass(frozen=True)
class RendererConfig:
    """Everything the pool needs; see the DEFAULT_* constants for why."""

    chromium_path: str = "/usr/bin/chromium"
    browsers: int = DEFAULT_BROWSERS
    deadline_s: float = DEFAULT_DEADLINE_S
    max_frames: int = DEFAULT_MAX_FRAMES
    max_canvas_side: int = DEFAULT_MAX_CANVAS_SIDE
    blank_floor: float = DEFAULT_BLANK_FLOOR
    # WORDS_REJECT or WORDS_FLAG (which says why).
    painted_words: str = WORDS_REJECT
    # V8 heap per page: a sketch that allocates without bound crashes its own
    # renderer process here instead of taking the machine's memory.
    js_heap_mb: int = 512
    # V8 stops at Maglev in the sandbox's pages (SANDBOX_JS_MAX_OPT says why).
    # True is the browser as it ran before, with TurboFan, kept so benchmarks
    # can put the two side by side; pixels do not depend on it.
    js_turbofan: bool = False
    # p5.brush's fill masks on CPU canvases at the GPU's blend precision (see
    # harness.js): 4-7x faster drawing on the painter's good tier. False is the
    # renderer before harness 3 (masks on SwiftShader), kept so benchmarks and
    # the fidelity test can put the two side by side.
    cpu_fill_masks: bool = True
    # p5.brush's blend shader with its squares as products (harness.js says
    # what that saves). False is the library's own shader, kept so benchmarks
    # and the fidelity test can put the two side by side.
    lean_blend: bool = True
    # p5.brush 1.x's blend mask (its fills, bleeds, textures and markers) on
    # a CPU canvas at the GPU's blend precision, as cpu_fill_masks does for
    # 2.x's masks, in the replay page; its buffer for pencils and hatches
    # stays on the GPU canvas, whose multisampled dots the CPU does not paint
    # alike (paint_speed.js says why). False is the renderer before harness
    # 10 (both buffers on the GPU), kept so benchmarks and the fidelity test
    # can put the two side by side (benchmarks/paint_by_construction.py
    # --against gpu-canvases-1x).
    cpu_canvases_1x: bool = True
    # p5.brush 1.x's blend passes in the replay page limited to what they
    # change (paint_speed.js says how): each pass drawn only over the tiles
    # its buffer's paint touched, and not at all for an empty buffer. The
    # pictures are the same to the pixel. False is the renderer before it, every pass
    # over the whole canvas, kept so benchmarks can put the two side by side
    # (benchmarks/paint_by_construction.py --against whole-blends-1x).
    blend_bounds_1x: bool = True
    # One SwiftShader pipeline cache for the whole GPU process (sandbox.py's
    # chromium_args says what it saves). False is the browser as it ran
    # before, kept so benchmarks can put the two side by side; pixels do not
    # depend on it.
    shared_pipeline_cache: bool = True
    # Paint by construction (record.py): the sketch's page records its
    # p5.brush 2.x calls as data and a page that runs no sketch code paints
    # them. False is the renderer before it, where the sketch's own page
    # painted and the paint ledger inferred who laid each pixel (kept for
    # p5.brush 1.x, which is not recorded yet, and for side-by-side benchmarks).
    paint_by_replay: bool = True
    # Record each sketch twice, in two fresh documents, and refuse one whose
    # lists differ (nondeterministic): what the seed does not fix (timers
    # against frames, the garbage collector) must not pick the picture.
    # Recording draws nothing, so the second costs the sketch's JavaScript
    # alone (benchmarks/paint_by_construction.py measures it).
    record_twice: bool = True
    # Keep the replay page's p5 instance, its WebGL context and p5.brush's
    # compiled programs between lists that leave nothing in the library's own
    # state (record.py, keeps_page), instead of a fresh page for each. Off:
    # p5.brush 2.x sets parts of itself up lazily, once a page, and a list
    # painted on a kept page can come out otherwise than on a fresh one,
    # which paints as the sketch's own page does (a fill, a wash, then a pen:
    # the kept page painted the wash the fresh one leaves out, 3.9-5.9 levels
    # mean apart; benchmarks/heavy/five_petals.js 0.37). A picture must
    # depend on its list alone, not on what the browser painted before.
    # Kept for side-by-side benchmarks (benchmarks/render_floor.py).
    keep_replay_page: bool = False
    viewport_side: int = DEFAULT_VIEWPORT_SIDE
    library_dir: Path = field(default_factory=libraries.default_library_dir)
    # Chromium's own sandbox (os_sandbox.py): a root worker runs the browser
    # as this unprivileged user, whom scripts/system_deps.sh creates; ignored
    # when the worker is not root.
    sandbox_user: str = "paintrl-chromium"
    # Where Chromium cannot sandbox itself (no unprivileged user namespaces),
    # render without its sandbox, warning at every launch, instead of refusing
    # to start. Off: model-written code never runs in an unsandboxed browser
    # unless someone chose it.
    allow_unsandboxed: bool = False

    def __post_init__(self) -> None:
        if self.browsers < 1:
            raise ValueError(f"browsers must be at least 1, got {self.browsers}")
        if self.deadline_s <= 0:
            raise ValueError(f"deadline_s must be positive, got {self.deadline_s}")
        if not 1 <= self.viewport_side <= self.max_canvas_side:
            raise ValueError(f"viewport_side must be in [1, max_canvas_side], "
                             f"got {self.viewport_side}")
        if self.max_frames < 1:
            raise ValueError(f"max_frames must be at least 1, got {self.max_frames}")
        if not 0 <= self.blank_floor < 1:
            raise ValueError(f"blank_floor must be in [0, 1), got {self.blank_floor}")
        if self.painted_words not in (WORDS_REJECT, WORDS_FLAG):
            raise ValueError(f"painted_words must be {WORDS_REJECT!r} or {WORDS_FLAG!r}, "
                             f"got {self.painted_words!r}")
