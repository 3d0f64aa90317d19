"""What is a render of? The pool is grouped, balanced and sampled by subject.

A procedural sketch records its subject (Sketch.meta["subject"], one of the
painter's SUBJECTS). Any other sketch, and any prompt the judge is asked
about, is matched by keywords: first the painter's subjects ("a peach-pink
hibiscus" -> "hibiscus"), then common words for broader subjects ("a red
rose" -> "flower"), else OTHER. When several subjects are named, the one
named first wins ("a vase of tulips" -> "vase"): prompts name their main
subject first.

Every subject has a family (flower, landscape, still life, abstract, ...),
so the sampler can fall back from "rose" references to other flowers
before it falls back to anything at all."""
from __future__ import annotations

import re
from functools import cache

from sketches.models import Sketch
from sketches.painter import SUBJECTS
from sketches.painter.subjects import REGISTRY

OTHER = "other"

# Words for the painter's own subjects, beyond the subject's name. Palette
# names in painter prompts ("lilac-sage", "autumn-rust", "crimson-gold") must
# not appear here: they would match every subject's prompt.
PAINTER_KEYWORDS: dict[str, tuple[str, ...]] = {
    "hibiscus": ("hibiscus", "hibiscuses"),
    "peony": ("peony", "peonies"),
    "tulip": ("tulip", "tulips"),
    "poppy": ("poppy", "poppies"),
    "lotus": ("lotus", "lotuses", "water lily", "water lilies", "waterlily"),
    "hills": ("hills", "rolling hills", "hillside"),
    "mountain-lake": ("mountain lake", "alpine lake", "mountain", "mountains", "lake"),
    "seascape": ("seascape", "sea", "ocean", "boat", "sailboat", "harbour", "harbor"),
    "fruit-bowl": ("bowl of fruit", "fruit bowl", "fruit", "apples", "pears"),
    "vase": ("vase", "vase of"),
    "flow-field": ("flow-field", "flow field", "flowfield"),
    "colour-fields": ("colour fields", "color fields", "colour-field", "color-field",
                      "colour field", "color field"),
}

# Broader subjects for prompts the painter does not draw; each is its own family.
COMMON_KEYWORDS: dict[str, tuple[str, ...]] = {
    "flower": ("flower", "flowers", "rose", "roses", "daisy", "daisies", "sunflower",
               "sunflowers", "orchid", "orchids", "lily", "lilies", "iris", "irises",
               "bouquet", "camellia", "magnolia", "dahlia", "chrysanthemum"),
    "landscape": ("landscape", "valley", "meadow", "forest", "river", "desert", "sunset",
                  "sunrise", "countryside", "field of"),
    "still life": ("still life", "still-life", "teapot", "bottle", "jug", "cup", "lemon",
                   "lemons", "pear", "apple"),
    "abstract": ("abstract", "geometric", "composition", "pattern", "shapes"),
    "portrait": ("portrait", "face", "self-portrait", "figure", "woman", "man", "girl", "boy"),
    "animal": ("animal", "cat", "dog", "bird", "birds", "fish", "horse", "fox", "owl"),
    "city": ("city", "cityscape", "street", "building", "buildings", "bridge", "town"),
    "night sky": ("night sky", "stars", "moon", "galaxy", "nebula"),
}


def subject_of_sketch(sketch: Sketch) -> str:
    """The subject of a stored sketch: the painter's record for procedural
    sketches, else what its prompt names."""
    meta = sketch.meta if isinstance(sketch.meta, dict) else {}
    recorded = meta.get("subject")
    if sketch.origin == Sketch.Origin.PROCEDURAL and recorded in REGISTRY:
        return recorded
    return subject_of_prompt(sketch.prompt)


def subject_of_prompt(prompt: str) -> str:
    """The subject a prompt names first, preferring the painter's subjects
    over the broader common ones; OTHER when it names none."""
    text = " ".join((prompt or "").lower().split())
    for patterns in (_painter_patterns(), _common_patterns()):
        found = [(match.start(), -len(match.group(0)), subject)
                 for subject, pattern in patterns
                 if (match := pattern.search(text)) is not None]
        if found:
            return min(found)[2]
    return OTHER


def subject_family(subject: str) -> str:
    """The painter's family for its subjects ("tulip" -> "flower"); a common
    subject and OTHER are their own family."""
    chosen = REGISTRY.get(subject)
    return chosen.family if chosen is not None else subject


def subject_closeness(wanted: str, theirs: str) -> int:
    """How near `theirs` is to the `wanted` subject: 0 the same, 1 the same
    family, 2 neither (OTHER, or a blank subject, is near nothing). The order
    in which pool references are drawn for a prompt (pool.references) and a
    member meets rollouts in a calibration (pool.band)."""
    theirs = theirs or OTHER
    if wanted == OTHER:
        return 2
    if theirs == wanted:
        return 0
    return 1 if subject_family(theirs) == subject_family(wanted) else 2


def subjects_known() -> tuple[str, ...]:
    """Every subject this module can name, painter subjects first."""
    return (*SUBJECTS, *COMMON_KEYWORDS, OTHER)


def _compile(keywords: dict[str, tuple[str, ...]]) -> tuple[tuple[str, re.Pattern], ...]:
    # Longest alternative first, so "mountain lake" is preferred to "mountain";
    # word boundaries, so "sea" does not match "season".
    compiled = []
    for subject, words in keywords.items():
        alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
        compiled.append((subject, re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")))
    return tuple(compiled)


@cache
def _painter_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    missing = set(SUBJECTS) - set(PAINTER_KEYWORDS)
    if missing:  # a subject added to the painter needs its words here
        raise RuntimeError(f"pool.subjects has no keywords for painter subjects {missing}")
    return _compile(PAINTER_KEYWORDS)


@cache
def _common_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    return _compile(COMMON_KEYWORDS)
