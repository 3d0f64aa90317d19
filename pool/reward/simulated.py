"""The simulated curator: grades for the procedural corpus where no person
has graded (CI, the demo), so the reward model, its benchmarks and the
grading queue's orders have something to work on.

The rule, fixed and documented so a result learnt from it can be read:
1. Only renders of procedural painter sketches are graded (Sketch.meta has a
   "quality" tier), and only finished ones (status ok).
2. The painter's tier maps to a grade: good -> love, fair -> okay,
   bad -> nope.
3. With probability FLIP_PROBABILITY the grade moves one step to a
   neighbour (love -> okay; okay -> love or nope, evenly; nope -> okay), as a
   person sometimes disagrees with the tier. The draw is seeded by the
   sketch's code hash, the render's seed and `seed`, so it is the same on any
   database and on every run.

Grades are written as the user "simulated-curator" (no password, not in the
curator group) with Grade.source "simulated"; the reward model trains on
them only when asked to ("simulated", or "auto" while there are no human
grades), and records that it did. The product never presents them as human.
"""
from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from rating.models import Grade
from rating.services import grade_record
from sketches.models import Render

TIER_GRADES = {"good": "love", "fair": "okay", "bad": "nope"}
NEIGHBOURS = {"love": ("okay",), "okay": ("love", "nope"), "nope": ("okay",)}
# About one grade in ten off the tier: a choice, not a measurement. Enough
# noise that no model can rank every pair right (as with people, who disagree),
# little enough that the tiers stay learnable.
FLIP_PROBABILITY = 0.1
SIMULATED_CURATOR = "simulated-curator"


def simulated_grade(meta: dict, *, key: str, seed: int = 0,
                    flip_probability: float = FLIP_PROBABILITY) -> str | None:
    """The grade the rule gives a sketch with painter metadata `meta`; None
    when it has no tier. `key` names the render (stable across databases)."""
    if not 0.0 <= flip_probability <= 1.0:
        raise ValueError(f"flip_probability must be from 0 to 1, got {flip_probability}")
    grade = TIER_GRADES.get((meta or {}).get("quality"))
    if grade is None:
        return None
    digest = hashlib.sha256(f"{SIMULATED_CURATOR}:{seed}:{key}".encode()).digest()
    draw = random.Random(digest)
    if draw.random() < flip_probability:
        grade = draw.choice(NEIGHBOURS[grade])
    return grade


@dataclass(frozen=True)
class SimulationReport:
    graded: int
    changed: int
    skipped_no_tier: int
    already_graded: int


def simulated_curator():
    """The user the simulated grades belong to: it cannot log in and is not a
    curator, so it never appears among the people grading."""
    from django.contrib.auth import get_user_model

    user, created = get_user_model().objects.get_or_create(
        username=SIMULATED_CURATOR,
        defaults={"first_name": "Simulated", "last_name": "curator (not a person)"})
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def grades_simulate(*, renders=None, seed: int = 0, flip_probability: float = FLIP_PROBABILITY,
                    regrade: bool = False) -> SimulationReport:
    """Grade finished procedural renders (all by default) by the rule. Renders
    the simulated curator already graded are left alone unless `regrade`."""
    from django.db import transaction

    curator = simulated_curator()
    queryset = (renders if renders is not None else Render.objects.all())
    queryset = queryset.filter(status=Render.Status.OK).select_related("sketch")
    existing = dict(Grade.objects.filter(curator=curator, render__in=queryset)
                    .values_list("render_id", "value"))
    graded = changed = no_tier = kept = 0
    with transaction.atomic():
        for render in queryset.iterator(chunk_size=500):
            value = simulated_grade(render.sketch.meta, seed=seed,
                                    key=f"{render.sketch.code_sha256}:{render.seed}",
                                    flip_probability=flip_probability)
            if value is None:
                no_tier += 1
                continue
            previous = existing.get(render.pk)
            if previous is not None and not regrade:
                kept += 1
                continue
            grade_record(render=render, curator=curator, value=value,
                         source=Grade.Source.SIMULATED)
            graded += 1
            changed += previous is not None and previous != value
    return SimulationReport(graded=graded, changed=changed, skipped_no_tier=no_tier,
                            already_graded=kept)
