"""The procedural painter: complete, readable p5.brush sketches for prompts
like "a peach-pink hibiscus in watercolour", spanning a deliberate range of
quality (layered watercolour at the good end; flat, sparse, clashing or
off-canvas pictures at the bad end) with the tier and its flaws recorded.

    from sketches.painter import paint, SUBJECTS
    sketch = paint(7, subject="hibiscus", size=400)
    sketch.prompt, sketch.code, sketch.meta["quality"], sketch.meta["flaws"]

Seeded and reproducible: each decision draws from its own random.Random
stream derived from the seed, so the same seed gives the same code, and
naming the subject does not change the tier, palette or style that seed gets.
Left to the seed, subjects come balanced: every 12 consecutive seeds hold
each subject once.
Sketches call only p5.brush 2.2 methods (sketches.brush_api.BRUSH_METHODS).
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field

from .brushwork import Brushwork
from .compose import compose
from .flaws import spoil
from .plan import base_plan
from .subjects import REGISTRY

PAINTER_VERSION = "painter/1"
SUBJECTS: tuple[str, ...] = tuple(REGISTRY)
# The renderer refuses canvases over 1200 px (DEFAULT_MAX_CANVAS_SIDE). Below
# about 100 px the brushes are as wide as the shapes they draw, but such
# thumbnails are still valid sketches (seed_corpus accepts 32 px and up).
MIN_SIZE, MAX_SIZE = 32, 1200


@dataclass(frozen=True)
class PaintedSketch:
    prompt: str
    code: str
    meta: dict = field(default_factory=dict)


def paint(seed: int, *, subject: str | None = None, size: int = 400) -> PaintedSketch:
    """A sketch for `seed` (and `subject`, else the seed picks one) on a
    `size` x `size` WEBGL canvas."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int, got {type(seed).__name__}")
    if isinstance(size, bool) or not isinstance(size, int) or not MIN_SIZE <= size <= MAX_SIZE:
        raise ValueError(f"size must be an int from {MIN_SIZE} to {MAX_SIZE}, got {size!r}")
    if subject is None:
        subject = _subject_for(seed)
    elif subject not in REGISTRY:
        raise ValueError(f"unknown subject {subject!r}; choose from {', '.join(SUBJECTS)}")
    chosen = REGISTRY[subject]
    plan = base_plan(_stream(seed, "plan"), seed=seed, subject=subject, size=size)
    plan = spoil(plan, _stream(seed, "flaws"))
    prompt = chosen.prompt(_stream(seed, "prompt"), plan.asked_palette, plan.style.name)
    brushwork = Brushwork(plan, _stream(seed, "brushwork"))
    painter = chosen.paint_naive if plan.naive else chosen.paint
    code = compose(brushwork, prompt, PAINTER_VERSION, painter)
    meta = {
        "painter": PAINTER_VERSION,
        "seed": seed,
        "subject": subject,
        "family": chosen.family,
        "palette": plan.asked_palette,
        "style": plan.style.name,
        "quality": plan.tier,
        "flaws": list(plan.flaws),
        "size": size,
        "fills": brushwork.fills_used(),
    }
    return PaintedSketch(prompt=prompt, code=code, meta=meta)


def _subject_for(seed: int) -> str:
    """Each run of len(SUBJECTS) consecutive seeds (0-11, 12-23, ...) holds every
    subject once, in an order shuffled per run: any range of seeds is balanced."""
    block, place = divmod(seed, len(SUBJECTS))
    order = _stream(block, "subject order").sample(SUBJECTS, len(SUBJECTS))
    return order[place]


def _stream(seed: int, purpose: str) -> random.Random:
    # String seeds are hashed with SHA-512 by random.Random: stable across runs
    # and Python processes (unlike hash()), independent per purpose.
    return random.Random(f"{PAINTER_VERSION}:{seed}:{purpose}")
