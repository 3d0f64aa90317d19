"""Installs what a fresh database needs to score and train with no setup:
the v1 and v2 rubrics, the local judge, the default system prompt and a
prompt set. Run by data migrations, and safe to run again (existing rows are
left as they are, edits included)."""
from __future__ import annotations

from sketches.painter import SUBJECTS, paint

from .reward.rubric import PRESETS

LOCAL_JUDGE = "local"
SYSTEM_PROMPT_NAME = "allow-list"
PROMPT_SET_NAME = "painter subjects"

# The article's lesson: 400 lines of API docs made the model invent methods;
# a short allow-list worked better. Each revision stays installed, so runs
# launched with an older one still show what they were told.
SYSTEM_PROMPTS = {
    # Rev. 1 (the first release) told the policy to paint in setup() and left
    # out wash, hatchStyle, the vector fields and beginShape/vertex/endShape,
    # all of which the procedural painter, and so the built-in policy, uses.
    1: (
        "You paint watercolours in code. Reply with one complete p5.js sketch in a ```javascript\n"
        "block. The sketch has a setup() that calls createCanvas(400, 400, WEBGL), paints the\n"
        "background with background(), paints with p5.brush, and calls noLoop(). WEBGL\n"
        "coordinates are centred: (0, 0) is the middle of the canvas.\n"
        "Use only these p5.brush methods:\n"
        "brush.set(type, colour, weight)  type: pen, rotring, 2B, HB, cpencil, charcoal, marker\n"
        "brush.fill(colour, opacity), then brush.fillBleed(amount) and brush.fillTexture(a, b)\n"
        "brush.noStroke() and brush.noFill()\n"
        "brush.polygon(points)  points: [[x, y], ...]\n"
        "brush.rect(x, y, w, h) and brush.circle(x, y, r)\n"
        "brush.line(x1, y1, x2, y2)\n"
        "brush.spline(points, curvature)\n"
        "brush.hatch(distance, angle, options) and brush.noHatch()\n"
    ),
    # Rev. 2: the sketch as the painter writes it (setup() makes the canvas,
    # draw() calls noLoop() and paints) and every p5.brush method it calls,
    # with the signatures of p5.brush 2.x's README.
    2: (
        "You paint watercolours in code. Reply with one complete p5.js sketch in a ```javascript\n"
        "block. setup() calls createCanvas(400, 400, WEBGL). draw() calls noLoop(), paints the\n"
        "background with background(), then paints with p5.brush. WEBGL coordinates are\n"
        "centred: (0, 0) is the middle of the canvas.\n"
        "Use only these p5.brush methods:\n"
        "brush.set(type, colour, weight)  type: pen, rotring, 2B, HB, 2H, cpencil, charcoal,\n"
        "marker, spray\n"
        "brush.noStroke()\n"
        "brush.fill(colour, opacity), brush.fillBleed(strength, direction),\n"
        "brush.fillTexture(a, b) and brush.noFill()\n"
        "brush.wash(colour, opacity) and brush.noWash()\n"
        "brush.hatch(distance, angle, options), brush.hatchStyle(type, colour, weight) and\n"
        "brush.noHatch()\n"
        "brush.field(name), brush.flowLine(x, y, length, direction) and brush.noField()\n"
        "brush.line(x1, y1, x2, y2), brush.rect(x, y, w, h), brush.circle(x, y, r)\n"
        "brush.polygon(points)  points: [[x, y], ...]\n"
        "brush.spline(points, curvature)\n"
        "brush.beginShape(curvature), brush.vertex(x, y), brush.endShape(close)\n"
    ),
}
# The newest revision: what new runs get and the built-in policy learns with.
SYSTEM_PROMPT = SYSTEM_PROMPTS[max(SYSTEM_PROMPTS)]


def prompts_default() -> list[str]:
    """Two painter prompts per subject: the prompts the built-in policy knows."""
    return [paint(seed, subject=subject).prompt for subject in SUBJECTS for seed in (0, 1)]


def presets_install(rubric_model, judge_model) -> None:
    for name, preset in PRESETS.items():
        rubric_model.objects.get_or_create(
            name=name, version=1,
            defaults={"description": preset["description"], "signals": preset["signals"],
                      "preset": True})
    judge_model.objects.get_or_create(name=LOCAL_JUDGE, defaults={"backend": "local",
                                                                  "api_key_env": ""})


def training_presets_install(system_prompt_model, prompt_set_model) -> None:
    for version, text in SYSTEM_PROMPTS.items():
        system_prompt_model.objects.get_or_create(
            name=SYSTEM_PROMPT_NAME, version=version, defaults={"text": text, "preset": True})
    prompt_set_model.objects.get_or_create(
        name=PROMPT_SET_NAME,
        defaults={"prompts": prompts_default(), "preset": True,
                  "description": "Two procedural-painter prompts for each of its 12 subjects."})
