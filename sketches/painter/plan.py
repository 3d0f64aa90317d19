"""How a picture will be painted, decided before any subject draws: the
quality tier, style, palette, fill budget and composition. Subjects read a
Plan; they never roll their own tier dice.

Fill budget: one watercolour fill (brush.fill) costs about 1.3-1.8 s of
drawing at 400 px on the 2-core dev machine, idle, whatever its size
(measured: a radius-10 circle 1.4 s, three radius-40 circles 4.5 s, all the
strokes of a hibiscus 0.7 s, three circles as flat washes 0.24 s), so the good
end paints its two or three most important areas in watercolour and hatches
the rest, and the fair end one or two.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .palettes import PALETTES, Palette

GOOD, FAIR, BAD = "good", "fair", "bad"
# Share of seeds per tier: good ~35 %, fair ~35 %, bad ~30 %.
TIER_WEIGHTS = ((GOOD, 0.35), (FAIR, 0.35), (BAD, 0.30))
# Watercolour fills per tier (a style's own cap can lower it).
TIER_FILLS = {GOOD: (2, 3, 3), FAIR: (1, 1, 2), BAD: (0, 0, 1)}


@dataclass(frozen=True)
class Style:
    """A medium: which brushes draw contours, small marks and hatching, and how
    many watercolour fills it uses at most."""

    name: str
    line_brush: str
    line_weight: float
    detail_brush: str
    hatch_brush: str
    contour_role: str  # palette role of contour lines
    max_fills: int


STYLES: dict[str, Style] = {s.name: s for s in (
    Style("watercolour", "cpencil", 1.0, "HB", "2B", "deep", 3),
    Style("ink and wash", "pen", 1.1, "rotring", "rotring", "ink", 3),
    Style("coloured pencil", "cpencil", 1.4, "cpencil", "cpencil", "deep", 2),
    Style("charcoal and wash", "charcoal", 0.7, "2B", "2B", "ink", 2),
)}


@dataclass(frozen=True)
class Plan:
    """Everything a subject painter needs to know besides its own geometry."""

    seed: int
    subject: str
    size: int
    tier: str
    style: Style
    palette: Palette            # the colours actually painted
    asked_palette: str          # the palette the prompt names
    fills: int                  # watercolour fills allowed
    fallback: str               # an area past the budget: "hatch", "wash" or "skip"
    flat: bool = False          # flat opaque washes instead of watercolour
    bleed: float = 0.1
    texture: float = 0.45
    opacity: float = 1.0        # multiplier on every area's opacity
    detail: float = 1.0         # share of the line work (veins, grass, stamens)
    backdrop: bool = True       # atmosphere strokes behind the subject
    hatching: bool = True       # hatched shadows and textures
    curvature: float = 0.5      # spline and contour curvature; 0 is stiff
    outline: tuple[str, float] | None = None  # contour brush override
    naive: bool = False         # clip-art geometry instead of the painter's own
    shift: tuple[float, float] = (0.0, 0.0)   # composition offset, share of size
    zoom: float = 1.0
    overlay: bool = False       # scribbles over the finished picture
    flaws: tuple[str, ...] = field(default_factory=tuple)

    @property
    def unit(self) -> float:
        """Subjects are designed on a 400 px canvas; this scales them."""
        return self.size / 400


def base_plan(rng: random.Random, *, seed: int, subject: str, size: int) -> Plan:
    """The tier, style and palette for this seed, before any flaws."""
    tier = rng.choices([t for t, _ in TIER_WEIGHTS], [w for _, w in TIER_WEIGHTS])[0]
    style = STYLES[rng.choice(sorted(STYLES))]
    palette = PALETTES[rng.choice(sorted(PALETTES))]
    fills = min(rng.choice(TIER_FILLS[tier]), style.max_fills)
    common = dict(seed=seed, subject=subject, size=size, tier=tier, style=style,
                  palette=palette, asked_palette=palette.name, fills=fills)
    if tier == GOOD:
        return Plan(**common, fallback="hatch", bleed=round(rng.uniform(0.08, 0.14), 2),
                    texture=round(rng.uniform(0.35, 0.55), 2), detail=rng.uniform(0.85, 1.0),
                    backdrop=rng.random() < 0.8, curvature=round(rng.uniform(0.45, 0.65), 2))
    if tier == FAIR:
        return Plan(**common, fallback="wash", bleed=round(rng.uniform(0.05, 0.1), 2),
                    texture=round(rng.uniform(0.2, 0.4), 2), detail=rng.uniform(0.45, 0.65),
                    backdrop=rng.random() < 0.3, hatching=rng.random() < 0.5)
    return Plan(**common, fallback="skip", bleed=0.05, texture=0.2, detail=0.3,
                backdrop=False, hatching=False, curvature=0.3)
