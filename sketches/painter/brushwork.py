"""The painter's hands: subjects describe what to paint (areas ranked by
importance, strokes, hatching) and Brushwork decides how, from the Plan, then
writes the p5.brush calls with the brush state kept straight.

Areas are recorded first and written last, so the fill budget goes to the
most important areas wherever they sit in painting order (leaves are painted
before the bloom but matter less). Every state change is emitted only when
needed: fills are switched off before contours, strokes before fills, and
hatching always gets an explicit hatchStyle (hatching after noStroke() throws
without one)."""
from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from . import jslib
from .plan import Plan
from .writer import JsWriter, Raw, call, js, number

FILL, WASH, HATCH, SKIP = "fill", "wash", "hatch", "skip"
# Opacity of a flat wash standing in for a watercolour area: opaque enough to
# read as the flat, poster-paint look of the bad end.
FLAT_OPACITY = 235
MIN_HATCH_GAP = 1.0
# The edge stroke a wash gets when the plan names no outline brush.
WASH_EDGE_BRUSH, WASH_EDGE_WEIGHT = "2H", 0.8


class Num(float):
    """A scaled length that prints as a person would write it (12.5, not 12.500000001)."""

    def __str__(self) -> str:
        return number(self, 1)

    __repr__ = __str__

    def __neg__(self) -> Num:
        return Num(-float(self))

    def __format__(self, spec: str) -> str:
        return str(self) if not spec else float.__format__(self, spec)


@dataclass
class Area:
    """A region to colour: `shape` is the drawing call (`brush.polygon(edge)`)."""

    shape: str
    colour: Raw
    opacity: int
    rank: float
    note: str
    hatch_gap: float
    hatch_angle: float
    in_loop: bool = False       # painted once per pass: never a watercolour fill
    technique: str = SKIP


class Brushwork:
    def __init__(self, plan: Plan, rng: random.Random) -> None:
        self.plan = plan
        self.rng = rng
        self.consts: list[tuple[str, str, str | None]] = []
        self.helpers: list[str] = []
        self._ops: list[tuple] = []
        self._areas: list[Area] = []
        self._depth = 0

    # --- numbers -------------------------------------------------------------
    def u(self, value: float) -> Num:
        """A length designed on a 400 px canvas, scaled to this one. Scale in
        design units (`u(2 * x)`): arithmetic on the result prints as a float."""
        return Num(round(value * self.plan.unit, 1))

    def count(self, n: int, floor: int = 1) -> int:
        """How many of n marks this plan's level of detail draws."""
        return max(floor, round(n * self.plan.detail))

    def weight(self, w: float) -> float:
        """A brush weight for this canvas. Weights are tuned at 400 px; they
        grow with the square root of the size, as a person would pick a
        slightly thicker pencil for a larger sheet, not a proportionally one."""
        return round(w * max(0.6, min(2.0, self.plan.unit ** 0.5)), 2)

    # --- declarations (written above setup() and draw()) ----------------------
    def const(self, name: str, value: object, note: str | None = None) -> Raw:
        if all(existing != name for existing, _, _ in self.consts):
            self.consts.append((name, js(value), note))
        return Raw(name)

    def colour(self, name: str, role: str, note: str | None = None) -> Raw:
        return self.const(name, getattr(self.plan.palette, role), note)

    def use(self, *helpers: str) -> None:
        for name in helpers:
            jslib.helper_source(name)
            if name not in self.helpers:
                self.helpers.append(name)

    # --- the painting, in draw() ------------------------------------------------
    def line(self, text: str) -> None:
        self._ops.append(("line", text))

    def comment(self, text: str) -> None:
        self._ops.append(("blank",))
        self._ops.append(("comment", text))

    def statement(self, name: str, *args: object) -> None:
        self.line(call(name, *args) + ";")

    def let(self, name: str, expression: str) -> Raw:
        self._ops.append(("let", f"const {name} = {expression};"))
        return Raw(name)

    def let_points(self, name: str, points: list[list[float]]) -> Raw:
        """A point-list constant, four points to a line."""
        rows = [", ".join(js(pt) for pt in points[i:i + 4]) for i in range(0, len(points), 4)]
        self._ops.append(("let", f"const {name} = ["))
        for i, row in enumerate(rows):
            self.line(f"  {row}" + ("," if i < len(rows) - 1 else ""))
        self.line("];")
        return Raw(name)

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        self._ops.append(("open", header))
        self._depth += 1
        yield
        self._depth -= 1
        self._ops.append(("close",))

    def pen(self, brush: str, colour: object, weight: float) -> None:
        """Choose the stroke brush (fills off, so shapes drawn next are outlines)."""
        self._ops.append(("pen", brush, colour, self.weight(weight)))

    def area(self, shape: str, colour: Raw, opacity: int, *, rank: float, note: str,
             hatch_gap: float = 6, hatch_angle: float = 0.8) -> None:
        """A region to colour; the plan decides watercolour, hatching or wash."""
        area = Area(shape, colour, opacity, rank, note, hatch_gap, hatch_angle,
                    in_loop=self._depth > 0)
        self._areas.append(area)
        self._ops.append(("area", area))

    def hatch(self, shape: str, colour: object, *, gap: float, angle: float,
              brush: str | None = None, weight: float = 0.8, rand: float = 0.15,
              note: str | None = None) -> None:
        """Hatch a shape (cheap texture and shadow), whatever the fill budget."""
        if note:
            self.comment(note)
        self._ops.append(("hatch", shape, colour, self.u(gap), angle,
                          brush or self.plan.style.hatch_brush, self.weight(weight), rand))

    def contour(self, points: str, colour: object | None = None, weight: float = 1.0, *,
                closed: bool = True, curvature: float | None = None) -> None:
        """Outline a point list in the style's contour brush (or the plan's
        override): closed all round, or open as one spline (a skyline)."""
        brush, base = self.plan.outline or (self.plan.style.line_brush,
                                            self.plan.style.line_weight * weight)
        ink = colour if colour is not None else self.colour(
            "CONTOUR", self.plan.style.contour_role, "contour lines")
        bend = number(self.plan.curvature if curvature is None else
                      min(curvature, self.plan.curvature))
        self.pen(brush, ink, base)
        if closed:
            self.use("outline")
            self.line(f"outline({points}, {bend});")
        else:
            self.line(f"brush.spline({points}, {bend});")

    def backdrop(self, field: str, colour: tuple[str, str], lines: int, length: float,
                 direction: float, brush: str = "2H") -> None:
        """Faint strokes along a flow field behind the subject, in `colour`
        (a constant's name and value, declared only when the plan has a backdrop)."""
        if not self.plan.backdrop:
            return
        name = self.const(colour[0], colour[1], "backdrop strokes")
        self.comment(f"Backdrop: faint strokes along the \"{field}\" flow field.")
        self.statement("brush.field", field)
        self.pen(brush, name, 1)
        half = self.u(200)
        with self.block(f"for (let i = 0; i < {self.count(lines, 4)}; i++)"):
            self.line(f"brush.flowLine(random({-half}, {half}), random({-half}, {half}), "
                      f"random({self.u(length * 0.6)}, {self.u(length)}), "
                      f"{number(direction)});")
        self.statement("brush.noField")

    # --- writing ----------------------------------------------------------------
    def fills_used(self) -> int:
        return sum(1 for a in self._areas if a.technique == FILL)

    def settle(self) -> None:
        """Decide each area's technique; call once painting is described and
        before the constants are written (flat washes declare INK)."""
        self._assign_techniques()
        if self.plan.flat and any(a.technique == WASH for a in self._areas):
            self.colour("INK", "ink")

    def write_body(self, w: JsWriter) -> None:
        _Emitter(w, self.plan).run(self._ops)

    def _assign_techniques(self) -> None:
        plan = self.plan
        budget = plan.fills
        for area in sorted(self._areas, key=lambda a: a.rank):
            if plan.flat:
                area.technique = WASH
            elif budget and not area.in_loop:
                area.technique = FILL
                budget -= 1
            else:
                area.technique = plan.fallback


class _Emitter:
    """Writes ops, tracking brush state so each switch is written once."""

    def __init__(self, w: JsWriter, plan: Plan) -> None:
        self.w = w
        self.plan = plan
        self.stroke = True  # p5.brush starts with a stroke brush set
        self.filling = False
        self.pen: tuple | None = None
        self.bleed: str | None = None
        self.texture: str | None = None
        self.blocks: list = []

    def run(self, ops: list[tuple]) -> None:
        last = "open"
        for op in ops:
            if op[0] == "let" and last not in ("let", "blank", "comment", "open"):
                self.w.blank()  # set geometry apart from the painting before it
            getattr(self, f"_{op[0]}")(*op[1:])
            last = op[0]

    def _line(self, text: str) -> None:
        self.w.line(text)

    _let = _line

    def _comment(self, text: str) -> None:
        self.w.comment(text)

    def _blank(self) -> None:
        self.w.blank()

    def _open(self, header: str) -> None:
        # A loop's second pass starts in whatever state its first pass ended
        # in: forget the pen so the first one inside the block is written.
        self.pen = None
        block = self.w.block(header)
        block.__enter__()
        self.blocks.append(block)

    def _close(self) -> None:
        self.blocks.pop().__exit__(None, None, None)
        self.pen = None

    def _pen(self, brush: str, colour: object, weight: float) -> None:
        if self.filling:
            self.w.statement("brush.noFill")
            self.filling = False
        if (brush, colour, weight) != self.pen or not self.stroke:
            self.w.statement("brush.set", brush, colour, weight)
            self.pen, self.stroke = (brush, colour, weight), True

    def _no_stroke(self) -> None:
        if self.stroke:
            self.w.statement("brush.noStroke")
            self.stroke = False

    def _no_fill(self) -> None:
        if self.filling:
            self.w.statement("brush.noFill")
            self.filling = False

    def _area(self, area: Area) -> None:
        if area.technique == SKIP:
            return
        self.w.blank()
        self.w.comment(area.note)
        opacity = min(255, round(area.opacity * self.plan.opacity))
        if area.technique == FILL:
            self._no_stroke()
            self.w.statement("brush.fill", area.colour, opacity)
            self.filling = True
            bleed = call("brush.fillBleed", self.plan.bleed, "out")
            if bleed != self.bleed:
                self.w.line(bleed + ";")
                self.bleed = bleed
            texture = call("brush.fillTexture", self.plan.texture,
                           round(0.25 + self.plan.texture * 0.4, 2))
            if texture != self.texture:
                self.w.line(texture + ";")
                self.texture = texture
            self.w.line(area.shape + ";")
        elif area.technique == WASH:
            self._no_stroke()
            self._no_fill()
            flat = FLAT_OPACITY if self.plan.flat else round(opacity * 0.6)
            self.w.statement("brush.wash", area.colour, flat)
            self.w.line(area.shape + ";")
            self.w.statement("brush.noWash")
            # Edge every wash with a stroke straight away. Besides the look, it
            # keeps washes from running together: p5.brush 2.2.2 drops a wash
            # drawn right after a wash of another colour when a stroke or hatch
            # comes next (measured here: wash A, wash B, stroke paints A only).
            brush, weight = self.plan.outline or (WASH_EDGE_BRUSH, WASH_EDGE_WEIGHT)
            self._pen(brush, Raw("INK") if self.plan.flat else area.colour, weight)
            self.w.line(area.shape + ";")
        elif area.technique == HATCH:
            self._hatch(area.shape, area.colour, area.hatch_gap * self.plan.unit,
                        area.hatch_angle, self.plan.style.hatch_brush, 0.8, 0.15)

    def _hatch(self, shape: str, colour: object, gap: float, angle: float, brush: str,
               weight: float, rand: float) -> None:
        self._no_stroke()
        self._no_fill()
        self.w.statement("brush.hatchStyle", brush, colour, weight)
        # At least a pixel apart: on a thumbnail a designed gap can round to
        # nothing, and hatching with no gap never ends.
        self.w.statement("brush.hatch", max(MIN_HATCH_GAP, round(gap, 1)), round(angle, 2),
                         {"rand": rand})
        self.w.line(shape + ";")
        self.w.statement("brush.noHatch")
