"""Still-life subjects: a bowl of fruit, a vase of sprigs with a lemon.

Objects sit on a table edge against a wall; the largest object and the
brightest fruit take the watercolour budget, shadows are always hatched (the
cheapest way to seat an object on a surface), highlights are paper-coloured
marks laid over the paint."""
from __future__ import annotations

from .brushwork import Brushwork
from .palettes import mix
from .writer import Raw, js, number

FRUIT_ROLES = ("mid", "accent", "light", "deep")


def _table(bw: Brushwork, top: float) -> None:
    p = bw.plan.palette
    if bw.plan.backdrop:
        bw.backdrop("columns", ("WALL", mix(p.paper, p.earth, 0.35)), 18, 150, -1.57)
    table = bw.colour("TABLE", "earth")
    half = bw.u(200)
    bw.const("TABLE_Y", bw.u(top), "the table's front edge")
    bw.area(f"brush.rect({-half}, TABLE_Y, {bw.u(400)}, {half} - TABLE_Y)", table, 150,
            rank=3, note="The table top.", hatch_gap=11, hatch_angle=0.08)
    bw.pen(bw.plan.style.detail_brush, Raw("TABLE"), 1.2)
    bw.line(f"brush.line({-half}, TABLE_Y, {half}, TABLE_Y);")


def _shadow(bw: Brushwork, x: float, y: float, rx: float, ry: float) -> None:
    ink = bw.colour("INK", "ink")
    bw.use("blob")
    bw.hatch(f"brush.polygon(blob({bw.u(x)}, {bw.u(y)}, {bw.u(rx)}, {bw.u(ry)}, 0.05, 2, 0))",
             ink, gap=4, angle=0.3, weight=0.7, note="A cast shadow, hatched.")


def _highlight(bw: Brushwork, name: str) -> None:
    """A paper-coloured glint on the upper left of a blob named `name`."""
    bw.pen("marker", Raw("PAPER"), 1.2)
    bw.line(f"brush.spline([{name}[20], {name}[22], {name}[24]], 0.5);")


def fruit_bowl(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    p = plan.palette
    table_y = rng.uniform(30, 60)
    _table(bw, table_y)
    cx = rng.uniform(-30, 30)
    rim = table_y - rng.uniform(55, 70)
    bw.const("BOWL_X", bw.u(cx), "bowl centre line")
    bw.const("RIM_Y", bw.u(rim), "bowl rim")
    _shadow(bw, cx + 25, table_y + 30, 120, 18)
    bw.use("blob", "vessel")
    fruits = rng.choice((3, 4))
    spots = sorted(rng.sample(range(-3, 4), fruits))
    sizes = [rng.uniform(36, 48) for _ in spots]
    biggest = max(range(fruits), key=sizes.__getitem__)
    for i, (spot, size) in enumerate(zip(spots, sizes, strict=True)):
        role = FRUIT_ROLES[i % len(FRUIT_ROLES)]
        colour = bw.colour(f"FRUIT_{i + 1}", role)
        x = cx + spot * 30
        y = rim - size * 0.55 + abs(spot) * 6
        name = bw.let(f"fruit{i + 1}", f"blob({bw.u(x)}, {bw.u(y)}, {bw.u(size)}, "
                                       f"{bw.u(size * 0.95)}, 0.04, 2, {i})")
        bw.area(f"brush.polygon({name})", colour, 200,
                rank=0 if i == biggest else 2 + i, note=f"Fruit {i + 1}.", hatch_angle=0.6 + i)
        if plan.hatching:
            bw.hatch(f"brush.circle({bw.u(x + size * 0.25)}, {bw.u(y + size * 0.25)}, "
                     f"{bw.u(size * 0.6)})", Raw(f"FRUIT_{i + 1}"), gap=4, angle=0.9 + i * 0.2,
                     note=f"Shade fruit {i + 1} on the side away from the light.")
        bw.contour(name, None, 0.8)
        _highlight(bw, name)
    bowl = bw.const("BOWL", mix(p.sky, p.ink, 0.25), "the bowl")
    profile = [bw.u(w) for w in (104, 98, 86, 66, 42, 30, 32)]
    bw.let("bowl", f"vessel(BOWL_X, RIM_Y, {bw.u(table_y - rim)}, {js(profile)})")
    bw.area("brush.polygon(bowl)", bowl, 190, rank=1, note="The bowl, glazed over the fruit.",
            hatch_angle=-0.5)
    bw.contour("bowl")
    bw.comment("The rim's far edge, an ellipse behind the fruit.")
    bw.pen(plan.style.line_brush, Raw("CONTOUR"), 0.8)
    bw.line(f"outline(blob(BOWL_X, RIM_Y, {bw.u(104)}, {bw.u(14)}, 0, 1, 0), "
            f"{number(plan.curvature)});")
    return ("A bowl of fruit on a table: the bowl and the largest fruit in watercolour, "
            "hatched shading and cast shadow, paper-coloured highlights.")


def vase(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    table_y = rng.uniform(70, 100)
    _table(bw, table_y)
    cx = rng.uniform(-60, -10)
    height = rng.uniform(125, 150)
    top = table_y - height
    bw.const("VASE_X", bw.u(cx), "vase centre line")
    bw.const("VASE_TOP", bw.u(top), "the vase's mouth")
    vase_c = bw.colour("VASE", "mid")
    blossom = bw.colour("BLOSSOM", "light")
    stem = bw.colour("STEM", "leaf_deep")
    lemon = bw.colour("LEMON", "accent")
    _shadow(bw, cx + 40, table_y + 12, 75, 12)
    bw.use("blob", "vessel")
    bw.comment("Sprigs rising from the mouth, each tipped with a blossom.")
    sprigs = bw.count(5, 3)
    bw.pen(plan.style.detail_brush, stem, 1.1)
    with bw.block(f"for (let i = 0; i < {sprigs}; i++)"):
        bw.line(f"const a = -HALF_PI + (i - {number((sprigs - 1) / 2)}) * 0.32;")
        bw.line(f"const len = {bw.u(85)} + random({bw.u(30)});")
        bw.line("const tip = [VASE_X + len * cos(a), VASE_TOP + len * sin(a)];")
        bw.line(f"brush.spline([[VASE_X, VASE_TOP + {bw.u(10)}], "
                f"[VASE_X + len * 0.5 * cos(a + 0.1), VASE_TOP + len * 0.5 * sin(a + 0.1)], "
                f"tip], {number(plan.curvature)});")
    cluster = [rng.uniform(-20, 20) + cx, top - rng.uniform(80, 90)]
    bw.let("blossoms", f"blob({bw.u(cluster[0])}, {bw.u(cluster[1])}, {bw.u(72)}, "
                       f"{bw.u(34)}, 0.18, 5, 0.7)")
    bw.area("brush.polygon(blossoms)", blossom, 170, rank=2,
            note="The blossoms as one loose cloud of colour.", hatch_angle=0.4)
    bw.comment("Individual flowers dotted through the cloud.")
    bw.pen("spray", Raw("VASE"), 0.6)
    with bw.block(f"for (let i = 0; i < {bw.count(12, 4)}; i++)"):
        bw.line("const [x, y] = blossoms[floor(random(blossoms.length))];")
        bw.line(f"brush.circle(x + random({-bw.u(20)}, {bw.u(20)}), y + random({bw.u(18)}), "
                f"{bw.u(4)});")
    profile = [bw.u(w) for w in (24, 18, 26, 44, 52, 48, 36, 28)]
    bw.let("vase", f"vessel(VASE_X, VASE_TOP, {bw.u(height)}, {js(profile)})")
    bw.area("brush.polygon(vase)", vase_c, 200, rank=0, note="The vase.", hatch_angle=-0.6)
    if plan.hatching:
        bw.hatch(f"brush.rect(VASE_X + {bw.u(8)}, VASE_TOP + {bw.u(height * 0.3)}, "
                 f"{bw.u(36)}, {bw.u(height * 0.6)})", Raw("INK"), gap=4, angle=1.2,
                 note="The vase's shadowed side.")
    bw.contour("vase")
    if plan.detail > 0.3:
        bw.comment("Painted bands around the vase's belly.")
        bw.pen("pen", Raw("CONTOUR"), 0.8)
        with bw.block("for (const i of [3, 5])"):
            bw.line("brush.line(vase[i][0], vase[i][1], vase[vase.length - 1 - i][0], "
                    "vase[vase.length - 1 - i][1]);")
    lx = cx + rng.uniform(95, 130)
    bw.let("lemon", f"blob({bw.u(lx)}, {bw.u(table_y - 22)}, {bw.u(30)}, {bw.u(21)}, "
                    "0.06, 2, 0.3)")
    bw.area("brush.polygon(lemon)", lemon, 210, rank=1, note="A lemon beside the vase.",
            hatch_angle=0.9)
    bw.contour("lemon", None, 0.8)
    _highlight(bw, "lemon")
    return ("A vase of blossoming sprigs with a lemon: the vase and lemon in watercolour, "
            "blossoms as one loose glaze dotted with flowers, hatched shadows.")

