"""Clip-art versions of each subject family, for the bad end: symmetric
geometry (circles for petals, triangles for mountains), flat colour and one
heavy uniform outline (Brushwork edges every flat wash with the plan's outline
brush). They answer the prompt the way a stock icon would."""
from __future__ import annotations

from .brushwork import Brushwork
from .writer import Raw


def _outline_pen(bw: Brushwork) -> None:
    brush, weight = bw.plan.outline or ("rotring", 3.0)
    bw.pen(brush, bw.colour("INK", "ink"), weight)


def flower(bw: Brushwork) -> str:
    rng = bw.rng
    petals = rng.choice((5, 6, 8))
    bw.const("CX", bw.u(rng.uniform(-20, 20)), "flower centre")
    bw.const("CY", bw.u(rng.uniform(-50, -20)))
    bw.const("PETALS", petals)
    bw.const("SPREAD", bw.u(48), "distance from centre to each petal")
    petal = bw.colour("PETAL", "mid")
    leaf = bw.colour("LEAF", "leaf")
    middle = bw.colour("MIDDLE", "accent")
    bw.use("blob")
    _outline_pen(bw)
    bw.comment("Stem.")
    bw.line(f"brush.line(CX, CY, CX, {bw.u(200)});")
    for side in (-1, 1):
        bw.area(f"brush.polygon(blob(CX + {bw.u(side * 34)}, {bw.u(90)}, {bw.u(30)}, "
                f"{bw.u(14)}, 0, 1, 0))", leaf, 255, rank=3, note="Leaf.")
    bw.comment("Petals: circles around the middle.")
    with bw.block("for (let i = 0; i < PETALS; i++)"):
        bw.line("const a = (TWO_PI * i) / PETALS;")
        bw.area(f"brush.circle(CX + SPREAD * cos(a), CY + SPREAD * sin(a), {bw.u(30)})",
                petal, 255, rank=1, note="One petal.")
    bw.area(f"brush.circle(CX, CY, {bw.u(26)})", middle, 255, rank=0, note="The middle.")
    return "A flower: round petals around a round middle, a straight stem, two leaves."


def landscape(bw: Brushwork) -> str:
    rng = bw.rng
    half = bw.u(200)
    ground_y = bw.u(rng.uniform(20, 60))
    bw.const("GROUND", ground_y, "where the grass starts")
    sky = bw.colour("SKY", "sky")
    grass = bw.colour("GRASS", "leaf")
    hill = bw.colour("HILL", "mid")
    sun = bw.colour("SUN", "accent")
    bw.area(f"brush.rect({-half}, {-half}, {bw.u(400)}, {half} + GROUND)", sky, 255, rank=2,
            note="Sky.")
    for i in range(rng.choice((2, 3))):
        x = bw.u(-120 + i * 120)
        points = (f"[[{x} - {bw.u(90)}, GROUND], [{x}, GROUND - {bw.u(120)}], "
                  f"[{x} + {bw.u(90)}, GROUND]]")
        bw.area(f"brush.polygon({points})", hill, 255, rank=1, note=f"Mountain {i + 1}.")
    bw.area(f"brush.rect({-half}, GROUND, {bw.u(400)}, {half} - GROUND)", grass, 255,
            rank=0, note="Grass.")
    bw.area(f"brush.circle({bw.u(130)}, {bw.u(-130)}, {bw.u(30)})", sun, 255, rank=3,
            note="Sun.")
    _outline_pen(bw)
    bw.comment("Sun rays.")
    with bw.block("for (let i = 0; i < 8; i++)"):
        bw.line("const a = (TWO_PI * i) / 8;")
        bw.line(f"brush.line({bw.u(130)} + {bw.u(40)} * cos(a), {bw.u(-130)} + {bw.u(40)} * "
                f"sin(a), {bw.u(130)} + {bw.u(55)} * cos(a), {bw.u(-130)} + {bw.u(55)} * sin(a));")
    bw.comment("A lollipop tree.")
    bw.line(f"brush.line({bw.u(-100)}, GROUND + {bw.u(40)}, {bw.u(-100)}, GROUND - {bw.u(10)});")
    bw.area(f"brush.circle({bw.u(-100)}, GROUND - {bw.u(30)}, {bw.u(22)})", grass, 255, rank=4,
            note="Tree top.")
    return "A landscape: sky, triangle mountains, a sun with rays and a lollipop tree."


def still_life(bw: Brushwork) -> str:
    rng = bw.rng
    half = bw.u(200)
    bw.const("TABLE_Y", bw.u(rng.uniform(30, 60)), "table edge")
    table = bw.colour("TABLE", "earth")
    fruit = bw.colour("FRUIT", "mid")
    bowl = bw.colour("BOWL", "sky")
    bw.area(f"brush.rect({-half}, TABLE_Y, {bw.u(400)}, {half} - TABLE_Y)", table, 255,
            rank=2, note="Table.")
    bw.comment("Three identical fruits in a row.")
    with bw.block("for (let i = -1; i <= 1; i++)"):
        shape = f"brush.circle(i * {bw.u(60)}, TABLE_Y - {bw.u(70)}, {bw.u(30)})"
        bw.area(shape, fruit, 255, rank=0, note="Fruit.")
    rect = f"brush.rect({bw.u(-100)}, TABLE_Y - {bw.u(50)}, {bw.u(200)}, {bw.u(50)})"
    bw.area(rect, bowl, 255, rank=1, note="Bowl.")
    return "A still life: three round fruits and a rectangular bowl on a table."


def abstract(bw: Brushwork) -> str:
    colours = [bw.colour(f"TILE_{i + 1}", role) for i, role in
               enumerate(("mid", "leaf", "accent"))]
    bw.let("tiles", "[" + ", ".join(colours) + "]")
    bw.comment("A grid of squares in turn.")
    with bw.block("for (let row = 0; row < 3; row++)"):
        with bw.block("for (let col = 0; col < 3; col++)"):
            shape = (f"brush.rect({bw.u(-150)} + col * {bw.u(100)}, {bw.u(-150)} + row * "
                     f"{bw.u(100)}, {bw.u(100)}, {bw.u(100)})")
            bw.area(shape, Raw("tiles[(row + col) % 3]"), 255, rank=0, note="One tile.")
    centre = f"brush.circle(0, 0, {bw.u(60)})"
    bw.area(centre, bw.colour("CIRCLE", "deep"), 255, rank=1, note="A circle in the middle.")
    bw.comment("Two diagonals corner to corner.")
    bw.line(f"brush.line({bw.u(-150)}, {bw.u(-150)}, {bw.u(150)}, {bw.u(150)});")
    bw.line(f"brush.line({bw.u(150)}, {bw.u(-150)}, {bw.u(-150)}, {bw.u(150)});")
    return "An abstract: a grid of squares in three colours, a circle and two diagonals."
