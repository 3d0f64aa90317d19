"""Flower subjects: hibiscus, peony, tulip, poppy and lotus.

Each paints, back to front: a faint backdrop, stem and leaves, the bloom as
one or two glazes over a single polygon (one watercolour fill per glaze, the
expensive part), then the cheap line work that makes it read as this flower:
veins, throat, stamens, ruffles. Lengths are designed on a 400 px canvas
centred on the origin (y grows downwards) and scaled by Brushwork.u()."""
from __future__ import annotations

import math

from .brushwork import Brushwork
from .palettes import mix
from .writer import number


def _mist(bw: Brushwork) -> tuple[str, str]:
    p = bw.plan.palette
    return "MIST", mix(p.paper, p.leaf, 0.45)


def _stem_and_leaves(bw: Brushwork, base: tuple[float, float], leaves: int,
                     leaf_len: float, leaf_wid: float) -> None:
    """A curved stem from `base` (design units) to the bottom edge, and leaves
    along it; the first leaf ranks for a watercolour fill after the bloom."""
    rng, plan = bw.rng, bw.plan
    leaf = bw.colour("LEAF", "leaf")
    leaf_deep = bw.colour("LEAF_DEEP", "leaf_deep")
    bx, by = base
    sway = rng.uniform(-40, 40)
    stem = [[bw.u(bx), bw.u(by)], [bw.u(bx + sway), bw.u((by + 200) / 2 + 20)],
            [bw.u(bx + sway * 0.4), bw.u(205)]]
    bw.comment("The stem, drawn first so the bloom sits over it.")
    bw.pen("HB", leaf_deep, 1.6)
    bw.statement("brush.spline", stem, plan.curvature)
    bw.use("petal")
    for i in range(leaves):
        side = 1 if i % 2 == 0 else -1
        t = 0.35 + 0.3 * i
        x = bx + sway * t
        y = by + (205 - by) * t
        # Leaves point up and outwards: up-right is a small negative angle (y grows down).
        lift = rng.uniform(0.35, 0.75)
        angle = round(-lift if side > 0 else lift - 3.1416, 2)
        name = bw.let(f"leaf{i + 1}", f"petal({bw.u(x)}, {bw.u(y)}, {angle}, "
                                     f"{bw.u(leaf_len * (1 - 0.15 * i))}, "
                                     f"{bw.u(leaf_wid)}, {number(side * 0.12)})")
        bw.area(f"brush.polygon({name})", leaf, 170, rank=2 + 2 * i,
                note=f"Leaf {i + 1}: a green glaze.", hatch_angle=angle - 0.6)
        if plan.hatching:
            bw.hatch(f"brush.polygon({name})", leaf_deep, gap=5, angle=angle + 0.8,
                     note=f"Shade leaf {i + 1} with hatching across its midrib.")
        if plan.detail > 0.5:
            bw.pen(plan.style.detail_brush, leaf_deep, 0.9)
            bw.line(f"brush.line({bw.u(x)}, {bw.u(y)}, {name}[12][0], {name}[12][1]);")


def hibiscus(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    cx, cy = rng.uniform(-30, 30), rng.uniform(-50, -15)
    turn = round(rng.uniform(0, 1.25), 2)
    bw.const("CX", bw.u(cx), "bloom centre")
    bw.const("CY", bw.u(cy))
    reach = rng.uniform(108, 130)
    bw.const("R", bw.u(reach), "petal reach")
    bw.const("TURN", turn, "rotation of the five petals")
    petal_c = bw.colour("PETAL", "light")
    petal_deep = bw.colour("PETAL_DEEP", "mid")
    throat = bw.colour("THROAT", "deep")
    pollen = bw.colour("POLLEN", "accent")
    bw.backdrop(rng.choice(("curved", "hand")), _mist(bw), 26, 160,
                round(rng.uniform(-0.6, 0.6), 2))
    _stem_and_leaves(bw, (cx, cy + reach * 0.45), rng.choice((1, 2)), 170, 70)

    bw.use("bloom")
    edge = bw.let("edge", "bloom(CX, CY, 5, R, TURN, 0.42, 0.03)")
    heart = bw.let("heart", "bloom(CX, CY, 5, R * 0.55, TURN, 0.6, 0.02)")
    bw.area(f"brush.polygon({edge})", petal_c, 185, rank=0,
            note="First glaze: the five petals as one wash.")
    bw.area(f"brush.polygon({heart})", petal_deep, 205, rank=1,
            note="Second glaze: the deeper colour towards the heart.")

    bw.comment("The throat: short dark strokes radiating from the centre.")
    bw.pen("marker", throat, 1.4)
    with bw.block(f"for (let i = 0; i < {bw.count(16, 5)}; i++)"):
        bw.line(f"const a = (TWO_PI * i) / {bw.count(16, 5)};")
        bw.line("brush.line(CX, CY, CX + R * 0.26 * cos(a), CY + R * 0.26 * sin(a));")
    if plan.detail > 0.3:
        bw.comment("Veins: each runs out to four fifths of the petal's own reach.")
        bw.pen(plan.style.detail_brush, petal_deep, 0.8)
        veins = bw.count(20, 5)
        with bw.block(f"for (let i = 0; i < {veins}; i++)"):
            bw.line(f"const a = TURN + (TWO_PI * i) / {veins};")
            bw.line("const reach = R * (0.42 + 0.58 * pow(abs(cos(2.5 * (a - TURN))), 0.7));")
            bw.line("brush.spline([[CX + 0.2 * reach * cos(a), CY + 0.2 * reach * sin(a)],")
            bw.line("  [CX + 0.5 * reach * cos(a + 0.05), CY + 0.5 * reach * sin(a + 0.05)],")
            bw.line(f"  [CX + 0.8 * reach * cos(a), CY + 0.8 * reach * sin(a)]], "
                    f"{number(plan.curvature)});")
    bw.contour(edge)
    bw.comment("The staminal column, tipped with pollen.")
    tip = round(turn + 3.1416 / 5 + rng.uniform(-0.2, 0.2), 2)
    bw.let("tip", f"[CX + R * 0.78 * cos({number(tip)}), CY + R * 0.78 * sin({number(tip)})]")
    bw.pen("pen", throat, 1.3)
    bw.line(f"brush.spline([[CX, CY], [CX + R * 0.4 * cos({number(tip)} - 0.12), "
            f"CY + R * 0.4 * sin({number(tip)} - 0.12)], tip], {number(plan.curvature)});")
    bw.pen("spray", pollen, 0.7)
    with bw.block(f"for (let i = 0; i < {bw.count(7, 3)}; i++)"):
        bw.line(f"brush.circle(tip[0] + random({-bw.u(12)}, {bw.u(12)}), "
                f"tip[1] + random({-bw.u(12)}, {bw.u(12)}), {bw.u(3)});")
    return ("A five-petal bloom in two glazes over one polygon, a radiating throat, "
            "veins that follow each petal, and a pollen-tipped column.")


def peony(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    cx, cy = rng.uniform(-25, 25), rng.uniform(-40, -10)
    bw.const("CX", bw.u(cx), "bloom centre")
    bw.const("CY", bw.u(cy))
    reach = rng.uniform(100, 122)
    bw.const("R", bw.u(reach), "outer petals' reach")
    outer = bw.colour("PETAL", "light")
    middle = bw.colour("PETAL_MID", "mid")
    inner = bw.colour("PETAL_DEEP", "deep")
    bw.backdrop(rng.choice(("seabed", "curved")), _mist(bw), 24, 150, round(rng.uniform(-1, 1), 2))
    _stem_and_leaves(bw, (cx, cy + reach * 0.7), 2, 150, 62)

    bw.use("bloom", "blob")
    rings = [
        ("outer", f"bloom(CX, CY, 9, R, {number(rng.uniform(0, 0.7))}, 0.74, 0.04)", outer, 180,
         "Outer ring of ruffled petals."),
        ("middle", f"bloom(CX, CY + R * 0.06, 7, R * 0.72, {number(rng.uniform(0, 0.9))}, "
                   "0.68, 0.04)", middle, 195, "Middle ring, a deeper glaze."),
        ("core", "blob(CX, CY + R * 0.08, R * 0.36, R * 0.3, 0.08, 5, 0.4)", inner, 215,
         "The tight cupped centre."),
    ]
    for rank, (name, expr, colour, opacity, note) in enumerate(rings):
        bw.let(name, expr)
        bw.area(f"brush.polygon({name})", colour, opacity, rank=(0, 1, 1.5)[rank],
                note=note, hatch_angle=0.5 + rank)
    bw.comment("Ruffles: short curved strokes, each bowed towards the centre.")
    bw.pen(plan.style.detail_brush, inner, 0.9)
    ruffles = bw.count(30, 6)
    with bw.block(f"for (let i = 0; i < {ruffles}; i++)"):
        bw.line("const a = random(TWO_PI), d = R * random(0.2, 0.85);")
        bw.line("const [x, y] = [CX + d * cos(a), CY + d * sin(a)];")
        bw.line("brush.spline([[x - 0.14 * R * sin(a), y + 0.14 * R * cos(a)],")
        bw.line("  [x + 0.05 * R * cos(a), y + 0.05 * R * sin(a)],")
        bw.line(f"  [x + 0.14 * R * sin(a), y - 0.14 * R * cos(a)]], {number(plan.curvature)});")
    bw.contour("outer")
    bw.contour("middle", inner, 0.8)
    if plan.detail > 0.4:
        bw.comment("A round bud beside the bloom.")
        bx, by = (cx + 120, cy + 60) if cx < 0 else (cx - 120, cy + 60)
        bw.let("bud", f"blob({bw.u(bx)}, {bw.u(by)}, {bw.u(22)}, {bw.u(25)}, 0.05, 3, 1)")
        bw.area("brush.polygon(bud)", middle, 190, rank=5, note="The bud, a small glaze.")
        bw.contour("bud", None, 0.8)
    return ("A peony as three nested glazes (ruffled outer ring, deeper middle, cupped "
            "centre), with bowed ruffle strokes and a bud.")


def tulip(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    cx, top = rng.uniform(-30, 30), rng.uniform(-150, -115)
    height = rng.uniform(135, 160)
    bw.const("CX", bw.u(cx), "cup centre line")
    bw.const("BASE", bw.u(top + height), "where the cup meets the stem")
    bw.const("H", bw.u(height), "cup height")
    petal_c = bw.colour("PETAL", "light")
    petal_mid = bw.colour("PETAL_MID", "mid")
    petal_deep = bw.colour("PETAL_DEEP", "deep")
    bw.backdrop(rng.choice(("hand", "columns")), _mist(bw), 22, 170, -1.57)
    _stem_and_leaves(bw, (cx, top + height), 2, 190, 46)

    bw.use("petal")
    lean = round(rng.uniform(-0.12, 0.12), 2)
    bw.comment("The cup's outline: swelling sides and three petal tips.")
    bw.let_points("cup", _tulip_cup(bw, cx, top + height, height, lean))
    bw.let("front", f"petal(CX, BASE, {number(-1.6 + lean)}, H * 0.92, H * 0.52, 0.06)")
    bw.area("brush.polygon(cup)", petal_c, 190, rank=0, note="The cup: the back petals' glaze.")
    bw.area("brush.polygon(front)", petal_mid, 205, rank=1,
            note="The front petal, a deeper glaze over the cup.", hatch_angle=1.2)
    bw.comment("Side petals drawn as edges only, overlapping the front one.")
    for side in (-1, 1):
        name = "left" if side < 0 else "right"
        bw.let(name, f"petal(CX, BASE, {number(-1.57 + lean + side * 0.3)}, H * 0.86, "
                     "H * 0.45, 0)")
    bw.contour("cup")
    bw.contour("left", petal_deep, 0.8)
    bw.contour("right", petal_deep, 0.8)
    if plan.detail > 0.3:
        bw.comment("Veins rising through the front petal.")
        bw.pen(plan.style.detail_brush, petal_deep, 0.7)
        with bw.block(f"for (let i = -{bw.count(3)}; i <= {bw.count(3)}; i++)"):
            bw.line("brush.spline([[CX + i * H * 0.03, BASE - H * 0.08], "
                    "[CX + i * H * 0.07, BASE - H * 0.45], "
                    f"[CX + i * H * 0.05, BASE - H * 0.8]], {number(plan.curvature)});")
    return ("A tulip cup in two glazes, side petals as overlapping edges, rising veins, "
            "and long blade leaves on a swaying stem.")


# The tulip cup's outline as (across, up) fractions of its width and height,
# from the stem up the right side, over three tips and down the left.
TULIP_CUP = ((0.0, 0.0), (0.25, 0.05), (0.42, 0.25), (0.48, 0.5), (0.45, 0.75), (0.38, 1.0),
             (0.2, 0.82), (0.02, 1.02), (-0.18, 0.84), (-0.38, 1.0), (-0.45, 0.75),
             (-0.48, 0.5), (-0.42, 0.25), (-0.25, 0.05))


def _tulip_cup(bw: Brushwork, cx: float, base: float, height: float,
               lean: float) -> list[list[float]]:
    width = height * 0.8
    cos_l, sin_l = math.cos(lean), math.sin(lean)
    points = []
    for across, up in TULIP_CUP:
        x, y = across * width, -up * height
        points.append([bw.u(cx + x * cos_l - y * sin_l), bw.u(base + x * sin_l + y * cos_l)])
    return points


def poppy(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    cx, cy = rng.uniform(-35, 35), rng.uniform(-50, -10)
    turn = round(rng.uniform(0, 1.5), 2)
    bw.const("CX", bw.u(cx), "bloom centre")
    bw.const("CY", bw.u(cy))
    reach = rng.uniform(105, 125)
    bw.const("R", bw.u(reach), "petal reach")
    petal_c = bw.colour("PETAL", "mid")
    petal_deep = bw.colour("PETAL_DEEP", "deep")
    ink = bw.colour("INK", "ink")
    bw.backdrop(rng.choice(("hand", "curved", "zigzag")), _mist(bw), 24, 150,
                round(rng.uniform(-0.5, 0.5), 2))
    _stem_and_leaves(bw, (cx, cy + reach * 0.5), 1, 120, 40)

    bw.use("bloom")
    bw.let("edge", f"bloom(CX, CY, 4, R, {number(turn)}, 0.5, 0.05)")
    bw.let("inner", f"bloom(CX, CY, 4, R * 0.62, {number(turn + 0.4)}, 0.55, 0.04)")
    bw.area("brush.polygon(edge)", petal_c, 200, rank=0, note="Four crinkled petals, one glaze.")
    bw.area("brush.polygon(inner)", petal_deep, 190, rank=1,
            note="The inner petals, darker and turned against the outer ones.")
    bw.area("brush.circle(CX, CY, R * 0.14)", ink, 230, rank=3,
            note="The seed head.", hatch_gap=3, hatch_angle=0.3)
    if plan.detail > 0.3:
        bw.comment("Crinkles: light creases across the petals.")
        bw.pen(plan.style.detail_brush, petal_deep, 0.7)
        with bw.block(f"for (let i = 0; i < {bw.count(14, 4)}; i++)"):
            bw.line("const a = random(TWO_PI), d = R * random(0.3, 0.75);")
            bw.line("brush.line(CX + d * cos(a), CY + d * sin(a), "
                    "CX + (d + R * 0.2) * cos(a + 0.1), CY + (d + R * 0.2) * sin(a + 0.1));")
    bw.comment("Stamens: a dark ring of fine lines, each ending in a dot.")
    bw.pen("pen", ink, 0.8)
    stamens = bw.count(30, 8)
    with bw.block(f"for (let i = 0; i < {stamens}; i++)"):
        bw.line(f"const a = (TWO_PI * i) / {stamens}, d = R * random(0.26, 0.34);")
        bw.line("brush.line(CX + R * 0.15 * cos(a), CY + R * 0.15 * sin(a), "
                "CX + d * cos(a), CY + d * sin(a));")
        bw.line(f"brush.circle(CX + d * cos(a), CY + d * sin(a), {bw.u(1.6)});")
    bw.contour("edge", ink, 0.7)
    return ("A poppy: four crinkled petals in two glazes, a dark seed head ringed by "
            "dotted stamens, and a single leaf on a hairline stem.")


def lotus(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    cx, cy = rng.uniform(-30, 30), rng.uniform(20, 45)
    bw.const("CX", bw.u(cx), "base of the flower")
    bw.const("CY", bw.u(cy))
    bw.const("R", bw.u(rng.uniform(120, 140)), "petal length")
    petal_c = bw.colour("PETAL", "light")
    petal_mid = bw.colour("PETAL_MID", "mid")
    water = bw.colour("WATER", "sky")
    leaf = bw.colour("LEAF", "leaf")
    leaf_deep = bw.colour("LEAF_DEEP", "leaf_deep")
    half = bw.u(200)
    bw.area(f"brush.rect({-half}, CY, {bw.u(400)}, {half} - CY)", water, 150, rank=4,
            note="The pond below the flower.", hatch_gap=7, hatch_angle=0.05)
    if plan.backdrop:
        bw.comment("Ripples on the pond, following the \"waves\" field.")
        bw.statement("brush.field", "waves")
        bw.pen("2H", leaf_deep, 0.8)
        with bw.block(f"for (let i = 0; i < {bw.count(18, 4)}; i++)"):
            bw.line(f"brush.flowLine(random({-half}, {bw.u(100)}), random(CY + {bw.u(10)}, "
                    f"{half}), random({bw.u(60)}, {bw.u(140)}), 0);")
        bw.statement("brush.noField")
    bw.use("blob", "crown")
    side = 1 if cx < 0 else -1
    bw.let("pad", f"blob(CX + {bw.u(side * 95)}, CY + {bw.u(70)}, {bw.u(85)}, {bw.u(26)}, "
                  "0.05, 3, 0.8)")
    bw.area("brush.polygon(pad)", leaf, 175, rank=2, note="A lily pad floating beside it.",
            hatch_angle=0.2)
    if plan.hatching:
        bw.hatch("brush.polygon(pad)", leaf_deep, gap=5, angle=0.15,
                 note="Shade the pad with flat hatching.")
    bw.let("outer", "crown(CX, CY, 5, R, 0.5)")
    bw.let("inner", "crown(CX, CY, 3, R * 0.68, 0.45)")
    bw.area("brush.polygon(outer)", petal_c, 185, rank=0, note="The outer petals, one glaze.")
    bw.area("brush.polygon(inner)", petal_mid, 200, rank=1, note="The inner petals, deeper.")
    if plan.detail > 0.3:
        bw.comment("Each petal's midline, from the base out to its tip.")
        bw.pen(plan.style.detail_brush, petal_mid, 0.8)
        with bw.block("for (let k = 0; k < 5; k++)"):
            bw.line("const [x, y] = outer[10 * k + 5]; // crown() puts petal k's tip here")
            bw.line(f"brush.spline([[CX, CY], [(CX + x) / 2 + {bw.u(4)}, (CY + y) / 2], "
                    f"[x, y]], {number(plan.curvature)});")
    bw.contour("outer")
    bw.contour("pad", leaf_deep, 0.8)
    bw.comment("Reflection: broken strokes under the flower.")
    bw.pen(plan.style.detail_brush, petal_mid, 1)
    with bw.block(f"for (let i = 0; i < {bw.count(9, 3)}; i++)"):
        bw.line(f"const y = CY + {bw.u(14)} + i * {bw.u(7)};")
        bw.line(f"brush.line(CX - {bw.u(40)} + random({bw.u(20)}), y, "
                f"CX + {bw.u(40)} - random({bw.u(20)}), y);")
    return ("A lotus on still water: a fanned crown of petals in two glazes, midlines to "
            "each tip, a hatched lily pad and a broken reflection.")
