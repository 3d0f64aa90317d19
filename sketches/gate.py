"""The gate: does this text hold a sketch that compiles, paints with p5.brush
on a WEBGL canvas, stays inside the sandbox and leaves paint on the canvas?

Verdicts are named violations, so people and reward functions can tell a
truncated reply from a blank canvas from a sketch that tried the network.
Static checks read the code; runtime checks read what the page did. Both are
general rules about the code's behaviour, not fingerprints of known sketches.
"""
from __future__ import annotations

import re

from .brush_api import methods_for, paint_methods_for
from .code_text import brackets_balanced, brush_member_names, strip_comments_and_strings
from .renderer.page_run import PageRun
from .renderer.record import BAD_RECORD as BAD_RECORD
from .renderer.record import NONDETERMINISTIC as NONDETERMINISTIC
from .renderer.record import PAINT_OVER_BUDGET as PAINT_OVER_BUDGET

NO_CODE = "no_code"
TRUNCATED = "truncated"
SYNTAX_ERROR = "syntax_error"
NO_SETUP = "no_setup"
NOT_WEBGL = "not_webgl"
NO_BRUSH_PAINTING = "no_brush_painting"
PLAIN_PRIMITIVES_ONLY = "plain_primitives_only"
UNKNOWN_BRUSH_METHOD = "unknown_brush_method"
NETWORK_ACCESS = "network_access"
EXTERNAL_ASSET = "external_asset"
TEXT_ON_CANVAS = "text_on_canvas"
BLANK_CANVAS = "blank_canvas"
RUNTIME_ERROR = "runtime_error"
TIMEOUT = "timeout"
CRASHED = "crashed"
CANVAS_TOO_LARGE = "canvas_too_large"
DIALOG = "dialog"
NAVIGATION = "navigation"
POPUP = "popup"
STORAGE_ACCESS = "storage_access"
WORKER = "worker"
TAMPERING = "tampering"
FRAME = "frame"
# Paint that did not come from p5.brush (see harness.js, "How paint reaches
# the canvas"); each detail says what was seen in words a person can act on.
# Plain p5 shapes, pasted buffers, pixel writes or raw WebGL laid much of the
# paint on the canvas, next to some brush calls (see PLAIN_PAINT_SHARE).
PLAIN_PAINTING = "plain_painting"
# Pixels written one by one (updatePixels(), set()) instead of painted.
DIRECT_PIXELS = "direct_pixels"
# An image decoded from a data: URL, a Blob or a bitmap was drawn into a canvas.
EMBEDDED_IMAGE = "embedded_image"
# WebGL drawn on a context of the sketch's own (its own canvas or an OffscreenCanvas).
RAW_WEBGL = "raw_webgl"
# A canvas, image, SVG or video of the sketch's own put into the page.
OVERLAY = "overlay"
# Words read in the finished picture of a render that passed every other check
# (sketches/painted_words.py): letters laid with honest brush strokes, which a
# vision judge would read before it looks at the painting.
PAINTED_WORDS = "painted_words"

# Calls whose only purpose is to reach outside the page.
NETWORK_PATTERN = re.compile(
    r"\b(fetch|XMLHttpRequest|WebSocket|EventSource|sendBeacon|RTCPeerConnection|importScripts)\b"
    r"|\bimport\s*\("
)
# p5 loaders and URLs: a sketch must paint from code alone.
ASSET_PATTERN = re.compile(
    r"\b(loadImage|loadFont|loadJSON|loadStrings|loadTable|loadXML|loadBytes|loadSound|"
    r"loadShader|loadModel|httpGet|httpPost|httpDo|createImg|createVideo|createAudio)\s*\("
    r"|(?:https?:|wss?:)?//[\w.-]+\.[a-z]{2,}/",
    re.I,
)
SYNTAX_ERROR_TEXT = re.compile(r"\bSyntaxError\b")

# The paint ledger (harness.js) credits each painted pixel to p5.brush or to
# plain drawing. A render is plain_painting when plain drawing laid more than
# PLAIN_PAINT_SHARE of the painted pixels and more than PLAIN_PAINT_COVER of
# the canvas: a few plain guide lines under a painting stay well below both.
# Measured with benchmarks/gate_false_rejects.py (harness 4, 2 cores,
# 2026-12-01): the painter's 300 test seeds and tests/sketches/good (303
# sketches) credit plain drawing with 0.000 of their paint (background() is
# paper, not paint), none rejected; the four hybrids in the hostile corpus
# 0.927-1.000 of the paint and 0.33-0.71 of the canvas, all rejected. Again
# with harness 7 (paint credited by the program that drew it, 2026-12-03):
# the 303 still 0.000, none rejected; the seven routes from inside a brush
# call (hostile/callback_*.js) 0.855-1.000 of the paint and 0.63-0.85 of the
# canvas, all rejected. Two plain guide lines under a painting
# (tests/test_renderer.py, TestHonestRoutes) pass.
PLAIN_PAINT_SHARE = 0.25
PLAIN_PAINT_COVER = 0.02
# Painting by construction (renderer/record.py), plain drawing never reaches
# the picture, and the sketch's own canvas in the recording page holds only
# what it drew itself: its cover there (harness.js, plainCover) against the
# replayed picture's paint is held to the same two bounds. Where that canvas
# was not cleared to one colour, the calls say what the sketch drew: plain
# p5 drawing calls more than PLAIN_CALL_SHARE of its drawing calls (plain and
# p5.brush painting together), so a painting with a few guide lines passes
# and shapes beside a token stroke do not. (By calls alone, five point()
# marks beside one fill were 83 % of the calls: an honest sketch refused.)
PLAIN_CALL_SHARE = 0.25


def static_violations(code: str, brush: str = "2") -> dict[str, str]:
    """Violations visible in the code itself, each with a short detail;
    `brush`: the p5.brush version whose methods the sketch may call."""
    found: dict[str, str] = {}
    if not brackets_balanced(code):
        found[TRUNCATED] = "unbalanced brackets or an unterminated string or comment"
    bare, _ = strip_comments_and_strings(code)
    if not re.search(r"\bsetup\b", bare):
        found[NO_SETUP] = "no setup() function"
    unknown = sorted(brush_member_names(code) - methods_for(brush))
    if unknown:
        found[UNKNOWN_BRUSH_METHOD] = f"{', '.join(unknown)} (not in p5.brush {brush}.x)"
    if not brush_member_names(code) & paint_methods_for(brush):
        found[NO_BRUSH_PAINTING] = "no p5.brush painting call in the code"
    if match := NETWORK_PATTERN.search(bare):
        found[NETWORK_ACCESS] = match.group(0)
    # URLs live inside strings, so search the code with strings intact.
    code_without_comments = _without_comments(code)
    if match := ASSET_PATTERN.search(code_without_comments):
        found[EXTERNAL_ASSET] = match.group(0)
    return found


def _without_comments(code: str) -> str:
    code = re.sub(r"/\*.*?\*/", "", code, flags=re.S)
    return re.sub(r"(?m)(^|[^:\\])//[^\n]*", r"\1", code)


def runtime_violations(run: PageRun, paint_fraction: float | None,
                       blank_floor: float, deadline_s: float | None = None) -> dict[str, str]:
    """Violations from what the page did (the harness's account and what the
    browser saw from outside). A render stopped at its deadline is judged on
    what it had done by then, less what it might still have changed."""
    snap = run.snapshot
    found: dict[str, str] = dict(snap.get("violations") or {})
    found.update(run.observed)
    errors = list(run.page_errors) + list((snap.get("errors") or {}).values())
    if any(SYNTAX_ERROR_TEXT.search(e) for e in errors):
        found[SYNTAX_ERROR] = next(e for e in errors if SYNTAX_ERROR_TEXT.search(e))
    elif errors:
        found[RUNTIME_ERROR] = errors[0]
    if run.timed_out:
        found[TIMEOUT] = timeout_detail(run, deadline_s)
    if run.crashed:
        found[CRASHED] = "the page crashed (out of memory or a renderer fault)"
    # A refused canvas leaves p5's default 2D one behind: not the sketch's choice.
    # Stopped unfinished, its canvas was not yet final (and p5's default 2D
    # canvas stands until setup() makes the sketch's own).
    unfinished = run.timed_out and snap.get("phase") != "done"
    in_setup = unfinished and snap.get("phase") != "setup_done"
    if snap.get("webgl") is False and CANVAS_TOO_LARGE not in found and not in_setup:
        found[NOT_WEBGL] = "createCanvas(w, h, WEBGL) was not called"
    if snap.get("phase") == "done" and not snap.get("brushPaintCalls"):
        plain = snap.get("plainCalls") or {}
        if plain:
            found[PLAIN_PRIMITIVES_ONLY] = ", ".join(sorted(plain))
        found[NO_BRUSH_PAINTING] = "no p5.brush painting call ran"
    recorded = snap.get("phase") == "done" and snap.get("brushPaintCalls") and snap.get("recorded")
    cover = snap.get("plainCover")
    if recorded and isinstance(cover, int | float) and paint_fraction is not None:
        share = cover / (cover + paint_fraction) if cover else 0.0
        if share > PLAIN_PAINT_SHARE and cover > PLAIN_PAINT_COVER:
            found[PLAIN_PAINTING] = (
                f"plain p5 drawing ({', '.join(sorted(snap.get('plainCalls') or {})) or 'shapes'}) "
                f"covered {cover:.1%} of the canvas against p5.brush's {paint_fraction:.1%}: "
                f"{share:.0%} of the paint; only p5.brush's paint is painted (allowed: "
                f"background() and a few guide lines, at most {PLAIN_PAINT_SHARE:.0%})")
    elif recorded:
        plain = sum(int(n) for n in (snap.get("plainCalls") or {}).values())
        share = plain / (plain + int(snap["brushPaintCalls"]))
        if share > PLAIN_CALL_SHARE:
            found[PLAIN_PAINTING] = (
                f"plain p5 drawing calls ({', '.join(sorted(snap['plainCalls']))}) were "
                f"{share:.0%} of the drawing calls; only p5.brush's paint is painted "
                f"(allowed: background() and a few guide lines, at most "
                f"{PLAIN_CALL_SHARE:.0%} of the calls)")
    elif snap.get("phase") == "done" and snap.get("brushPaintCalls"):
        share, cover = plain_paint(snap)
        if share > PLAIN_PAINT_SHARE and cover > PLAIN_PAINT_COVER:
            found[PLAIN_PAINTING] = (
                f"plain p5 drawing (shapes, image(), pixels or raw WebGL), not p5.brush, laid "
                f"{share:.0%} of the paint, {cover:.1%} of the canvas (allowed: background() "
                f"and a few guide lines, at most {PLAIN_PAINT_SHARE:.0%} of the paint)")
    unknown = snap.get("unknownCalls") or {}
    if unknown:
        found[UNKNOWN_BRUSH_METHOD] = ", ".join(sorted(unknown))
        if snap.get("brushVersion") in ("1", "2"):
            found[UNKNOWN_BRUSH_METHOD] += f" (not in p5.brush {snap['brushVersion']}.x)"
    if paint_fraction is not None and paint_fraction < blank_floor and not unfinished:
        found[BLANK_CANVAS] = f"paint fraction {paint_fraction:.4f} < {blank_floor}"
    return found


def plain_paint(snapshot: dict) -> tuple[float, float]:
    """(share of the painted pixels, share of the canvas) that the harness's
    paint ledger credits to plain drawing; zeros where it kept no account."""
    paint = snapshot.get("paint") or {}
    try:
        pixels, painted, plain = (int(paint.get(k) or 0) for k in ("pixels", "painted", "plain"))
    except (TypeError, ValueError):
        return 0.0, 0.0
    if pixels <= 0 or painted <= 0:
        return 0.0, 0.0
    return plain / painted, plain / pixels


def timeout_detail(run: PageRun, deadline_s: float | None) -> str:
    """What a render that ran out of time had done: where the page could be
    read after the deadline, the phase it was in and its counts, so a slow
    painting reads differently from an endless loop."""
    if not run.stopped_at_deadline:
        return (f"not finished within the deadline ({run.elapsed_ms} ms); "
                "the page could not be read after it")
    snap = run.snapshot
    frames = int(snap.get("frames") or 0)
    calls = sum(int(n) for n in (snap.get("brushCalls") or {}).values())
    deadline = f"the {deadline_s:g} s deadline" if deadline_s else "the deadline"
    return (f"stopped at {deadline} in phase {snap.get('phase') or 'unknown'} after "
            f"{frames} frame{'' if frames == 1 else 's'} and "
            f"{calls} brush call{'' if calls == 1 else 's'}")


def combine(static: dict[str, str], runtime: dict[str, str], run: PageRun) -> dict[str, str]:
    """Static and runtime findings as one verdict.

    The browser has the last word where the two can disagree: a static
    'no painting call' or 'no setup' is dropped when the page shows painting
    or setup ran (calls can be built dynamically), and unbalanced brackets
    count as truncation only when the JavaScript parser also rejected the
    code (the bracket scan does not parse regex literals)."""
    snap = run.snapshot
    verdict = dict(static)
    if snap.get("brushPaintCalls"):
        verdict.pop(NO_BRUSH_PAINTING, None)
    if snap.get("phase") in ("setup_done", "done"):
        verdict.pop(NO_SETUP, None)
    if TRUNCATED in verdict and SYNTAX_ERROR not in runtime and not run.unavailable:
        verdict.pop(TRUNCATED)
    verdict.update(runtime)
    return verdict


def flags(violations: list[str], details: dict[str, str]) -> dict[str, str]:
    """What a render was flagged for without being rejected: the details that
    name no violation (PAINTED_WORDS where RendererConfig.painted_words is
    "flag"). Shown wherever the violations are, so a flag is never silent."""
    return {name: detail for name, detail in (details or {}).items()
            if name not in (violations or [])}
