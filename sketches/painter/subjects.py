"""The subjects the painter knows: what each is called in a prompt, which
family it belongs to, and which painters draw it well and badly."""
from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from . import abstract, flowers, landscapes, naive, still_life
from .brushwork import Brushwork

Painter = Callable[[Brushwork], str]

# Prompt templates per family; {palette} is a palette name, {style} a medium.
PROMPTS = {
    "flower": ("a {palette} {noun} in {style}", "a single {palette} {noun}, {style}",
               "a {palette} {noun} with its leaves, in {style}"),
    "landscape": ("{noun} in {palette} tones, {style}", "{noun}, {palette} palette, in {style}"),
    "still life": ("a still life of {noun} in {palette} tones, {style}",
                   "{noun}, a {palette} still life in {style}"),
    "abstract": ("an abstract {noun} in {palette}, {style}",
                 "a {palette} abstract {noun} in {style}"),
}


@dataclass(frozen=True)
class Subject:
    name: str
    family: str
    noun: str          # how a prompt names it
    paint: Painter
    paint_naive: Painter

    def prompt(self, rng: random.Random, palette: str, style: str) -> str:
        template = rng.choice(PROMPTS[self.family])
        text = template.format(noun=self.noun, palette=palette, style=style)
        return re.sub(r"\ba (?=[aeiou])", "an ", text)  # "an indigo-dusk ...", not "a indigo-dusk"


REGISTRY: dict[str, Subject] = {s.name: s for s in (
    Subject("hibiscus", "flower", "hibiscus", flowers.hibiscus, naive.flower),
    Subject("peony", "flower", "peony", flowers.peony, naive.flower),
    Subject("tulip", "flower", "tulip", flowers.tulip, naive.flower),
    Subject("poppy", "flower", "poppy", flowers.poppy, naive.flower),
    Subject("lotus", "flower", "lotus", flowers.lotus, naive.flower),
    Subject("hills", "landscape", "rolling hills", landscapes.hills, naive.landscape),
    Subject("mountain-lake", "landscape", "a mountain lake", landscapes.mountain_lake,
            naive.landscape),
    Subject("seascape", "landscape", "a seascape with a small boat", landscapes.seascape,
            naive.landscape),
    Subject("fruit-bowl", "still life", "a bowl of fruit", still_life.fruit_bowl,
            naive.still_life),
    Subject("vase", "still life", "a vase of blossom and a lemon", still_life.vase,
            naive.still_life),
    Subject("flow-field", "abstract", "flow-field study", abstract.flow_field, naive.abstract),
    Subject("colour-fields", "abstract", "study of stacked colour fields",
            abstract.colour_fields, naive.abstract),
)}
