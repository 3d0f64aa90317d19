"""Abstract studies: a flow-field study and soft stacked colour fields.

Here the strokes are the subject: hundreds of flow lines cost less than one
watercolour fill, so these pictures spend their fill budget on two or three
large glazes and let the line work carry the rest."""
from __future__ import annotations

from .brushwork import Brushwork
from .palettes import mix
from .writer import Raw, number

# Built-in fields bend a stroke by 20-30 degrees at most ("zigzag" and "waves"
# only ripple it), so the study also uses its own broad "drift" field.
FIELDS = ("curved", "spiral", "drift", "drift")


def flow_field(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    field = rng.choice(FIELDS)
    if field == "drift":
        _drift_field(bw)
    else:
        bw.const("FIELD", field, "the built-in flow field every line follows")
    glazes = (("light", 0), ("mid", 1), ("accent", 2))
    bw.use("blob")
    for i, (role, rank) in enumerate(glazes):
        colour = bw.colour(f"GLAZE_{i + 1}", role)
        x, y = rng.uniform(-110, 110), rng.uniform(-110, 110)
        r = rng.uniform(55, 95)
        name = bw.let(f"pool{i + 1}", f"blob({bw.u(x)}, {bw.u(y)}, {bw.u(r)}, "
                                      f"{bw.u(r * rng.uniform(0.6, 1))}, 0.12, "
                                      f"{rng.randint(2, 5)}, {number(rng.uniform(0, 6))})")
        bw.area(f"brush.polygon({name})", colour, 170, rank=rank,
                note=f"Colour pool {i + 1}.", hatch_angle=0.4 + i)
    half = bw.u(200)
    bw.const("DIRECTION", round(rng.uniform(-0.35, 0.35), 2),
             "every line sets off this way; the field bends it")
    bw.comment("Streamlines in three weights, darkest last: each set starts evenly spaced "
               "down the left edge, so its lines run side by side through the field.")
    bw.statement("brush.field", Raw("FIELD"))
    inks = [("2H", bw.colour("LINE_1", "leaf"), 0.8, 22),
            ("HB", bw.colour("LINE_2", "deep"), 1.0, 14),
            (plan.style.detail_brush, bw.colour("LINE_3", "ink"), 1.2, 7)]
    for brush, colour, weight, lines in inks:
        n = bw.count(lines, 3)
        bw.pen(brush, colour, weight)
        with bw.block(f"for (let i = 0; i < {n}; i++)"):
            bw.line(f"const y = {-half} + ({bw.u(400)} * (i + random())) / {n};")
            bw.line(f"brush.flowLine({-bw.u(210)} + random({bw.u(80)}), y, "
                    f"random({bw.u(220)}, {bw.u(440)}), DIRECTION);")
    bw.statement("brush.noField")
    if plan.detail > 0.3:
        bw.comment("Two quiet rings as counterpoint to the flow.")
        bw.pen(plan.style.line_brush, Raw("LINE_3"), 0.8)
        for _ in range(2):
            bw.statement("brush.circle", bw.u(rng.uniform(-140, 140)),
                         bw.u(rng.uniform(-140, 140)), bw.u(rng.uniform(10, 30)))
    if plan.hatching:
        bw.hatch("brush.polygon(pool2)", Raw("LINE_2"), gap=5, angle=rng.uniform(0, 3),
                 note="Hatch one pool so it reads as a different surface.")
    return (f"A flow-field study: three pools of colour under streamlines that follow the "
            f"\"{field}\" field in three weights, with rings as counterpoint.")


def _drift_field(bw: Brushwork) -> None:
    """Declare and add a custom field: angles that swell and fall in broad
    bands across the sheet (the grid spans twice the canvas from its left edge)."""
    rng = bw.rng
    bw.const("FIELD", "drift", "a custom flow field, added in draw()")
    bw.const("SWAY", rng.randint(35, 60), "how far the field turns a line, in degrees")
    bw.const("BANDS", rng.choice((3, 4, 5)), "swells across the field's grid")
    bw.comment("The field: each cell's angle swells and falls in bands across the sheet.")
    bw.line("brush.addField(FIELD, (t, field) => {")
    bw.line("  for (let c = 0; c < field.length; c++) {")
    bw.line("    for (let r = 0; r < field[0].length; r++) {")
    bw.line("      const across = c / field.length, down = r / field[0].length;")
    bw.line(f"      field[c][r] = SWAY * sin(TWO_PI * BANDS * across + "
            f"{number(rng.uniform(0, 6))}) + 0.4 * SWAY * cos(TWO_PI * 1.5 * down);")
    bw.line("    }")
    bw.line("  }")
    bw.line("  return field;")
    bw.line("});")


def colour_fields(bw: Brushwork) -> str:
    rng, plan = bw.rng, bw.plan
    p = plan.palette
    roles = rng.sample(("light", "mid", "deep", "sky", "leaf"), 3)
    bw.use("slab")
    bw.const("LEFT", bw.u(-150), "the fields' left edge")
    bw.const("WIDTH", bw.u(300))
    bw.const("WOBBLE", bw.u(5), "how far a field's edges wander")
    heights = [rng.uniform(80, 115) for _ in roles]
    gap = (330 - sum(heights)) / 2
    bands, top = [], -165.0
    for i, (role, h) in enumerate(zip(roles, heights, strict=True)):
        colour = bw.colour(f"FIELD_{i + 1}", role)
        name = bw.let(f"field{i + 1}", f"slab(LEFT, {bw.u(top)}, WIDTH, {bw.u(h)}, WOBBLE)")
        bands.append((colour, name, top, h))
        bw.area(f"brush.polygon({name})", colour, 175 + 10 * i, rank=i,
                note=f"Field {i + 1}: a soft-edged band of colour.", hatch_angle=0.1 + i * 0.5)
        top += h + gap
    edge = bw.const("EDGE", mix(p.ink, p.paper, 0.3), "edge and texture strokes")
    if plan.hatching:
        for i, (colour, _, y, h) in enumerate(bands):
            bw.hatch(f"brush.polygon(slab(LEFT, {bw.u(y + h * 0.55)}, WIDTH, {bw.u(h * 0.45)}, "
                     "WOBBLE))", colour, gap=5, angle=round(0.2 + 0.6 * i, 2), rand=0.3,
                     note=f"Texture the lower half of field {i + 1}.")
    if plan.backdrop:
        bw.comment("Drifting lines across all three fields.")
        bw.statement("brush.field", "waves")
        bw.pen("2H", edge, 0.8)
        with bw.block(f"for (let i = 0; i < {bw.count(20, 4)}; i++)"):
            bw.line(f"brush.flowLine(LEFT, random({bw.u(-165)}, {bw.u(165)}), "
                    f"random({bw.u(120)}, {bw.u(300)}), 0);")
        bw.statement("brush.noField")
    colour, name, y, h = bands[0]
    bw.comment("Runs of colour dripping from the first field's lower edge.")
    bw.pen(plan.style.detail_brush, colour, 1.2)
    with bw.block(f"for (let i = 0; i < {bw.count(7, 2)}; i++)"):
        bw.line(f"const x = LEFT + random(WIDTH), y = {bw.u(y + h)};")
        bw.line(f"brush.line(x, y, x + random({-bw.u(3)}, {bw.u(3)}), y + random({bw.u(8)}, "
                f"{bw.u(26)}));")
    sun = bw.colour("DISC", "accent")
    disc = (f"brush.circle({bw.u(rng.uniform(-90, 90))}, {bw.u(rng.uniform(-120, 120))}, "
            f"{bw.u(rng.uniform(14, 24))})")
    bw.area(disc, sun, 210, rank=3, note="One small disc of the accent colour.",
            hatch_gap=3, hatch_angle=0.7)
    bw.comment("Edges: a ruled line under each field.")
    bw.pen(plan.style.line_brush, edge, 1)
    for _, _, y, h in bands:
        bw.statement("brush.line", Raw("LEFT"), bw.u(y + h), Raw("LEFT + WIDTH"), bw.u(y + h))
    return ("Three stacked fields of colour in soft-edged glazes, hatched textures in their "
            "lower halves, drips, one accent disc and ruled edges.")
