"""Paint by construction: what a recorded call list may hold, and whether a
list may be painted.

The page that runs a sketch records its p5.brush calls as data
(recorder.js); a page that runs no sketch code paints them with the real
library (replay.js). Between the two, this module reads the list as a
hostile document: every call must be a name from the version's vocabulary
with plain arguments, and the painting it asks for must fit a budget,
estimated before anything is drawn. A list that fails is not painted; its
violation names the figure.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass

from ..brush_api import BRUSH_1, BRUSH_2, DEFAULT_BRUSH, methods_for, paint_methods_for

# The vocabulary of a list, beside the library's own methods
# (brush_api.BRUSH_METHODS, BRUSH_1_METHODS): the p5 state the library reads,
# recorded as the sketch set it, and the objects a sketch makes (a test
# renders them in real Chromium against the installed library, so they
# cannot drift).
STATE_CALLS = ("push", "pop", "translate", "rotate", "scale", "shearX", "shearY",
               "applyMatrix", "resetMatrix", "angleMode", "randomSeed", "noiseSeed")
PAPER_CALLS = ("background", "clear")
# The methods of a Polygon or a Plot that lay paint.
PAINTING = frozenset({"show", "draw", "fill", "wash", "hatch", "mass", "erase"})
# A library method whose name is also a p5 state call (1.x's brush.push,
# brush.rotate, ...; 2.x's brush.noiseSeed) is recorded as "brush.<name>".
BRUSH_PREFIX = "brush."


@dataclass(frozen=True)
class Vocabulary:
    """What a list recorded for one p5.brush version may hold."""

    brush: str
    # The library's methods the recorder answers from its own data.
    answered: frozenset[str]
    polygon_methods: tuple[str, ...]
    plot_methods: tuple[str, ...]
    # The library's own brushes (brush.box()) and flow fields (brush.listFields()).
    brush_names: tuple[str, ...]
    field_names: tuple[str, ...]
    # Whether a list may ever be painted on a kept replay page: 1.x keeps
    # its brush state (colour, fill, hatch, rotation) in the library for the
    # page's life, outside p5's push and pop, so its lists take a fresh page.
    keeps_pages: bool

    @property
    def methods(self) -> frozenset[str]:
        return methods_for(self.brush)

    @property
    def recorded(self) -> tuple[str, ...]:
        """The library's methods recorded by name."""
        return tuple(sorted(self.methods - self.answered))

    @property
    def painting(self) -> tuple[str, ...]:
        """The names in a list that lay paint (the rest set state or make
        objects): what a later frame's opaque background paints over."""
        objects = ("Polygon", "Plot")
        methods = paint_methods_for(self.brush) - set(objects)
        return tuple(sorted(methods | FULL_CANVAS_CALLS | set(PAPER_CALLS)
                            | {f"Polygon.{m}" for m in self.polygon_methods if m in PAINTING}
                            | {f"Plot.{m}" for m in self.plot_methods if m in PAINTING}))

    @property
    def prefixed(self) -> tuple[str, ...]:
        return tuple(sorted(self.methods & (set(STATE_CALLS) | set(PAPER_CALLS))))

    def page_config(self) -> dict:
        """What recorder.js and replay.js are told of the vocabulary."""
        return {
            "version": self.brush,
            "stateCalls": list(STATE_CALLS),
            "methods": list(self.recorded),
            "prefixed": list(self.prefixed),
            "painting": list(self.painting),
            "polygonMethods": list(self.polygon_methods),
            "plotMethods": list(self.plot_methods),
            "brushNames": list(self.brush_names),
            "fieldNames": list(self.field_names),
            "maxCalls": MAX_CALLS,
            "maxPaintCalls": MAX_PAINT_CALLS,
            "maxValues": MAX_VALUES,
            "maxTipShapes": MAX_TIP_SHAPES,
        }


VOCABULARIES = {
    BRUSH_2: Vocabulary(
        brush=BRUSH_2,
        answered=frozenset({"box", "listFields", "wRand", "load", "instance", "Polygon", "Plot",
                            "Position"}),
        polygon_methods=("show", "draw", "fill", "wash", "hatch", "mass"),
        plot_methods=("addSegment", "endPlot", "rotate", "show", "draw", "fill", "wash", "hatch",
                      "mass"),
        brush_names=("pen", "rotring", "2B", "HB", "2H", "cpencil", "pastel", "crayon",
                     "charcoal", "spray", "marker"),
        field_names=("hand", "curved", "zigzag", "waves", "seabed", "spiral", "columns"),
        keeps_pages=True,
    ),
    # p5.brush 1.1.4. `preload` loads image tips, which a list never has.
    BRUSH_1: Vocabulary(
        brush=BRUSH_1,
        answered=frozenset({"box", "listFields", "load", "instance", "preload", "Polygon",
                            "Plot", "Position"}),
        polygon_methods=("show", "draw", "fill", "hatch", "erase"),
        plot_methods=("addSegment", "endPlot", "rotate", "show", "draw", "fill", "hatch",
                      "erase"),
        brush_names=("pen", "rotring", "2B", "HB", "2H", "cpencil", "charcoal", "hatch_brush",
                     "spray", "marker", "marker2"),
        field_names=("curved", "truncated", "zigzag", "seabed", "waves"),
        keeps_pages=False,
    ),
}

# Bounds on the list (recorder.js stops recording past them and says why).
# A painting of the painter's heaviest tier is a few thousand calls; an
# animation's covered frames keep their state calls (recorder.js), which are
# cheap to replay, so the calls that paint have the tighter bound.
MAX_PAINT_CALLS = 50_000
MAX_CALLS = 200_000
# Numbers and strings in all: a custom field is 200 x 200 of them.
MAX_VALUES = 2_000_000
# Shapes a custom tip may draw on its 100 x 100 surface.
MAX_TIP_SHAPES = 200
# The list as text: MAX_VALUES numbers of up to 16 characters. The recorder
# keeps to MAX_VALUES; this bounds what reaches Python whatever the page did.
MAX_RECORD_CHARS = 32_000_000

# The budget for the painting itself, checked before it is drawn.
# Brush weight and spacing bound a stroke's stamps: a custom brush of huge
# weight and tiny spacing queued minutes of software-GPU work (issue 43).
MAX_WEIGHT = 200.0
MIN_SPACING = 0.05
MAX_SCALE_BRUSHES = 20.0
# Coordinates farther than this many canvas sides from it paint nothing
# visible and only cost time (a stroke off the canvas is an honest, if blank,
# painting: the bound is for absurd values).
MAX_REACH = 100.0
# A list's estimated stamps: stroke length over spacing, times the weight
# scale; fills count their area in canvas areas. Past these it is refused.
MAX_FILL_AREAS = 400.0
# Hatching lays one stroke every `distance` across a shape: finer than half a
# pixel the lines lie on one another and only multiply the stamps.
MIN_HATCH_DISTANCE = 0.5
# Calls that blend or lay the library's whole buffers on the canvas (1.x's
# reBlend and reDraw): a full-canvas pass each, so a list is held to this
# many (an honest sketch calls them once a frame at most).
FULL_CANVAS_CALLS = frozenset({"reBlend", "reDraw"})
MAX_FULL_CANVAS_CALLS = 2_000

PAINT_OVER_BUDGET = "paint_over_budget"
BAD_RECORD = "bad_record"
# Two recordings of the same code and seed differ (sandbox.py records twice).
NONDETERMINISTIC = "nondeterministic"


# Calls that leave something in the library's own state beyond a render
# (p5.brush keeps added brushes, added fields, the fields it has generated
# and the brush scale for the page's life): a list holding one is painted on
# a fresh page, and the page is not kept for the next.
LIBRARY_STATE_CALLS = frozenset({"add", "addField", "fieldData", "field", "wiggle",
                                 "refreshField", "noField", "scaleBrushes"})


@dataclass(frozen=True)
class Recording:
    """A checked list: the text it was checked as (what is painted and
    stored, never written again), and the size of the canvas it paints on."""

    text: str
    width: float
    height: float
    density: float
    calls: int
    # No call in LIBRARY_STATE_CALLS and one canvas size throughout: it may be
    # painted on a kept replay page of that size, which stays fit to keep.
    keeps_page: bool = False

    @property
    def size(self) -> tuple[float, float, float]:
        return self.width, self.height, self.density


def page_vocabulary(brush: str = DEFAULT_BRUSH) -> dict:
    """What recorder.js and replay.js are told of `brush`'s vocabulary."""
    return VOCABULARIES[brush].page_config()


class RecordRefused(Exception):
    def __init__(self, violation: str, detail: str) -> None:
        super().__init__(detail)
        self.violation = violation
        self.detail = detail


def _number(value, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise RecordRefused(BAD_RECORD, f"{what}: {value!r} is not a number")
    return float(value)


def _object_call(name: str, allowed: tuple[str, ...], handles: set, args: list) -> None:
    kind, method = name.split(".", 1)
    if method not in allowed:
        raise RecordRefused(BAD_RECORD, f"{kind}.{method} is not a {kind} method")
    if not args or args[0] not in handles:
        raise RecordRefused(BAD_RECORD, f"{name} on a {kind} that was never made")


def check(raw: str, max_canvas_side: int, brush: str = DEFAULT_BRUSH) -> Recording:
    """The list in `raw` (recorder.js's JSON for p5.brush `brush`) if it may
    be painted; else RecordRefused naming the violation and the figure."""
    if not isinstance(raw, str):
        raise RecordRefused(BAD_RECORD, "the recording is not text")
    if len(raw) > MAX_RECORD_CHARS:
        raise RecordRefused(PAINT_OVER_BUDGET, f"a recording of {len(raw):,} characters "
                                               f"(at most {MAX_RECORD_CHARS:,})")
    try:
        data = json.loads(raw)
        frames = data["frames"]
    except (TypeError, ValueError, KeyError) as exc:
        raise RecordRefused(BAD_RECORD, f"the recording could not be read ({exc})") from exc
    if data.get("overflow"):
        raise RecordRefused(PAINT_OVER_BUDGET, f"recording stopped: {data['overflow']}")
    if not isinstance(frames, list) or not all(isinstance(f, list) for f in frames):
        raise RecordRefused(BAD_RECORD, "frames is not a list of lists")
    vocabulary = VOCABULARIES[brush]
    brush_calls = set(vocabulary.recorded) - set(vocabulary.prefixed)
    brush_calls |= {BRUSH_PREFIX + name for name in vocabulary.prefixed}
    state_calls = set(STATE_CALLS) | set(PAPER_CALLS)
    polygons: set = set()
    plots: set = set()
    width = height = density = 0.0
    calls = 0
    sizes: set = set()
    library_state = False
    fill_area = 0.0
    full_canvas_calls = 0
    painting = set(vocabulary.painting)
    paint_calls = 0
    for frame in frames:
        for call in frame:
            if not isinstance(call, list) or not call or not isinstance(call[0], str):
                raise RecordRefused(BAD_RECORD, f"not a call: {str(call)[:80]}")
            name, args = call[0], call[1:]
            calls += 1
            if name == "canvas":
                width, height, density = (_number(a, "canvas") for a in args[:3])
                sizes.add((width, height, density))
                if max(width, height) * density > 4 * max_canvas_side:
                    raise RecordRefused(PAINT_OVER_BUDGET, f"canvas {width:g}x{height:g} at "
                                                     f"density {density:g}")
            elif name == "Polygon":
                polygons.add(args[0])
            elif name == "Plot":
                plots.add(args[0])
            elif name.startswith("Polygon."):
                _object_call(name, vocabulary.polygon_methods, polygons, args)
            elif name.startswith("Plot."):
                _object_call(name, vocabulary.plot_methods, plots, args)
            elif name in ("fieldData", "addField"):
                pass
            elif name in brush_calls or name in state_calls:
                pass
            else:
                raise RecordRefused(BAD_RECORD, f"{name} is not in the p5.brush {brush}.x "
                                                "vocabulary")
            _bound(name.removeprefix(BRUSH_PREFIX), args, width, height)
            library_state = library_state or name in LIBRARY_STATE_CALLS
            full_canvas_calls += name in FULL_CANVAS_CALLS
            paint_calls += name in painting
            if name in ("rect", "circle") and width and height:
                fill_area += _shape_area(name, args) / (width * height)
    if calls > MAX_CALLS or paint_calls > MAX_PAINT_CALLS:
        raise RecordRefused(PAINT_OVER_BUDGET, f"{calls:,} calls, {paint_calls:,} of them painting "
                                         f"(at most {MAX_CALLS:,} and {MAX_PAINT_CALLS:,})")
    if full_canvas_calls > MAX_FULL_CANVAS_CALLS:
        raise RecordRefused(PAINT_OVER_BUDGET, f"{full_canvas_calls:,} full-canvas blends "
                                         f"(reBlend, reDraw; at most {MAX_FULL_CANVAS_CALLS:,})")
    if fill_area > MAX_FILL_AREAS:
        raise RecordRefused(PAINT_OVER_BUDGET, f"shapes covering {fill_area:.0f} canvas areas "
                                         f"(at most {MAX_FILL_AREAS:g})")
    # p5's default canvas comes first in every list (100 x 100 at density 1,
    # replaced by the sketch's own before anything paints on it).
    sizes.discard((100.0, 100.0, 1.0))
    return Recording(text=raw, width=width, height=height, density=density, calls=calls,
                     keeps_page=(vocabulary.keeps_pages and not library_state
                                 and len(sizes) <= 1))


def _shape_area(name: str, args: list) -> float:
    try:
        if name == "rect":
            return abs(float(args[2]) * float(args[3]))
        return math.pi * float(args[2]) ** 2
    except (IndexError, TypeError, ValueError):
        return 0.0


def _weight(value, what: str) -> None:
    weight = _number(value, what)
    if abs(weight) > MAX_WEIGHT:
        raise RecordRefused(PAINT_OVER_BUDGET, f"{what} {weight:g} (at most {MAX_WEIGHT:g})")


def _bound(name: str, args: list, width: float, height: float) -> None:
    """Per-call bounds: a brush's weight and spacing, a brush scale, and
    coordinates within reach of the canvas."""
    if name == "strokeWeight" and args:
        _weight(args[0], "strokeWeight")
    elif name in ("set", "setHatch") and len(args) > 2 and args[2] is not None:
        _weight(args[2], "brush weight")
    elif name == "scaleBrushes" and args:
        factor = _number(args[0], "scaleBrushes")
        if abs(factor) > MAX_SCALE_BRUSHES:
            raise RecordRefused(PAINT_OVER_BUDGET, f"scaleBrushes({factor:g}) "
                                             f"(at most {MAX_SCALE_BRUSHES:g})")
    elif name in ("hatch", "Polygon.hatch") and len(args) > (name != "hatch"):
        # brush.hatch(distance, ...), polygon.hatch(distance, ...) after its
        # handle (where 0 keeps the hatch already set).
        distance = args[name != "hatch"]
        if isinstance(distance, int | float) and not isinstance(distance, bool) \
                and abs(distance) < MIN_HATCH_DISTANCE \
                and not (distance == 0 and name != "hatch"):
            raise RecordRefused(PAINT_OVER_BUDGET, f"hatching every {distance:g} px "
                                             f"(at least {MIN_HATCH_DISTANCE:g})")
    elif name == "add" and len(args) > 1 and isinstance(args[1], dict):
        params = args[1]
        if params.get("type") == "image":
            raise RecordRefused("embedded_image", "a brush whose tip is an image")
        if params.get("weight") is not None:
            _weight(params["weight"], "brush weight")
        spacing = params.get("spacing")
        if spacing is not None and _number(spacing, "brush spacing") < MIN_SPACING:
            raise RecordRefused(PAINT_OVER_BUDGET, f"brush spacing {spacing:g} "
                                             f"(at least {MIN_SPACING:g})")
    elif name in ("line", "rect", "circle", "arc", "flowLine", "vertex", "beginStroke") \
            and width and height:
        reach = MAX_REACH * max(width, height)
        for value in args[:4]:
            if isinstance(value, int | float) and not isinstance(value, bool) \
                    and abs(value) > reach:
                raise RecordRefused(PAINT_OVER_BUDGET, f"{name} at {value:g}, more than "
                                                 f"{MAX_REACH:g} canvas sides away")


def first_difference(first: str, second: str | None) -> str:
    """Where two recordings of the same code and seed part, in words."""
    if second is None:
        return "the second recording of the same code and seed did not finish"
    try:
        a, b = json.loads(first)["frames"], json.loads(second)["frames"]
    except (TypeError, ValueError, KeyError):
        return "the two recordings of the same code and seed differ"
    for k, (frame_a, frame_b) in enumerate(zip(a, b, strict=False)):
        for i, (call_a, call_b) in enumerate(zip(frame_a, frame_b, strict=False)):
            if call_a != call_b:
                return (f"two recordings of the same code and seed differ at frame {k}, call "
                        f"{i}: {json.dumps(call_a)[:80]} against {json.dumps(call_b)[:80]}")
        if len(frame_a) != len(frame_b):
            return (f"two recordings of the same code and seed differ at frame {k}: "
                    f"{len(frame_a)} calls against {len(frame_b)}")
    return (f"two recordings of the same code and seed differ: {len(a)} frames against "
            f"{len(b)}")
