"""The fair and bad ends: named flaws, each a change to the Plan, so every
spoiled picture says in its metadata what is wrong with it.

Fair pictures get one or two mild flaws; bad ones one structural flaw (flat
clip-art, flat washes, or a sparse handful of marks) and up to two more
(clashing or muddy colour, off the canvas, tiny in a corner, scribbled over)."""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace

from .palettes import CLASHING, dulled, muddied
from .plan import BAD, FAIR, Plan

Flaw = Callable[[Plan, random.Random], Plan]


def _sign(rng: random.Random) -> int:
    return rng.choice((-1, 1))


FAIR_FLAWS: dict[str, Flaw] = {
    "no texture": lambda p, r: replace(p, texture=0.0, bleed=0.03),
    "plain background": lambda p, r: replace(p, backdrop=False),
    "heavy outline": lambda p, r: replace(p, outline=("pen", 2.6)),
    "off-centre": lambda p, r: replace(
        p, shift=(_sign(r) * r.uniform(0.16, 0.24), _sign(r) * r.uniform(0.1, 0.18))),
    "stiff lines": lambda p, r: replace(p, curvature=0.0),
    "dull palette": lambda p, r: replace(p, palette=dulled(p.palette)),
    "little detail": lambda p, r: replace(p, detail=0.25, hatching=False),
}

# One of these makes a picture bad on its own.
BAD_STRUCTURE: dict[str, Flaw] = {
    "clip-art": lambda p, r: replace(p, naive=True, flat=True, fills=0, backdrop=False,
                                     outline=("rotring", 3.0), curvature=0.0),
    "flat": lambda p, r: replace(p, flat=True, fills=0, texture=0.0, backdrop=False,
                                 outline=("marker", 2.0)),
    "sparse": lambda p, r: replace(p, fills=min(p.fills, 1), fallback="skip", detail=0.12,
                                   hatching=False, backdrop=False),
}

# These make a bad picture worse; at most two, never both placements.
BAD_EXTRAS: dict[str, Flaw] = {
    "clashing colours": lambda p, r: replace(p, palette=CLASHING),
    "muddy colours": lambda p, r: replace(p, palette=muddied(p.palette), opacity=1.5),
    "off-canvas": lambda p, r: replace(
        p, shift=(_sign(r) * r.uniform(0.38, 0.46), _sign(r) * r.uniform(0.3, 0.4))),
    "tiny": lambda p, r: replace(
        p, zoom=round(r.uniform(0.25, 0.35), 2),
        shift=(_sign(r) * r.uniform(0.28, 0.36), _sign(r) * r.uniform(0.28, 0.36))),
    "scribbled over": lambda p, r: replace(p, overlay=True),
}
PLACEMENTS = {"off-canvas", "tiny"}


def spoil(plan: Plan, rng: random.Random) -> Plan:
    """The plan with its tier's flaws applied and named."""
    if plan.tier == FAIR:
        names = rng.sample(sorted(FAIR_FLAWS), rng.choice((1, 1, 2)))
        chosen = [(n, FAIR_FLAWS[n]) for n in names]
    elif plan.tier == BAD:
        structure = rng.choice(sorted(BAD_STRUCTURE))
        extras = rng.sample(sorted(BAD_EXTRAS), rng.choice((0, 1, 1, 2)))
        if PLACEMENTS <= set(extras):
            extras.remove(rng.choice(sorted(PLACEMENTS)))
        if structure == "sparse":
            # A handful of marks shrunk into a corner or pushed off the sheet
            # comes within a hair of the gate's blank-canvas floor (measured:
            # paint fraction 0.006-0.009 at 200 px against a floor of 0.005):
            # that verdict is not the painted flaw this tier is meant to show.
            extras = [e for e in extras if e not in PLACEMENTS]
        chosen = [(structure, BAD_STRUCTURE[structure])]
        chosen += [(n, BAD_EXTRAS[n]) for n in extras]
    else:
        return plan
    for _, flaw in chosen:
        plan = flaw(plan, rng)
    flaws = [n for n, _ in chosen]
    if plan.tier == FAIR and plan.fills < plan.style.max_fills:
        flaws.insert(0, "few layers")
    return replace(plan, flaws=tuple(flaws))
