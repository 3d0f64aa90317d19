"""Reads for grading: which renders can be graded, which are still open to a
curator under the overlap setting, progress, and a curator's recent grades."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.core.cache import cache
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import QueryDict
from django.utils import timezone

from sketches.models import Render, Sketch

from . import conf, ordering
from .models import Claim, Grade, GradeChange, GradingSettings, Skip

# The grading settings row, cached: the queue reads the overlap on every grade
# (several times a request), and the grading page's server budget is a few ms.
# A cache hit costs a local-memory get (microseconds); a miss, one primary-key
# read. The service deletes the key on save, so the saving process (and every
# process, with a shared cache) sees a change on its next request; with the
# default per-process cache, other server processes see it within this timeout.
GRADING_SETTINGS_CACHE_KEY = "rating:grading-settings"
GRADING_SETTINGS_CACHE_S = 5


def grading_settings() -> GradingSettings:
    """The grading settings row, or an unsaved default when staff never saved one."""
    row = cache.get(GRADING_SETTINGS_CACHE_KEY)
    if row is None:
        row = (GradingSettings.objects.filter(pk=GradingSettings.SINGLETON_PK).first()
               or GradingSettings(pk=GradingSettings.SINGLETON_PK))
        cache.set(GRADING_SETTINGS_CACHE_KEY, row, GRADING_SETTINGS_CACHE_S)
    return row


def grade_overlap() -> int:
    """How many curators grade each render: the site's setting when staff set
    one, else PAINTRL_GRADE_OVERLAP."""
    return grading_settings().overlap or conf.grade_overlap()


def compare_overlap() -> int:
    """How many curators compare each pair of renders: the site's setting when
    staff set one, else PAINTRL_COMPARE_OVERLAP."""
    return grading_settings().compare_overlap or conf.compare_overlap()


@dataclass(frozen=True)
class QueueFilter:
    """What a curator asked to see, as the grading page's query string says it.
    With `grade` set the queue is a review of the curator's own grades of that
    value (oldest grade first) rather than the renders still to grade."""

    text: str = ""  # prompt or subject contains, case-insensitive
    origin: str = ""  # a Sketch.Origin value
    grade: str = ""  # a Grade.Value: review my renders graded so
    order: str = ordering.DEFAULT

    def __post_init__(self):
        if self.origin and self.origin not in Sketch.Origin.values:
            raise ValueError(f"unknown origin {self.origin!r}: expected one of "
                             f"{', '.join(Sketch.Origin.values)}")
        if self.grade and self.grade not in Grade.Value.values:
            raise ValueError(f"unknown grade {self.grade!r}: expected one of "
                             f"{', '.join(Grade.Value.values)}")
        # Built-in orders are always offered; only another order asks its
        # provider (the reward model's reads the database).
        if self.order not in ordering.BUILT_IN and self.order not in ordering.orders_available():
            raise ValueError(f"queue order {self.order!r} is not available: expected one of "
                             f"{', '.join(ordering.orders_available())}")

    @classmethod
    def from_query(cls, query: QueryDict) -> QueueFilter:
        """Raises ValueError, naming the parameter, for a value it cannot use."""
        return cls(text=query.get("q", "").strip(), origin=query.get("origin", ""),
                   grade=query.get("grade", ""), order=query.get("order") or ordering.DEFAULT)

    @property
    def reviewing(self) -> bool:
        return bool(self.grade)

    @property
    def narrowed(self) -> bool:
        """Whether the filter leaves out some gradable renders."""
        return bool(self.text or self.origin)

    def as_query(self) -> dict[str, str]:
        """The parameters that differ from the defaults, for links and redirects."""
        query = {"q": self.text, "origin": self.origin, "grade": self.grade,
                 "order": "" if self.order == ordering.DEFAULT else self.order}
        return {key: value for key, value in query.items() if value}


@dataclass(frozen=True)
class QueueEntry:
    """One render in a curator's queue; `grade` is theirs when reviewing."""

    render: Render
    grade: Grade | None = None


@dataclass(frozen=True)
class GradingProgress:
    mine: int  # gradable renders this curator has graded, under any filter
    done: int  # renders graded by as many curators as the overlap asks
    total: int  # renders that can be graded: passed the gate, have an image
    remaining: int  # renders still waiting for this curator under the current filter


def renders_gradable() -> QuerySet[Render]:
    return Render.objects.filter(status=Render.Status.OK).exclude(png="")


def renders_matching(queue_filter: QueueFilter) -> QuerySet[Render]:
    renders = renders_gradable()
    if queue_filter.text:
        renders = renders.filter(Q(sketch__prompt__icontains=queue_filter.text)
                                 | Q(sketch__meta__subject__icontains=queue_filter.text))
    if queue_filter.origin:
        renders = renders.filter(sketch__origin=queue_filter.origin)
    return renders


def _count(rows: QuerySet):
    """A correlated COUNT(*) of `rows` (filtered on OuterRef("pk")), 0 when none."""
    return Coalesce(Subquery(rows.order_by().values("render").annotate(n=Count("pk"))
                             .values("n")), 0)


def renders_open(renders: QuerySet[Render], *, curator, now: datetime | None = None,
                 mine_held_open: bool = True) -> QuerySet[Render]:
    """Of `renders`, those still open to `curator`: not graded or skipped by
    them, with fewer than overlap seats taken, a seat being a grade or a live
    claim. `mine_held_open` counts the curator's own claims as open (the
    renders waiting for them); otherwise those are left out too (as when
    claiming more)."""
    now = now or timezone.now()
    overlap = grade_overlap()
    renders = renders.exclude(Exists(Skip.objects.filter(render=OuterRef("pk"), curator=curator)))
    grades = Grade.objects.filter(render=OuterRef("pk"))
    mine = Claim.objects.filter(render=OuterRef("pk"), curator=curator)
    if mine_held_open:
        others_live = Claim.objects.filter(render=OuterRef("pk"), expires__gt=now).exclude(
            curator=curator)
    else:
        # Any claim of the curator's own, even a lapsed one, rules the render out:
        # they hold it already, and a second claim row could not be made.
        others_live = Claim.objects.filter(Q(expires__gt=now) | Q(curator=curator),
                                           render=OuterRef("pk"))
    if overlap == 1:
        # The common case as two anti-joins: any grade or live claim takes the one seat.
        return renders.exclude(Exists(grades)).exclude(Exists(others_live))
    renders = renders.exclude(Exists(grades.filter(curator=curator)))
    if not mine_held_open:
        renders = renders.exclude(Exists(mine))
    return renders.alias(seats_taken=_count(grades) + _count(others_live)).filter(
        seats_taken__lt=overlap)


def review_grades(*, curator, queue_filter: QueueFilter) -> QuerySet[Grade]:
    """The curator's own grades of the reviewed value, oldest first."""
    return (Grade.objects.filter(curator=curator, value=queue_filter.grade,
                                 render__in=renders_matching(queue_filter))
            .select_related("render__sketch").order_by("pk"))


def grading_progress(*, curator, queue_filter: QueueFilter,
                     after: int | None = None) -> GradingProgress:
    overlap = grade_overlap()
    graded = Grade.objects.filter(render=OuterRef("pk"))
    # One pass over the gradable renders for the whole-queue figures.
    counts = renders_gradable().aggregate(
        total=Count("pk"), done=Count("pk", filter=Exists(graded)),
        mine=Count("pk", filter=Exists(graded.filter(curator=curator))))
    if overlap > 1:
        counts["done"] = renders_gradable().alias(n=_count(graded)).filter(
            n__gte=overlap).count()
    if queue_filter.reviewing:
        review = review_grades(curator=curator, queue_filter=queue_filter)
        remaining = (review.filter(pk__gt=after) if after else review).count()
    else:
        remaining = renders_open(renders_matching(queue_filter), curator=curator).count()
    return GradingProgress(mine=counts["mine"], done=counts["done"], total=counts["total"],
                           remaining=remaining)


def grades_recent(*, curator, limit: int = 8) -> list[Grade]:
    """The curator's latest grades, newest first: the page's history strip."""
    return list(Grade.objects.filter(curator=curator).select_related("render__sketch")
                .order_by("-updated", "-pk")[:limit])


def render_grades(*, render: Render) -> list[Grade]:
    """Every grade of `render` with its curator, oldest first: the render page's
    record of who graded what, and when."""
    return list(Grade.objects.filter(render=render).select_related("curator")
                .order_by("created", "pk"))


def undo_steps_recent(*, curator, limit: int = 10) -> list[GradeChange]:
    """The curator's latest grade changes, oldest first: what `u` can undo after
    a reload. Each change is undone by restoring its `previous` value (none:
    withdraw the grade)."""
    changes = (GradeChange.objects.filter(changed_by=curator, grade__curator=curator)
               .select_related("grade__render__sketch").order_by("-changed", "-pk")[:limit])
    return list(reversed(changes))


def skips_count(*, curator) -> int:
    """Renders the curator skipped and has not graded since."""
    return (Skip.objects.filter(curator=curator)
            .exclude(Exists(Grade.objects.filter(render=OuterRef("render"), curator=curator)))
            .count())
