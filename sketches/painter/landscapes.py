"""Landscape subjects: rolling hills, a mountain lake, a seascape.

Broad areas (sky, land, water) take the watercolour budget in order of how
much of the picture they carry; texture comes from cheap strokes: grass and
ripples along flow fields, hatched reflections, trees, birds, a boat."""
from __future__ import annotations

from .brushwork import Brushwork
from .palettes import mix, warm_light
from .writer import Raw, number


def _sky(bw: Brushwork, bottom: float, rank: float = 1) -> None:
    """The sky from the top edge down to `bottom` (design units)."""
    sky = bw.colour("SKY", "sky")
    half = bw.u(200)
    bw.area(f"brush.rect({-half}, {-half}, {bw.u(400)}, {bw.u(200 + bottom)})", sky, 160,
            rank=rank, note="The sky, a pale wash from the top edge.", hatch_gap=8,
            hatch_angle=0.04)


def _sun(bw: Brushwork, x: float, y: float, r: float) -> None:
    sun = bw.const("SUN", warm_light(bw.plan.palette), "the sun")
    bw.area(f"brush.circle({bw.u(x)}, {bw.u(y)}, {bw.u(r)})", sun, 200, rank=3,
            note="The sun.", hatch_gap=3, hatch_angle=0.5)


def _clouds(bw: Brushwork, top: float, bottom: float) -> None:
    if not bw.plan.backdrop:
        return
    cloud = bw.const("CLOUD", mix(bw.plan.palette.paper, bw.plan.palette.ink, 0.25),
                     "cloud strokes")
    bw.comment("Clouds: long strokes drifting along the \"waves\" field.")
    bw.statement("brush.field", "waves")
    bw.pen("2H", cloud, 1)
    with bw.block(f"for (let i = 0; i < {bw.count(14, 4)}; i++)"):
        bw.line(f"brush.flowLine(random({-bw.u(200)}, {bw.u(100)}), "
                f"random({bw.u(top)}, {bw.u(bottom)}), random({bw.u(60)}, {bw.u(150)}), 0);")
    bw.statement("brush.noField")


def _birds(bw: Brushwork, y: float) -> None:
    ink = bw.colour("INK", "ink")
    bw.comment("A few birds, two strokes each.")
    bw.pen("pen", ink, 0.8)
    with bw.block(f"for (let i = 0; i < {bw.count(4, 2)}; i++)"):
        bw.line(f"const x = random({-bw.u(150)}, {bw.u(150)}), "
                f"y = {bw.u(y)} + random({-bw.u(30)}, {bw.u(30)});")
        bw.line(f"brush.line(x - {bw.u(7)}, y - {bw.u(3)}, x, y);")
        bw.line(f"brush.line(x, y, x + {bw.u(7)}, y - {bw.u(4)});")


def hills(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    p = plan.palette
    horizon = rng.uniform(-40, 0)
    far = bw.const("FAR", mix(p.leaf, p.sky, 0.45), "distant hills, paled by the air")
    near = bw.colour("LEAF", "leaf")
    deep = bw.colour("LEAF_DEEP", "leaf_deep")
    _sky(bw, horizon + 30)
    _sun(bw, rng.uniform(-120, 120), rng.uniform(-150, -100), rng.uniform(22, 32))
    _clouds(bw, -180, horizon - 60)
    bw.use("hills")
    bw.let("far", f"hills({bw.u(horizon)}, {bw.u(70)}, {number(rng.uniform(0.9, 1.5))}, "
                  f"{number(rng.uniform(0, 6))})")
    bw.let("near", f"hills({bw.u(horizon + 95)}, {bw.u(65)}, {number(rng.uniform(0.5, 0.9))}, "
                   f"{number(rng.uniform(0, 6))})")
    bw.area("brush.polygon(far)", far, 170, rank=2, note="Far hills.", hatch_angle=-0.3)
    bw.area("brush.polygon(near)", near, 185, rank=0, note="Near hills.", hatch_angle=0.3)
    if plan.hatching:
        bw.hatch("brush.polygon(near)", deep, gap=7, angle=round(rng.uniform(0.2, 0.5), 2),
                 note="Field rows hatched across the near hills.")
    bw.contour("near.slice(0, 41)", deep, 0.8, closed=False)
    trees = bw.count(6, 2)
    bw.comment("Trees along the near ridge: a trunk and a hatched crown each.")
    with bw.block(f"for (let i = 0; i < {trees}; i++)"):
        bw.line(f"const [x, y] = near[4 + i * {32 // trees}];")
        bw.pen("2B", deep, 1.2)
        bw.line(f"brush.line(x, y + {bw.u(4)}, x, y - {bw.u(16)});")
        if plan.hatching:
            bw.hatch(f"brush.circle(x, y - {bw.u(24)}, {bw.u(10)})", deep, gap=3, angle=0.8,
                     brush="2B", weight=0.9)
        else:
            bw.pen("2B", deep, 1.2)
            bw.line(f"brush.circle(x, y - {bw.u(24)}, {bw.u(10)});")
    if plan.detail > 0.3:
        bw.comment("Grass in the foreground: short blades combed by the \"hand\" field.")
        bw.statement("brush.field", "hand")
        bw.pen(plan.style.detail_brush, deep, 0.8)
        with bw.block(f"for (let i = 0; i < {bw.count(40, 6)}; i++)"):
            bw.line(f"brush.flowLine(random({-bw.u(200)}, {bw.u(200)}), "
                    f"random({bw.u(150)}, {bw.u(200)}), random({bw.u(6)}, {bw.u(16)}), "
                    "random(-2, -1.1));")
        bw.statement("brush.noField")
    _birds(bw, horizon - 90)
    return ("Rolling hills under an open sky: far and near ridges as glazes, hatched field "
            "rows, trees along the ridge and combed grass in front.")


def _range(bw: Brushwork, horizon: float) -> list[list[float]]:
    """A jagged mountain skyline closed along the horizon (design units)."""
    rng = bw.rng
    points, x = [[-200, horizon]], -200.0
    while x < 200:
        x = min(200.0, x + rng.uniform(25, 55))
        points.append([x, horizon - rng.uniform(30, 150)])
    points.append([200, horizon])
    return [[bw.u(px), bw.u(py)] for px, py in points]


def mountain_lake(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    p = plan.palette
    horizon = rng.uniform(10, 45)
    bw.const("HORIZON", bw.u(horizon), "the far shore")
    mountain = bw.const("MOUNTAIN", mix(p.deep, p.sky, 0.35), "mountains, hazed by distance")
    water = bw.const("WATER", mix(p.sky, p.mid, 0.3), "the lake")
    pine = bw.colour("PINE", "leaf_deep")
    paper = Raw("PAPER")
    _sky(bw, horizon)
    _clouds(bw, -185, horizon - 130)
    skyline = _range(bw, horizon)
    bw.let_points("range", skyline)
    bw.area("brush.polygon(range)", mountain, 190, rank=0, note="The mountain range.",
            hatch_angle=-0.7)
    half = bw.u(200)
    bw.area(f"brush.rect({-half}, HORIZON, {bw.u(400)}, {half} - HORIZON)", water, 160,
            rank=2, note="The lake below the far shore.", hatch_gap=6, hatch_angle=0.02)
    if plan.hatching:
        mirrored = [[x, round(2 * bw.u(horizon) - y, 1)] for x, y in skyline]
        bw.let_points("reflection", mirrored)
        bw.hatch("brush.polygon(reflection)", mountain, gap=4, angle=0.0, rand=0.3,
                 note="The range reflected: level hatching in the mountains' colour.")
    bw.comment("Snow on the peaks: short pale strokes down from each summit.")
    bw.pen("marker", paper, 1.6)
    with bw.block("for (let i = 1; i < range.length - 1; i++)"):
        bw.line("const [x, y] = range[i];")
        bw.line("if (y > HORIZON - " + str(bw.u(80)) + ") continue;")
        bw.line(f"brush.line(x, y, x - {bw.u(10)}, y + {bw.u(18)});")
        bw.line(f"brush.line(x, y, x + {bw.u(8)}, y + {bw.u(14)});")
    bw.contour("range", mountain, 0.8, closed=False, curvature=0.1)
    bw.comment("Pines along the far shore.")
    bw.pen(plan.style.detail_brush, pine, 1.1)
    with bw.block(f"for (let i = 0; i < {bw.count(14, 4)}; i++)"):
        bw.line(f"const x = random({-half}, {half}), h = random({bw.u(10)}, {bw.u(24)});")
        bw.line("brush.line(x, HORIZON, x, HORIZON - h);")
        bw.line("brush.line(x - h / 3, HORIZON - h * 0.2, x, HORIZON - h);")
        bw.line("brush.line(x + h / 3, HORIZON - h * 0.2, x, HORIZON - h);")
    if plan.detail > 0.3:
        bw.comment("Ripples across the water.")
        bw.statement("brush.field", "waves")
        bw.pen("2H", paper, 1.2)
        with bw.block(f"for (let i = 0; i < {bw.count(16, 4)}; i++)"):
            bw.line(f"brush.flowLine(random({-half}, {bw.u(100)}), random(HORIZON + "
                    f"{bw.u(20)}, {half}), random({bw.u(40)}, {bw.u(100)}), 0);")
        bw.statement("brush.noField")
    return ("A mountain lake: a jagged range in one glaze, its reflection hatched level in "
            "the water, snow on the summits and pines along the shore.")


def seascape(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    p = plan.palette
    horizon = rng.uniform(-20, 30)
    bw.const("HORIZON", bw.u(horizon), "where sea meets sky")
    sea = bw.const("SEA", mix(p.mid, p.leaf_deep, 0.35), "the sea")
    sea_deep = bw.const("SEA_DEEP", mix(p.deep, p.ink, 0.3), "wave strokes")
    land = bw.colour("LAND", "earth")
    ink = bw.colour("INK", "ink")
    sun_x = rng.uniform(-110, 110)
    _sky(bw, horizon)
    _sun(bw, sun_x, horizon - rng.uniform(40, 90), rng.uniform(20, 30))
    _clouds(bw, -185, horizon - 110)
    half = bw.u(200)
    bw.area(f"brush.rect({-half}, HORIZON, {bw.u(400)}, {half} - HORIZON)", sea, 185, rank=0,
            note="The sea.", hatch_gap=5, hatch_angle=0.02)
    side = -1 if sun_x > 0 else 1
    # A distant headland sitting on the horizon at one side, sea in front of it.
    cliff = [[side * 200, horizon - rng.uniform(60, 90)], [side * 150, horizon - 72],
             [side * 110, horizon - 45], [side * 80, horizon - 10], [side * 60, horizon + 3],
             [side * 200, horizon + 3]]
    bw.let_points("headland", [[bw.u(x), bw.u(y)] for x, y in cliff])
    bw.area("brush.polygon(headland)", land, 200, rank=2, note="A headland at one side.",
            hatch_angle=1.1)
    if plan.hatching:
        bw.hatch("brush.polygon(headland)", ink, gap=5, angle=1.0,
                 note="Shade the cliff face.")
    bw.contour("headland.slice(0, 5)", ink, 0.8, closed=False)
    bw.comment("Waves: strokes along the \"waves\" field, closer together near the shore.")
    bw.statement("brush.field", "waves")
    bw.pen(plan.style.detail_brush, sea_deep, 1)
    with bw.block(f"for (let i = 0; i < {bw.count(40, 6)}; i++)"):
        bw.line("const y = HORIZON + pow(random(), 1.6) * (" + str(half) + " - HORIZON);")
        bw.line(f"brush.flowLine(random({-half}, {bw.u(120)}), y, "
                f"random({bw.u(30)}, {bw.u(110)}), 0);")
    bw.statement("brush.noField")
    bw.comment("Light on the water under the sun.")
    bw.pen("marker", Raw("SUN"), 1.4)
    with bw.block(f"for (let i = 0; i < {bw.count(10, 3)}; i++)"):
        bw.line(f"const y = HORIZON + {bw.u(6)} + i * {bw.u(9)};")
        bw.line(f"brush.line({bw.u(sun_x - 20)} + random({bw.u(15)}), y, "
                f"{bw.u(sun_x + 20)} - random({bw.u(15)}), y);")
    bx = -side * rng.uniform(40, 110)
    bw.const("BOAT_X", bw.u(bx), "a small boat")
    bw.comment("A small boat: hull, mast and sail.")
    bw.pen("pen", ink, 1)
    y0 = bw.u(horizon + 30)
    bw.line(f"brush.polygon([[BOAT_X - {bw.u(18)}, {y0}], [BOAT_X + {bw.u(18)}, {y0}], "
            f"[BOAT_X + {bw.u(12)}, {bw.u(horizon + 37)}], [BOAT_X - {bw.u(12)}, "
            f"{bw.u(horizon + 37)}]]);")
    bw.line(f"brush.line(BOAT_X, {y0}, BOAT_X, {bw.u(horizon - 8)});")
    bw.line(f"brush.polygon([[BOAT_X, {bw.u(horizon - 8)}], [BOAT_X + {bw.u(16)}, "
            f"{bw.u(horizon + 26)}], [BOAT_X, {bw.u(horizon + 26)}]]);")
    _birds(bw, horizon - 100)
    return ("A seascape: sky, sea and a headland as glazes, waves along a flow field, "
            "light on the water under the sun and a small boat.")

