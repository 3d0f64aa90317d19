"""The p5.brush 2.2 API as the gate sees it.

`BRUSH_METHODS` is the library's public surface (`Object.keys(brush)`); a test
renders in real Chromium and fails if the installed library disagrees, so this
list cannot drift from package-lock.json silently.
"""

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
