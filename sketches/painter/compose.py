"""Assembling one sketch: header (the prompt it answers), named constants,
the helper functions it uses, setup() making the WEBGL canvas, and draw()
(run once) with the subject's painting, placed by the plan's composition and,
at the bad end, scribbled over."""
from __future__ import annotations

from collections.abc import Callable

from . import jslib
from .brushwork import Brushwork
from .writer import JsWriter, Raw, number

# Colours and count of the scribbled-over flaw's marks.
SCRIBBLE_ROLES = ("mid", "leaf", "accent", "ink")
SCRIBBLES = 16


def compose(bw: Brushwork, prompt: str, version: str,
            paint: Callable[[Brushwork], str]) -> str:
    """The whole sketch for `prompt`, painted by `paint` with `bw`."""
    plan = bw.plan
    bw.colour("PAPER", "paper", "the paper")
    summary = paint(bw)
    marks = [bw.colour(f"MARK_{i + 1}", role)
             for i, role in enumerate(SCRIBBLE_ROLES)] if plan.overlay else []
    bw.settle()
    w = JsWriter()
    w.line(f"// prompt: {prompt}")
    w.comment(summary)
    w.line(f"// {version}, seed {plan.seed}")
    w.blank()
    for name, value, note in bw.consts:
        w.line(f"const {name} = {value};" + (f" // {note}" if note else ""))
    for name in bw.helpers:
        w.blank()
        for line in jslib.helper_source(name).splitlines():
            w.line(line)
    w.blank()
    with w.block("function setup()"):
        w.statement("createCanvas", plan.size, plan.size, Raw("WEBGL"))
    w.blank()
    with w.block("function draw()"):
        # noLoop() here rather than in setup(): the sandbox (harness.js) takes
        # its capture straight after a setup() that called noLoop(), before
        # p5 runs draw() that one time, so the canvas would be blank.
        w.comment("One still picture: paint this frame only.")
        w.statement("noLoop")
        w.statement("background", Raw("PAPER"))
        dx, dy = (round(s * plan.size, 1) for s in plan.shift)
        placed = (dx, dy) != (0, 0) or plan.zoom != 1
        if placed:
            w.blank()
            w.comment("Composition: where the picture sits on the sheet.")
            w.statement("push")
            w.line(f"translate({number(dx)}, {number(dy)});")
            if plan.zoom != 1:
                w.line(f"scale({number(plan.zoom)});")
        bw.write_body(w)
        if placed:
            w.statement("pop")
        if plan.overlay:
            _scribbles(w, marks, bw.u(200))
    return w.text()


def _scribbles(w: JsWriter, colours: list[Raw], half: float) -> None:
    """The scribbled-over flaw: heavy random marks across the whole sheet."""
    w.blank()
    w.comment("Energetic marks across the whole sheet.")
    w.line(f"const marks = [{', '.join(colours)}];")
    with w.block(f"for (let i = 0; i < {SCRIBBLES}; i++)"):
        w.line('brush.set("charcoal", marks[i % marks.length], 2);')
        w.line(f"brush.line(random({-half}, {half}), random({-half}, {half}), "
               f"random({-half}, {half}), random({-half}, {half}));")
