"""Reads for sketches and renders."""
from __future__ import annotations

import gzip
from collections.abc import Collection

from django.db.models import Count, QuerySet

from .conf import renderer_config, score_size
from .models import IMPORTED_RENDERER, Render
from .renderer.libraries import BRUSH_VERSIONS, DEFAULT_BRUSH, installed_versions
from .renderer.paint import downscale
from .rendering import renderer_version_of


def render_status_counts() -> dict[str, int]:
    counts = {status: 0 for status in Render.Status.values}
    for row in Render.objects.values("status").annotate(n=Count("id")):
        counts[row["status"]] = row["n"]
    return counts


def render_calls_json(render: Render) -> bytes | None:
    """The p5.brush calls `render`'s picture was painted from (paint by
    construction), as the JSON the recorder wrote; None for a render painted
    in its own page or before calls were kept."""
    if not render.calls:
        return None
    with render.calls.open("rb") as stored:
        return gzip.decompress(stored.read())


def renders_pending_ids(limit: int | None = None) -> list[int]:
    qs = Render.objects.filter(status=Render.Status.PENDING).order_by("created")
    return list(qs.values_list("id", flat=True)[:limit])


def renderer_version_current(brush: str = DEFAULT_BRUSH) -> str:
    """The renderer_version a render made now with p5.brush `brush` gets,
    without starting a browser: a pool's libraries are the package.json
    versions of the files it loads, read here from the same place."""
    config = renderer_config()
    return renderer_version_of(installed_versions(config.library_dir, brush), config)


def renderer_versions_current() -> tuple[str, ...]:
    """renderer_version_current() of each p5.brush version."""
    return tuple(renderer_version_current(brush) for brush in BRUSH_VERSIONS)


def renders_stale(version: str | Collection[str] | None = None) -> QuerySet[Render]:
    """Renders that another renderer than `version` (one, or several: by
    default today's, one per p5.brush version) made, oldest first. Never
    pending ones (not rendered yet) nor imported ones (no renderer of ours
    made their picture)."""
    if version is None:
        version = renderer_versions_current()
    versions = [version] if isinstance(version, str) else list(version)
    return (Render.objects.exclude(status=Render.Status.PENDING)
            .exclude(renderer_version__in=[IMPORTED_RENDERER, *versions])
            .order_by("created", "pk"))


def renders_stale_ids(limit: int | None = None, *,
                      version: str | Collection[str] | None = None) -> list[int]:
    return list(renders_stale(version).values_list("id", flat=True)[:limit])


def renders_recent(limit: int = 12):
    return Render.objects.select_related("sketch").exclude(png="").order_by("-rendered")[:limit]


def render_scoring_png(render: Render) -> bytes:
    """The render downscaled to PAINTRL_SCORE_SIZE, the copy judges and
    scorers read (full-size PNGs stay on disk for people)."""
    with render.png.open("rb") as f:
        return downscale(f.read(), score_size())


def render_rate_per_minute(window_s: int = 300) -> float:
    """Renders finished per minute over the last `window_s` seconds: the pace
    the home page turns into a time-left estimate while a corpus renders.

    The pace is measured from the first render in the window, not from the
    window's start: two minutes into a fresh demo, dividing by the whole five
    minutes said "17 a minute, about 1.5 h left" while 37 a minute rendered."""
    from datetime import timedelta

    from django.db.models import Count, Min
    from django.utils import timezone

    now = timezone.now()
    recent = Render.objects.filter(rendered__gte=now - timedelta(seconds=window_s)).aggregate(
        count=Count("id"), first=Min("rendered"))
    if recent["count"] < 2:
        return 0.0
    # Renders after the first, over the time since it (the first only marks the start).
    seconds = max((now - recent["first"]).total_seconds(), 1.0)
    return (recent["count"] - 1) * 60 / seconds


def render_neighbours(render: Render) -> tuple[int | None, int | None]:
    """The ids before and after `render` among renders of its status: the
    render page's previous and next links."""
    same = Render.objects.filter(status=render.status)
    before = same.filter(pk__lt=render.pk).order_by("-pk").values_list("pk", flat=True).first()
    after = same.filter(pk__gt=render.pk).order_by("pk").values_list("pk", flat=True).first()
    return before, after
