"""Reads for the curation page and the snapshot pages: the pool by subject,
counts per subject and tier, the balance across subjects, thin subjects,
near-duplicate pairs, pins, snapshots. Reads only: a fingerprint missing from the
store is computed here and left for the caller to have stored
(pool.services.render_fingerprints_queue)."""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, QuerySet

from rating.models import Grade
from rating.selectors import renders_gradable
from rating.sources import grade_sources, grades_simulated
from sketches.models import Render, Sketch

from .models import (
    PoolMember,
    PoolPin,
    PoolRule,
    PoolSnapshot,
    RenderFingerprint,
    Tier,
)
from .phash import FINGERPRINT_VERSION, Fingerprint, fingerprint_render, near_duplicate_pairs
from .rules import PoolEntry, pool_entries, pool_rule_current, render_strength
from .subjects import OTHER, subject_of_sketch, subjects_known


@dataclass(frozen=True)
class SubjectCount:
    subject: str
    love: int
    okay: int
    thin: bool  # fewer love references than the rule's min_per_subject
    love_percent: float  # bar widths, relative to the largest subject
    okay_percent: float

    @property
    def total(self) -> int:
        return self.love + self.okay


@dataclass(frozen=True)
class DuplicatePair:
    weaker: PoolEntry  # the one "drop the weaker" pins out
    stronger: PoolEntry
    distance: int  # differing hash bits
    colour_distance: float


@dataclass(frozen=True)
class PoolOverview:
    rule: PoolRule
    entries: list[PoolEntry]
    by_subject: list[tuple[str, list[PoolEntry]]]
    subjects: list[SubjectCount]
    love: int
    okay: int
    # How evenly love references spread over the subjects in `subjects` (but
    # OTHER), empty ones included (subjects_balance); None below two subjects.
    evenness: float | None
    duplicates: list[DuplicatePair]
    simulated: bool  # membership rests on the simulated curator's grades
    # Members whose fingerprint was computed for this read, not found stored:
    # the view has them stored (pool.services.render_fingerprints_queue).
    fingerprints_unstored: tuple[int, ...]

    @property
    def thin(self) -> list[SubjectCount]:
        return [s for s in self.subjects if s.thin]

    @property
    def balanced_over(self) -> list[SubjectCount]:
        """The subjects the balance is measured over: all but OTHER."""
        return [s for s in self.subjects if s.subject != OTHER]

    @property
    def subjects_with_love(self) -> int:
        return sum(1 for s in self.balanced_over if s.love)

    @property
    def total(self) -> int:
        return self.love + self.okay


def pool_overview(*, rule: PoolRule | None = None) -> PoolOverview:
    rule = rule or pool_rule_current()
    entries = pool_entries(rule)
    grouped: dict[str, list[PoolEntry]] = defaultdict(list)
    for entry in entries:
        grouped[entry.subject].append(entry)
    # Subjects curators have graded renders of are expected in the pool, so a
    # graded subject with no references is the thinnest of all.
    names = set(grouped) | subjects_graded()
    order = {name: i for i, name in enumerate(subjects_known())}
    names = sorted(names, key=lambda s: (order.get(s, len(order)), s))
    tallies = {s: (sum(e.tier == Tier.LOVE for e in grouped[s]),
                   sum(e.tier == Tier.OKAY for e in grouped[s])) for s in names}
    widest = max((love + okay for love, okay in tallies.values()), default=0) or 1
    subjects = [SubjectCount(s, love, okay,
                             thin=s != OTHER and love < rule.min_per_subject,
                             love_percent=round(100 * love / widest, 1),
                             okay_percent=round(100 * okay / widest, 1))
                for s, (love, okay) in tallies.items()]
    by_subject = [(s, sorted(grouped[s], key=_grid_order)) for s in names if grouped[s]]
    love = sum(e.tier == Tier.LOVE for e in entries)
    fingerprints = render_fingerprints(entry.render for entry in entries)
    return PoolOverview(
        rule=rule, entries=entries, by_subject=by_subject, subjects=subjects,
        love=love, okay=len(entries) - love,
        evenness=subjects_balance([c.love for c in subjects if c.subject != OTHER]),
        duplicates=duplicate_pairs(entries, fingerprints.by_render),
        simulated=grades_simulated() and bool(entries),
        fingerprints_unstored=fingerprints.unstored)


def _grid_order(entry: PoolEntry) -> tuple:
    # Love before okay, then the reward model's favourites, then newest.
    score = entry.render.taste_score
    return (entry.tier != Tier.LOVE, score is None, -(score or 0.0), -entry.render.pk)


def subjects_balance(counts: list[int]) -> float | None:
    """Normalised entropy of `counts` over every subject, empty ones included:
    1 when each subject has as many references, 0 when all are in one subject
    (or there are none). An empty subject is the least even there is, so it
    lowers the balance (5 even subjects of 12: 0.65); None below two subjects."""
    if len(counts) < 2:
        return None
    total = sum(counts)
    if not total:
        return 0.0
    entropy = -sum(c / total * math.log(c / total) for c in counts if c)
    return round(entropy / math.log(len(counts)), 3)


def subjects_graded() -> set[str]:
    """The subjects of renders that have at least one grade of those that
    count (rating.sources): a subject only the simulated curator graded is not
    expected in a pool that people's grades decide."""
    counted = Grade.objects.filter(render=OuterRef("pk"), source__in=grade_sources())
    graded = renders_gradable().filter(Exists(counted))
    sketches = Sketch.objects.filter(renders__in=graded).only("prompt", "meta", "origin")
    return {subject_of_sketch(sketch) for sketch in sketches.distinct()}


@dataclass(frozen=True)
class RenderFingerprints:
    by_render: dict[int, Fingerprint]
    unstored: tuple[int, ...]  # ids in by_render computed from the PNG, not read from the store


def render_fingerprints(renders: Iterable[Render]) -> RenderFingerprints:
    """Fingerprints of `renders` by id: the stored ones where they are current
    (same PNG, same FINGERPRINT_VERSION), else computed from the PNG and not
    stored. Renders whose PNG is missing or unreadable are left out (and
    logged): they cannot be compared."""
    renders = [r for r in renders if r.png]
    stored = {row.render_id: row for row in RenderFingerprint.objects.filter(
        render__in=[r.pk for r in renders], version=FINGERPRINT_VERSION)}
    found: dict[int, Fingerprint] = {}
    unstored = []
    for render in renders:
        row = stored.get(render.pk)
        if row is not None and row.png == render.png.name:
            found[render.pk] = Fingerprint.from_hex(row.phash, row.layout)
            continue
        fingerprint = fingerprint_render(render)
        if fingerprint is not None:
            found[render.pk] = fingerprint
            unstored.append(render.pk)
    return RenderFingerprints(by_render=found, unstored=tuple(unstored))


def duplicate_pairs(entries: list[PoolEntry],
                    fingerprints: dict[int, Fingerprint]) -> list[DuplicatePair]:
    """Near-duplicate pairs among `entries` (by their `fingerprints`), closest
    first, each with its weaker member named (pool.rules.render_strength)."""
    by_id = {entry.render.pk: entry for entry in entries}
    pairs = []
    for pair in near_duplicate_pairs(fingerprints):
        a, b = by_id[pair.a], by_id[pair.b]
        weaker, stronger = sorted(
            (a, b), key=lambda e: render_strength(e.render, e.tally.love))
        pairs.append(DuplicatePair(weaker, stronger, pair.distance, pair.colour_distance))
    return pairs


def pins_recent() -> list[PoolPin]:
    return list(PoolPin.objects.select_related("render__sketch", "created_by")
                .defer("render__sketch__code").order_by("-created", "-pk"))


def rules_recent(limit: int = 5) -> list[PoolRule]:
    return list(PoolRule.objects.select_related("created_by").order_by("-created", "-pk")[:limit])


def snapshots_list() -> QuerySet[PoolSnapshot]:
    return (PoolSnapshot.objects.select_related("created_by")
            .annotate(member_count=Count("members")).order_by("-created", "-pk"))


def snapshot_members_by_subject(snapshot: PoolSnapshot) -> list[tuple[str, list[PoolMember]]]:
    """The snapshot's members grouped by subject (in subjects_known order), love first.
    Their code is not loaded: the page does not show it."""
    grouped: dict[str, list[PoolMember]] = defaultdict(list)
    for member in snapshot.members.defer("code").order_by("pk"):
        grouped[member.subject or OTHER].append(member)
    order = {name: i for i, name in enumerate(subjects_known())}
    return [(subject, sorted(members, key=lambda m: m.tier != Tier.LOVE))
            for subject, members in sorted(grouped.items(),
                                           key=lambda kv: (order.get(kv[0], len(order)), kv[0]))]


@dataclass(frozen=True)
class RenderPoolPlace:
    """Where one render stands: its tier in the live pool, and in the newest snapshot."""
    entry: PoolEntry | None  # None: not in the pool under the rule in force
    snapshot: PoolSnapshot | None  # the newest snapshot, if any
    snapshot_tier: str  # the render's tier in it, "" when not a member


def render_pool_place(render: Render) -> RenderPoolPlace:
    entry = next(iter(pool_entries(render_ids=[render.pk])), None)
    snapshot = PoolSnapshot.objects.order_by("-created", "-pk").first()
    tier = ""
    if snapshot is not None:
        tier = snapshot.members.filter(render=render).values_list("tier", flat=True).first() or ""
    return RenderPoolPlace(entry=entry, snapshot=snapshot, snapshot_tier=tier)


def png_in_snapshot(png: str) -> bool:
    """Whether a frozen snapshot refers to this PNG file: a member keeps the
    path it was frozen with (settings.PAINTRL_PNG_IN_USE asks this before a
    re-render deletes a render's old picture)."""
    return PoolMember.objects.filter(png=png).exists()
