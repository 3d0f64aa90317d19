"""The comparing queue: the pairs a curator's browser holds next. Each is a
live PairClaim carrying the sides the pair is shown on, drawn at random here
once, so the page, a reload and the no-JavaScript form all show the same
sides, and the comparison records them.

Claims work as the grading queue's (rating.queue): the browser holds
PAINTRL_GRADE_PREFETCH pairs, each claim is a seat on its pair towards the
overlap (selectors.compare_overlap()), claims lapse after PAINTRL_CLAIM_TTL_S
unless renewed, and the queue is topped up once TOP_UP_AT short.

Why claiming is safe with several curators: a pair is two render rows, so
there is no row to lock with SKIP LOCKED as the grading queue does. Instead,
on PostgreSQL, "find the open pairs and claim them" runs under one
transaction-level advisory lock: two curators topping up at once take turns,
and the second reads the first's claims (its statements start after the
first commits, READ COMMITTED). Under the lock: one statement counting seats
(rating.pairs), and the insert; the candidate pairs, the same for every
curator, are read before it. The step comes once every TOP_UP_AT actions. SQLite serialises
writers, which keeps one curator correct.
"""
from __future__ import annotations

import random
from collections.abc import Collection, Iterable
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from sketches.models import Render

from . import conf
from .models import PairClaim
from .pairs import PairKey, candidate_pairs, pair_key, pairs_open
from .queue import ENTRY_FIELDS, TOP_UP_AT

# Any fixed number: the advisory lock that serialises claiming pairs.
PAIR_CLAIM_LOCK = 0x7061697273  # "pairs"


@dataclass(frozen=True)
class PairEntry:
    """One pair in a curator's queue, on the sides they will see it."""

    left: Render
    right: Render

    @property
    def key(self) -> PairKey:
        return pair_key(self.left.pk, self.right.pk)


@dataclass(frozen=True)
class PairBatch:
    entries: list[PairEntry]
    exhausted: bool  # the queue could not fill the request: no more pairs are open


def pairs_next(*, curator, want: int, have: Collection[PairKey] = ()) -> PairBatch:
    """The pairs `curator` should hold next, oldest claim first, leaving out
    those the browser has (`have`). Live claims are renewed; once TOP_UP_AT
    or more short, topped up to `want`."""
    now, ttl = timezone.now(), conf.claim_ttl()
    claims = list(PairClaim.objects.filter(curator=curator).order_by("pk")
                  .values_list("left_id", "right_id", "expires"))
    if any(expires <= now for _, _, expires in claims):
        PairClaim.objects.filter(curator=curator, expires__lte=now).delete()
    held = [(left, right) for left, right, expires in claims if expires > now]
    if any(now < expires < now + ttl / 2 for _, _, expires in claims):
        PairClaim.objects.filter(curator=curator, expires__gt=now).update(expires=now + ttl)
    need = want - len(held)
    topping_up = need >= min(TOP_UP_AT, want)
    new: list[tuple[int, int]] = []
    if topping_up:
        candidates = candidate_pairs()  # the same for every curator: read before the lock
        with transaction.atomic():
            _serialise()
            new = _claim(curator=curator, need=need, keys=(
                p.key for p in pairs_open(curator=curator, candidates=candidates)))
    have = set(have)
    sides = [s for s in held + new if pair_key(*s) not in have]
    renders = Render.objects.select_related("sketch").only(*ENTRY_FIELDS).in_bulk(
        {pk for s in sides for pk in s}) if sides else {}
    entries = [PairEntry(renders[a], renders[b]) for a, b in sides
               if a in renders and b in renders]
    return PairBatch(entries, exhausted=topping_up and len(held) + len(new) < want)


def pair_claim(*, curator, left_id: int, right_id: int) -> bool:
    """Hold one given pair for `curator` on the given sides (as when they undo
    a comparison) if it is still open to them. True if they now hold it."""
    key = pair_key(left_id, right_id)
    candidates = candidate_pairs()
    with transaction.atomic():
        _serialise()
        if not any(p.key == key for p in pairs_open(curator=curator, candidates=candidates)):
            return False
        PairClaim.objects.create(curator=curator, left_id=left_id, right_id=right_id,
                                 expires=timezone.now() + conf.claim_ttl())
    return True


def _claim(*, curator, keys: Iterable[PairKey], need: int) -> list[tuple[int, int]]:
    """Claim the first `need` pairs of `keys`, each on sides drawn at random;
    (left, right) of each, in order. Call under _serialise()."""
    expires = timezone.now() + conf.claim_ttl()
    chosen = []
    for key in keys:
        if len(chosen) >= need:
            break
        chosen.append(key if random.random() < 0.5 else key[::-1])
    PairClaim.objects.bulk_create([PairClaim(curator=curator, left_id=left, right_id=right,
                                             expires=expires) for left, right in chosen])
    return chosen


def _serialise() -> None:
    """Hold the pair-claiming lock until the transaction ends (PostgreSQL)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [PAIR_CLAIM_LOCK])
