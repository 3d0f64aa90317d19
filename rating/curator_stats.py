"""Per-curator statistics for the agreement page: how much each person
grades, how fast, with which values, and how far they agree with the others.

People only (rating.sources.HUMAN_SOURCES): the simulated curator's speed and
agreement say nothing about anyone. One query reads every human grade; the
rest is Python, clearer here than SQL window functions for the sessions."""
from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta
from statistics import median

from . import agreement
from .agreement_report import CATEGORIES
from .models import Grade
from .sources import HUMAN_SOURCES

# Grades closer together than this belong to one grading session. The grading
# page records a grade every few seconds while someone is at it; a 10-minute
# gap is a coffee, a meeting or the end of the day, not time spent grading.
SESSION_GAP = timedelta(minutes=10)
# Grading time below which no rate per hour is given: a burst is not a pace.
# A curator who graded 18 renders within a minute read as "4,649 per hour".
MIN_RATE_SPAN = timedelta(minutes=5)


@dataclass(frozen=True)
class CuratorStats:
    curator: str
    grades: int
    sessions: int
    hours: float                 # sum of the sessions' spans, first grade to last
    per_hour: float | None       # grades after each session's first, per hour of span;
    #                              None under MIN_RATE_SPAN of span
    median_seconds: float | None  # median shown_ms of the grades that have one
    timed: int                   # grades with shown_ms (imported grades have none)
    shares: list[tuple[str, float]]  # (label, fraction of this curator's grades), love first
    shared: int                  # renders this curator and at least one other graded
    kappa: float | None          # Cohen's (quadratic) against the pooled others' grades


def _sessions(times: list[datetime]) -> list[tuple[datetime, datetime, int]]:
    """(first, last, count) per session of sorted `times` split at SESSION_GAP."""
    sessions: list[list] = []
    for t in times:
        if sessions and t - sessions[-1][1] < SESSION_GAP:
            sessions[-1][1] = t
            sessions[-1][2] += 1
        else:
            sessions.append([t, t, 1])
    return [tuple(s) for s in sessions]


def curator_stats() -> list[CuratorStats]:
    """One row per person who has graded, by name."""
    rows = (Grade.objects.filter(source__in=HUMAN_SOURCES)
            .order_by("created")
            .values_list("curator__username", "render_id", "value", "shown_ms", "created"))
    times: dict[str, list[datetime]] = defaultdict(list)
    shown: dict[str, list[int]] = defaultdict(list)
    values: dict[str, Counter] = defaultdict(Counter)
    by_render: dict[int, dict[str, int]] = defaultdict(dict)
    for curator, render_id, value, shown_ms, created in rows.iterator():
        times[curator].append(created)
        if shown_ms is not None:
            shown[curator].append(shown_ms)
        values[curator][value] += 1
        by_render[render_id][curator] = Grade.ORDINAL[value]

    ordinal_categories = [Grade.ORDINAL[c] for c in CATEGORIES]
    stats = []
    for curator in sorted(times):
        sessions = _sessions(times[curator])
        seconds = sum((last - first).total_seconds() for first, last, _n in sessions)
        # A session's span runs from its first grade to its last, so it holds
        # the time of every grade but the first: count those, not all of them.
        timed_grades = sum(n - 1 for _f, _l, n in sessions)
        # Pooled others: one pair (this curator's grade, another's grade) for
        # every other grade on every render they share.
        pairs = [(g[curator], other_value)
                 for g in by_render.values() if curator in g
                 for other, other_value in g.items() if other != curator]
        n = len(times[curator])
        stats.append(CuratorStats(
            curator=curator, grades=n, sessions=len(sessions), hours=seconds / 3600,
            per_hour=(timed_grades * 3600 / seconds
                      if seconds and seconds >= MIN_RATE_SPAN.total_seconds() else None),
            median_seconds=median(shown[curator]) / 1000 if shown[curator] else None,
            timed=len(shown[curator]),
            shares=[(Grade.Value(v).label, values[curator][v] / n) for v in reversed(CATEGORIES)],
            shared=sum(1 for g in by_render.values() if curator in g and len(g) > 1),
            kappa=agreement.weighted_kappa(pairs, ordinal_categories) if pairs else None,
        ))
    return stats
