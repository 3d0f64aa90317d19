"""The p5.brush API as the gate sees it: 2.2 (the default) and 1.1.

`BRUSH_METHODS` (and `BRUSH_1_METHODS`) is the library's public surface
(`Object.keys(brush)`); a test renders in real Chromium and fails if the
installed library disagrees, so these lists cannot drift from
package-lock.json silently. `methods_for`/`paint_methods_for` name the list of
the version a sketch is rendered with; `detect_brush_version` picks it from
the calls a sketch makes.
"""
from __future__ import annotations

BRUSH_METHODS = frozenset({
    "Plot", "Polygon", "Position", "add", "addField", "arc", "beginShape", "beginStroke", "box",
    "circle", "clip", "endShape", "endStroke", "field", "fill", "fillBleed", "fillTexture",
    "flowLine", "hatch", "hatchArray", "hatchStyle", "instance", "line", "listFields", "load",
    "mass", "massArray", "move", "noClip", "noField", "noFill", "noHatch", "noMass", "noStroke",
    "noWash", "noiseSeed", "pick", "polygon", "rect", "refreshField", "scaleBrushes", "seed", "set",
    "spline", "stroke", "strokeWeight", "vertex", "wRand", "wash", "wiggle",
})

# Calls that lay paint down; the others only set state (colour, brush, field).
BRUSH_PAINT_METHODS = frozenset({
    "arc", "circle", "endShape", "endStroke", "flowLine", "hatchArray", "line", "polygon", "rect",
    "spline", "Polygon", "Plot",
})

# Plain p5 drawing calls. A sketch that paints only with these is not using
# p5.brush, whatever its canvas looks like.
PLAIN_PRIMITIVES = (
    "point", "line", "rect", "square", "ellipse", "circle", "arc", "triangle", "quad",
    "bezier", "curve", "vertex", "endShape", "box", "sphere", "plane", "torus", "cone",
    "cylinder", "ellipsoid", "image", "text",
)

# p5.brush 1.1.4 (npm alias p5.brush-1), with p5 1.11.
BRUSH_1_METHODS = frozenset({
    "Plot", "Polygon", "Position", "add", "addField", "arc", "beginShape", "beginStroke", "bleed",
    "box", "circle", "clip", "colorCache", "endShape", "endStroke", "erase", "field", "fill",
    "fillAnimatedMode", "fillTexture", "flowLine", "gravity", "hatch", "hatchArray", "instance",
    "line", "listFields", "load", "noClip", "noErase", "noField", "noFill", "noGravity", "noHatch",
    "noStroke", "pick", "plot", "polygon", "pop", "preload", "push", "reBlend", "reDraw", "rect",
    "refreshField", "remove", "rotate", "scale", "scaleBrushes", "seed", "segment", "set",
    "setHatch", "spline", "stroke", "strokeWeight", "vertex",
})
BRUSH_1_PAINT_METHODS = frozenset({
    "arc", "circle", "endShape", "endStroke", "flowLine", "hatchArray", "line", "plot", "polygon",
    "rect", "segment", "spline", "Polygon", "Plot",
})
# The versions by name (renderer/libraries.py maps each to its npm packages).
BRUSH_2 = "2"
BRUSH_1 = "1"
_METHODS = {
    BRUSH_2: (BRUSH_METHODS, BRUSH_PAINT_METHODS),
    BRUSH_1: (BRUSH_1_METHODS, BRUSH_1_PAINT_METHODS),
}


# What a render, an import or a run may ask for: a version ("2", "1"), or
# AUTO_BRUSH, the version the sketch's calls are written for
# (detect_brush_version). The renderer's own packages are renderer/libraries.py's.
AUTO_BRUSH = "auto"
DEFAULT_BRUSH = BRUSH_2  # what runs train on, and every render made before the choice existed
# The values alone; a model field's (value, label) pairs are sketches.models.BRUSH_CHOICES.
BRUSHES = (AUTO_BRUSH, *_METHODS)
BRUSH_CHOICE_LABELS = {
    AUTO_BRUSH: "auto: the version the sketch's calls are written for",
    BRUSH_2: "p5.brush 2.x (on p5 2.x)",
    BRUSH_1: "p5.brush 1.x (on p5 1.x)",
}


def brush_choice_check(brush: str) -> str:
    """`brush` when it is one of BRUSHES; else a ValueError naming it and them."""
    if brush not in BRUSHES:
        raise ValueError(f"unknown p5.brush choice {brush!r}: one of {', '.join(BRUSHES)}")
    return brush


def methods_for(brush: str) -> frozenset[str]:
    return _METHODS[brush][0]


def paint_methods_for(brush: str) -> frozenset[str]:
    return _METHODS[brush][1]


def detect_brush_version(names: set[str], era_1: bool = False) -> str:
    """The p5.brush version a sketch making these brush calls is written for:
    1 where it calls names only 1.x has (bleed, setHatch, reBlend, push, ...)
    and none only 2.x has, or, calling only names both have, where it is
    otherwise written for p5 1.x (`era_1`: code_text.written_for_p5_1); else
    2, the default."""
    only_1 = names & (BRUSH_1_METHODS - BRUSH_METHODS)
    only_2 = names & (BRUSH_METHODS - BRUSH_1_METHODS)
    return "1" if (only_1 or era_1) and not only_2 else "2"
