"""The grading queue: which renders a curator is handed next, and the claims
that keep two curators from grading the same render at once.

A curator's browser holds a few renders ahead (PAINTRL_GRADE_PREFETCH). Each is
a live `Claim`: it counts as a seat on the render, and a render hands out at
most overlap seats (grades plus live claims; the overlap is the site's grading
setting, else PAINTRL_GRADE_OVERLAP). A claim lapses after PAINTRL_CLAIM_TTL_S
unless the curator's requests renew it (they do once half of it has gone).

Why this is safe on PostgreSQL with several curators: candidates are read with
`SELECT ... FOR NO KEY UPDATE SKIP LOCKED`, so two curators claiming at once
take different rows instead of queueing behind each other. The candidate
query's snapshot may predate another curator's claim that committed just
before we locked the row, so the seats are counted again, in a new statement
(a fresh snapshot under READ COMMITTED, Django's default), while we hold the
locks; only renders still open are claimed. SQLite has no row locks: it
serialises writers, which keeps one curator correct.
"""
from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from sketches.models import Render

from . import conf, ordering
from .models import Claim, Grade
from .selectors import (
    QueueEntry,
    QueueFilter,
    grade_overlap,
    renders_matching,
    renders_open,
    review_grades,
)

# The browser's queue is topped up once it is this many short, not after every
# grade: half the grades then skip the claiming queries altogether.
TOP_UP_AT = 2
# What a queue entry shows (rating.presenters): the sketch's code, which can run
# to thousands of lines, and the render's gate reports stay in the database.
ENTRY_FIELDS = ("id", "sketch_id", "width", "height", "sketch__prompt", "sketch__origin",
                "sketch__meta")
# Rounds of "lock candidates, re-check, claim" before giving up on filling the
# request; a round only comes up short when others claimed the same rows a
# moment earlier, so a second round almost always fills it.
CLAIM_ROUNDS = 3


@dataclass(frozen=True)
class QueueBatch:
    entries: list[QueueEntry]
    exhausted: bool  # the queue could not fill the request: nothing more is open


def queue_next(*, curator, queue_filter: QueueFilter, want: int,
               have: Collection[int] = (), after: int | None = None) -> QueueBatch:
    """The renders `curator` should hold next, oldest claim first, leaving out
    those the browser already has (`have`). The curator's live claims are
    renewed and, once TOP_UP_AT or more short, topped up to `want` in all.
    When reviewing, their grades of the reviewed value after grade `after`
    instead (no claims)."""
    if queue_filter.reviewing:
        grades = review_grades(curator=curator, queue_filter=queue_filter)
        if after:
            grades = grades.filter(pk__gt=after)
        count = max(0, want - len(have))
        entries = [QueueEntry(render=g.render, grade=g)
                   for g in grades.exclude(render_id__in=have)[:count]]
        return QueueBatch(entries, exhausted=len(entries) < count)

    now, ttl = timezone.now(), conf.claim_ttl()
    expires = now + ttl
    matching = renders_matching(queue_filter)
    # Outside a transaction: one read, and writes (when due) to the curator's own rows.
    held = _claims_tend(curator=curator, matching=matching if queue_filter.narrowed else None,
                        now=now, ttl=ttl)
    need = want - len(held)
    new: list[int] = []
    if need >= min(TOP_UP_AT, want):
        candidates = ordering.order_apply(queue_filter.order, matching)
        with transaction.atomic():  # the row locks last until the claims are written
            new = _claim_open(curator=curator, candidates=candidates, need=need,
                              expires=expires)
    have = set(have)
    ids = [pk for pk in held + new if pk not in have]
    renders = Render.objects.select_related("sketch").only(*ENTRY_FIELDS).in_bulk(ids) \
        if ids else {}
    exhausted = bool(need >= min(TOP_UP_AT, want) and len(held) + len(new) < want)
    return QueueBatch([QueueEntry(render=renders[pk]) for pk in ids if pk in renders],
                      exhausted=exhausted)


def _claims_tend(*, curator, matching: QuerySet[Render] | None, now, ttl) -> list[int]:
    """The renders the curator holds under the filter (`matching`; None: no
    filter, so every claim, as only gradable renders are claimed), in claim
    order, after dropping their lapsed claims (someone else may hold those
    renders now) and renewing the live ones once half their time is gone.
    Only the curator's own rows, and only writes when due: most requests read
    one row set."""
    claims = Claim.objects.filter(curator=curator).order_by("pk")
    if matching is None:
        mine = [(render_id, claim_expires, True) for render_id, claim_expires
                in claims.values_list("render_id", "expires")]
    else:
        mine = list(claims.annotate(matches=Exists(matching.filter(pk=OuterRef("render_id"))))
                    .values_list("render_id", "expires", "matches"))
    if any(claim_expires <= now for _, claim_expires, _ in mine):
        Claim.objects.filter(curator=curator, expires__lte=now).delete()
    live = [(render_id, matches) for render_id, claim_expires, matches in mine
            if claim_expires > now]
    if any(claim_expires < now + ttl / 2 for _, claim_expires, _ in mine
           if claim_expires > now):
        Claim.objects.filter(curator=curator, expires__gt=now).update(expires=now + ttl)
    return [render_id for render_id, matches in live if matches]


def render_claim(*, curator, render_id: int) -> bool:
    """Claim one given render for `curator` if it is still open to them (as
    when they undo a skip). True if they now hold it."""
    expires = timezone.now() + conf.claim_ttl()
    with transaction.atomic():
        if Claim.objects.filter(curator=curator, render_id=render_id).update(expires=expires):
            return True
        return bool(_claim_open(curator=curator, candidates=Render.objects.filter(pk=render_id),
                                need=1, expires=expires))


def claims_release(*, curator, keep: QueueFilter | None = None) -> int:
    """Give back the curator's claims, all of them or those outside `keep` (the
    filter they just switched to), so others can have those renders now rather
    than when the claims lapse. Returns how many were released."""
    claims = Claim.objects.filter(curator=curator)
    if keep is not None and not keep.reviewing:
        claims = claims.exclude(render__in=renders_matching(keep))
    deleted, _ = claims.delete()
    return deleted


def _claim_open(*, curator, candidates: QuerySet[Render], need: int, expires) -> list[int]:
    """Claim up to `need` of `candidates` (in their order) that are open to
    `curator`; the ids claimed, in order. Call inside a transaction."""
    claimed: list[int] = []
    tried: set[int] = set()
    for _ in range(CLAIM_ROUNDS):
        if len(claimed) >= need:
            break
        now = timezone.now()
        rows = renders_open(candidates.exclude(pk__in=tried), curator=curator, now=now,
                            mine_held_open=False)
        ids = list(_lock_skipping_locked(rows).values_list("pk", flat=True)[:need - len(claimed)])
        if not ids:
            break
        tried.update(ids)
        # Re-count seats under our locks, in a fresh statement (see the module docstring).
        taken = _taken_since(ids, curator=curator, now=now)
        fresh = [pk for pk in ids if pk not in taken]
        Claim.objects.bulk_create(
            [Claim(render_id=pk, curator=curator, expires=expires) for pk in fresh])
        claimed += fresh
    return claimed


def _taken_since(ids: list[int], *, curator, now) -> set[int]:
    """Of renders just found open, those another curator's grade or claim has
    filled since. At overlap 1 any grade or live claim fills the one seat, and
    two plain lookups by render id say so (cheaper than the full open test)."""
    if grade_overlap() > 1:
        still_open = renders_open(Render.objects.filter(pk__in=ids), curator=curator, now=now,
                                  mine_held_open=False).values_list("pk", flat=True)
        return set(ids) - set(still_open)
    graded = Grade.objects.filter(render_id__in=ids).order_by().values_list("render_id")
    claimed = (Claim.objects.filter(render_id__in=ids)
               .filter(Q(expires__gt=now) | Q(curator=curator)).order_by()
               .values_list("render_id"))
    return {render_id for (render_id,) in graded.union(claimed)}


def _lock_skipping_locked(rows: QuerySet[Render]) -> QuerySet[Render]:
    features = connection.features
    if not features.has_select_for_update_skip_locked:
        return rows  # SQLite: no row locks; writers are serialised instead
    # NO KEY UPDATE: grades and claims of other renders insert foreign keys to
    # these rows (FOR KEY SHARE), and that must not wait on a curator claiming.
    return rows.select_for_update(skip_locked=True, of=("self",),
                                  no_key=features.has_select_for_no_key_update)
