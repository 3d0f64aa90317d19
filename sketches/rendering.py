"""From text to verdict: extract the sketch, check it statically, run it in
the pool, measure the paint, and say `ok`, `rejected` or `unavailable`.
No database here; services.py stores what this returns.

`unavailable` is the browser's failure, never the sketch's: no verdict. A
sketch that breaks its page or browser is `rejected` as `crashed` once the
pool has the evidence that it, not the browser, was at fault
(renderer/pool.py); short of that evidence the render is `unavailable`."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

from . import gate, painted_words
from .brush_api import AUTO_BRUSH, brush_choice_check, detect_brush_version
from .brush_api import BRUSHES as BRUSHES  # where callers have found it
from .code_text import brush_member_names, extract_code, written_for_p5_1
from .renderer.config import WORDS_REJECT, RendererConfig
from .renderer.libraries import BRUSH_VERSIONS, DEFAULT_BRUSH
from .renderer.paint import paint_fraction
from .renderer.pool import RenderPool

OK = "ok"
REJECTED = "rejected"
UNAVAILABLE = "unavailable"
# Bump when a change to the harness or gate can change a verdict or pixels.
# 2: print/service-worker traps, settle before the verdict, CSP nonce
# 3: fill masks on CPU canvases at GPU precision; a timed-out render keeps its evidence
# 4: a seeded clock and crypto; the canvas setAttributes() makes is the one read;
#    paint routes (text, images, pixels, raw WebGL, overlays) and the paint ledger
# 5: a 200 px viewport, the window a sketch sees pinned to the largest canvas
#    (the same for windowWidth, innerWidth, screen; media queries and CSS units
#    now see the small page)
# 6: p5.brush's blend shader squares by products (RendererConfig.lean_blend)
# 7: paint credited to p5.brush only where its own programs drew it (sketch code
#    the library calls back draws plain paint); a canvas over the pixel budget
#    drawn at a lower pixel density instead of refused
# 8: paint by construction: a p5.brush 2.x picture is painted from the
#    sketch's recorded calls in a page that runs no sketch code (plain
#    drawing named from the calls); the same pictures for honest sketches
#    (benchmarks/paint_by_construction.py); words read in the picture of a
#    passed render (painted_words.py)
# 9: p5.brush 1.x recorded and replayed as 2.x is (a 1.x tip paints in the
#    brush's colour); the objects a list made passed to the library as
#    themselves; the seeds a sketch sets before its canvas applied
# 10: p5.brush 1.x's blend mask on a CPU canvas (RendererConfig.cpu_canvases_1x):
#    1.x fills, bleeds and markers within 0.1 levels mean of harness 9's on
#    benchmarks/outside, pencils and hatches unchanged; the calls a script
#    makes as it loads (before setup) listed after the canvas, where they
#    were dropped; a tip on a brush that is not custom never called
# 11: requestAnimationFrame's frames are the harness's own (the callbacks asked
#    for since the last frame began, run together), not told apart by
#    Chromium's timestamps, which let a callback run a frame early under load;
#    every list painted in a fresh replay page (RendererConfig.
#    keep_replay_page off): a kept page painted some lists otherwise
HARNESS_VERSION = 11


@dataclass(frozen=True)
class RenderOutcome:
    status: str
    violations: list[str]
    details: dict[str, str] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    png: bytes | None = field(default=None, repr=False)
    width: int = 0
    height: int = 0
    # The main canvas's pixel density as drawn: the sketch's own, or lower
    # where its buffer would not fit the pixel budget (harness.js, fitDensity).
    pixel_density: float = 0.0
    paint_fraction: float | None = None
    brush_calls: int = 0
    brush_call_counts: dict[str, int] = field(default_factory=dict)
    unknown_calls: list[str] = field(default_factory=list)
    frames: int = 0
    # The harness's phase when the page was last read: "done" for a finished
    # sketch; for one stopped at its deadline, how far it had got.
    phase: str = ""
    stopped_at_deadline: bool = False
    elapsed_ms: int = 0
    draw_ms: int = 0
    renderer_version: str = ""
    # The p5.brush version rendered with ("1" or "2") and the libraries it
    # loaded ({"p5": "2.2.3", "p5.brush": "2.2.2"}).
    brush_version: str = ""
    libraries: dict[str, str] = field(default_factory=dict)
    # The p5.brush calls the picture was painted from (paint by construction),
    # as JSON: the painting as data. None where nothing was painted from them.
    calls: str | None = field(default=None, repr=False)
    # How long reading the picture for painted words took, in wall time and
    # in CPU (0: not read, as for a render the gate rejected before it).
    ocr_ms: int = 0
    ocr_cpu_ms: int = 0

    def report(self) -> dict:
        """The JSON-friendly account (no pixels, no calls) that tools rely on."""
        data = asdict(self)
        data.pop("png")
        data.pop("calls")
        return data


def renderer_version_of(library_versions: dict[str, str], config: RendererConfig) -> str:
    """The renderer_version stamped on renders made with these libraries and
    settings. The ways kept for comparisons only say so: SwiftShader masks
    (cpu_fill_masks=False) paint harness 2's washes, and lean_blend=False
    p5.brush's own blend shader, paint_by_replay=False the sketch's own page,
    cpu_canvases_1x=False p5.brush 1.x's blend mask on the GPU canvas."""
    libs = " ".join(f"{name}@{version}" for name, version in sorted(library_versions.items()))
    ways = (("" if config.cpu_fill_masks else "+gpu-masks")
            + ("" if config.lean_blend else "+brush-blend")
            + ("" if config.paint_by_replay else "+page-paint")
            + ("" if config.cpu_canvases_1x else "+gpu-canvases-1x")
            + ("" if config.painted_words == WORDS_REJECT else "+words-flagged"))
    return f"harness/{HARNESS_VERSION}{ways} {libs}"


def renderer_version(pool: RenderPool, brush: str = DEFAULT_BRUSH) -> str:
    """The renderer_version of a render made in `pool` with p5.brush `brush`
    ("2" or "1"): it names the libraries that render loaded."""
    return renderer_version_of(pool.libraries[brush], pool.config)


def renderer_versions(pool: RenderPool) -> tuple[str, ...]:
    """Every renderer_version `pool` stamps now, one per p5.brush version: a
    render bearing any of them was made by today's renderer."""
    return tuple(renderer_version(pool, brush) for brush in BRUSH_VERSIONS)


def brush_version_for(code: str, brush: str = AUTO_BRUSH) -> str:
    """The p5.brush version to render `code` with: `brush` itself, or for
    AUTO_BRUSH the one its calls are written for."""
    if brush_choice_check(brush) == AUTO_BRUSH:
        return detect_brush_version(brush_member_names(code), written_for_p5_1(code))
    return brush


def render_text(pool: RenderPool, text: str, seed: int = 0,
                brush: str = DEFAULT_BRUSH, deadline_s: float | None = None) -> RenderOutcome:
    """`brush`: which p5.brush to render with (BRUSHES): "2" (the
    default: what runs train on), "1", or "auto", the version the sketch's
    calls are written for. `deadline_s`: this render's deadline, where it is
    not the pool's (an import's)."""
    code = extract_code(text)
    if code is None:
        # No calls to tell a version by: the one asked for, or the default.
        brush = DEFAULT_BRUSH if brush_choice_check(brush) == AUTO_BRUSH else brush
        return RenderOutcome(REJECTED, [gate.NO_CODE],
                             {gate.NO_CODE: "no sketch found in the text"},
                             renderer_version=renderer_version(pool, brush),
                             brush_version=brush, libraries=dict(pool.libraries[brush]))
    brush = brush_version_for(code, brush)
    version = renderer_version(pool, brush)
    libraries = dict(pool.libraries[brush])
    static = gate.static_violations(code, brush)
    run = pool.render(code, seed, brush, deadline_s=deadline_s)
    if run.unavailable:
        return RenderOutcome(UNAVAILABLE, [], {}, [run.unavailable],
                             elapsed_ms=run.elapsed_ms, renderer_version=version,
                             brush_version=brush, libraries=libraries)
    fraction = paint_fraction(run.png) if run.png else None
    runtime = gate.runtime_violations(run, fraction, pool.config.blank_floor,
                                      deadline_s=deadline_s or pool.config.deadline_s)
    verdict = gate.combine(static, runtime, run)
    if run.crash_evidence:
        verdict[gate.CRASHED] = run.crash_evidence
    flags, ocr_ms, ocr_cpu_ms = {}, 0, 0
    if not verdict and run.png:
        # Only a picture that would earn reward is read: a rejected one costs nothing.
        try:
            words = painted_words.read_words(run.png)
        except ValueError as exc:
            return RenderOutcome(UNAVAILABLE, [], {}, [f"painted words not read: {exc}"],
                                 elapsed_ms=run.elapsed_ms, renderer_version=version,
                                 brush_version=brush, libraries=libraries)
        ocr_ms, ocr_cpu_ms = round(words.ocr_ms), round(words.cpu_ms)
        if words.words:
            rejects = pool.config.painted_words == WORDS_REJECT
            (verdict if rejects else flags)[gate.PAINTED_WORDS] = words.describe()
    snap = run.snapshot
    counts = {k: int(v) for k, v in (snap.get("brushCalls") or {}).items()}
    errors = list(run.page_errors) + [e for e in (snap.get("errors") or {}).values()
                                      if e not in run.page_errors]
    return RenderOutcome(
        status=REJECTED if verdict else OK,
        violations=sorted(verdict),
        details={**verdict, **flags},
        errors=errors,
        png=run.png,
        calls=run.recording,
        width=int(snap.get("width") or 0),
        height=int(snap.get("height") or 0),
        pixel_density=_number(snap.get("pixelDensity")),
        paint_fraction=fraction,
        brush_calls=sum(counts.values()),
        brush_call_counts=counts,
        unknown_calls=sorted(snap.get("unknownCalls") or {}),
        frames=int(snap.get("frames") or 0),
        phase=str(snap.get("phase") or ""),
        stopped_at_deadline=run.stopped_at_deadline,
        elapsed_ms=run.elapsed_ms,
        draw_ms=round(run.draw_ms),
        renderer_version=version,
        brush_version=brush,
        libraries=libraries,
        ocr_ms=ocr_ms,
        ocr_cpu_ms=ocr_cpu_ms,
    )


def _number(value) -> float:
    """A number from the page's account; 0.0 for anything else."""
    try:
        return float(value or 0)
    except (TypeError, ValueError):
        return 0.0
