"""Which pairs of renders a curator should compare next: two renders of the
same prompt, the pairs the active reward model is least sure of first.

The model's opinion of a pair is the Bradley-Terry probability that one beats
the other, sigmoid(score_a - score_b); it is least sure where that is nearest
0.5. Scores come from Render.taste_score, and count only when given by the
active model (conf.pair_score_label; renders scored by an older version sit
on another scale). Pairs without two such scores come after, in a fixed
scrambled order that spreads them over the prompts; with no active model
that is every pair.

A pair is open to a curator while they have neither compared (nor skipped)
it nor hold it, and fewer than the overlap (the site's grading settings, else
PAINTRL_COMPARE_OVERLAP) seats
are taken: a seat is a judgement (left, right or tie) or another curator's
live claim. Reads only; pair_queue claims.
"""
from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone

from . import conf
from .models import Comparison, PairClaim
from .selectors import compare_overlap, renders_gradable

# Within a prompt, only pairs at most this many places apart in score order
# are candidates. The least sure pairs are neighbours in that order, and the
# window keeps the work linear in the renders: a prompt with 1,000 renders
# (a run's rollouts) would otherwise give half a million pairs a request.
# Prompts of up to NEIGHBOURS + 1 renders offer every pair.
NEIGHBOURS = 32
# The candidate pairs, sorted, and what they were made from. Making them reads
# every gradable render and sorts thousands of pairs (tens of ms for 1,664
# renders on the 2-core machine, most of a comparing request); the check that
# they still hold is one aggregate query. Per process, like Django's default
# cache, but unpickled: the list is shared as it is.
_CANDIDATES: dict = {}
# The scrambled order of pairs nobody's scores rank: a multiplicative hash
# (Knuth's constant), so consecutive ids land far apart.
_SCRAMBLE = 2654435761
# The pairs closed to curator %(me)s, counted where the rows are: the answer
# is only the closed pairs. Reading every comparison and claim into Python to
# count there made a top-up (pair_queue.pairs_next) take 10.8 ms CPU, 24.2 ms
# wall (medians of 80, 240 comparisons, 1,664 renders, this 2-core machine
# loaded by another benchmark, 2026-12-03); this, 7-8 ms CPU, 12-14 ms wall.
# The database still reads every row to group them. A seat: another curator's
# judgement (not a skip) or live claim. CASE, not LEAST: SQLite has no LEAST.
_PAIRS_CLOSED_SQL = """
SELECT low, high FROM (
    SELECT {low} AS low, {high} AS high,
           CASE WHEN curator_id = %(me)s THEN 1 ELSE 0 END AS mine,
           CASE WHEN curator_id <> %(me)s AND choice <> %(skip)s THEN 1 ELSE 0 END AS seat
    FROM {comparison}
    UNION ALL
    SELECT {low}, {high},
           CASE WHEN curator_id = %(me)s THEN 1 ELSE 0 END,
           CASE WHEN curator_id <> %(me)s THEN 1 ELSE 0 END
    FROM {claim} WHERE expires > %(now)s OR curator_id = %(me)s
) AS taken
GROUP BY low, high
HAVING MAX(mine) = 1 OR SUM(seat) >= %(overlap)s
"""

PairKey = tuple[int, int]  # (lower render id, higher render id): a pair, sides aside


def pair_key(a: int, b: int) -> PairKey:
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True)
class CandidatePair:
    low: int
    high: int
    # |sigmoid(score difference) - 0.5|: 0 is a coin toss for the model; None unscored.
    certainty: float | None

    @property
    def key(self) -> PairKey:
        return (self.low, self.high)


@dataclass(frozen=True)
class PairProgress:
    mine: int  # pairs this curator has judged (skips aside)
    remaining: int  # pairs still waiting for them: open, or held for them


def certainty(score_a: float, score_b: float) -> float:
    """How sure the model is which of two renders is better, 0 to 0.5."""
    return abs(1.0 / (1.0 + math.exp(-(score_a - score_b))) - 0.5)


def pairs_open(*, curator, now: datetime | None = None,
               candidates: list[CandidatePair] | None = None) -> Iterator[CandidatePair]:
    """The pairs open to `curator` (module docstring), least sure first,
    lazily: the queue takes the first few and stops. `candidates`: the list
    candidate_pairs() gave, when the caller read it earlier (outside a lock)."""
    now = now or timezone.now()
    if candidates is None:
        candidates = candidate_pairs()
    closed = _pairs_closed(curator_id=curator.pk, now=now, overlap=compare_overlap())
    return (p for p in candidates if p.key not in closed)


def pair_progress(*, curator) -> PairProgress:
    judged = Comparison.objects.filter(curator=curator,
                                       choice__in=Comparison.JUDGEMENTS).count()
    now = timezone.now()
    held = PairClaim.objects.filter(curator=curator, expires__gt=now).count()
    remaining = sum(1 for _ in pairs_open(curator=curator, now=now))
    return PairProgress(mine=judged, remaining=remaining + held)


def candidate_pairs() -> list[CandidatePair]:
    """Pairs of gradable renders sharing a prompt, within NEIGHBOURS of each
    other in the active model's score order, least sure first. Kept per
    process while the renders, their scores and the active model are those
    it was made from (_CANDIDATES)."""
    label = conf.pair_score_label()
    renders = renders_gradable().exclude(sketch__prompt="")
    made_from = (label, *renders.aggregate(
        n=Count("pk"), top=Max("pk"), rendered=Max("rendered"), scores=Sum("taste_score"),
        scored=Count("taste_model", filter=Q(taste_model=label or ""))).values())
    if _CANDIDATES.get("made_from") != made_from:
        pairs = _pairs_of(renders, label)
        pairs.sort(key=lambda p: (p.certainty is None, p.certainty or 0.0,
                                  (p.low * _SCRAMBLE + p.high) % 2**32))
        _CANDIDATES.update(made_from=made_from, pairs=pairs)
    return _CANDIDATES["pairs"]


def _pairs_of(renders, label: str | None) -> list[CandidatePair]:
    by_prompt: dict[str, list[tuple[int, float | None]]] = defaultdict(list)
    rows = renders.values_list("pk", "sketch__prompt", "taste_score", "taste_model")
    for pk, prompt, score, model in rows:
        by_prompt[prompt].append((pk, score if label and model == label else None))
    pairs = []
    for group in by_prompt.values():
        group.sort(key=lambda r: (r[1] is None, r[1] or 0.0, r[0]))
        for i, (a, score_a) in enumerate(group):
            for b, score_b in group[i + 1:i + 1 + NEIGHBOURS]:
                sure = (certainty(score_a, score_b)
                        if score_a is not None and score_b is not None else None)
                pairs.append(CandidatePair(*pair_key(a, b), certainty=sure))
    return pairs


def _pairs_closed(*, curator_id: int, now: datetime, overlap: int) -> set[PairKey]:
    """The pairs closed to the curator: compared, skipped or held by them, or
    with `overlap` seats taken by others. Counted in the database, which
    answers only the closed pairs (_PAIRS_CLOSED_SQL). One statement, so a
    comparison that replaces a claim in another transaction is seen as one
    or the other, never neither."""
    with connection.cursor() as cursor:
        cursor.execute(_PAIRS_CLOSED_SQL.format(
            comparison=Comparison._meta.db_table, claim=PairClaim._meta.db_table,
            low="CASE WHEN left_id < right_id THEN left_id ELSE right_id END",
            high="CASE WHEN left_id < right_id THEN right_id ELSE left_id END"), {
            "me": curator_id, "now": connection.ops.adapt_datetimefield_value(now),
            "overlap": overlap,
            "skip": Comparison.Choice.SKIP})
        return set(cursor.fetchall())


def comparisons_recent(*, curator, limit: int = 10) -> list[Comparison]:
    """The curator's latest comparisons, oldest first: what `u` can undo after a reload."""
    rows = (Comparison.objects.filter(curator=curator)
            .select_related("left__sketch", "right__sketch").order_by("-created", "-pk")[:limit])
    return list(reversed(rows))
