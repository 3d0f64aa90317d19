"""Test data for the pool tests: renders with distinct, structured PNGs (the
perceptual hash needs shapes, not flat colours), grades from several
curators, and snapshots built directly."""
from __future__ import annotations

import io
import random

from django.core.files.base import ContentFile
from PIL import Image, ImageDraw

from pool.models import PoolMember, PoolSnapshot
from rating.services import curator_get_or_create, grade_record
from sketches.models import Render, Sketch
from tests.rating_data import renders_create


def pattern_image(index: int, side: int = 64) -> Image.Image:
    """A picture of a few shapes, laid out and coloured by `index`."""
    rng = random.Random(f"pool-test-pattern:{index}")
    image = Image.new("RGB", (side, side), (246, 240, 228))
    draw = ImageDraw.Draw(image)
    for _ in range(5):
        x0, y0 = rng.randrange(0, side * 3 // 4), rng.randrange(0, side * 3 // 4)
        x1, y1 = x0 + rng.randrange(side // 6, side // 2), y0 + rng.randrange(side // 6, side // 2)
        colour = tuple(rng.randrange(0, 200) for _ in range(3))
        if rng.random() < 0.5:
            draw.rectangle((x0, y0, x1, y1), fill=colour)
        else:
            draw.ellipse((x0, y0, x1, y1), fill=colour)
    return image


def png_of(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def pattern_png(index: int, side: int = 64) -> bytes:
    return png_of(pattern_image(index, side))


def pool_renders_create(count: int, *, prompt: str = "a hibiscus", start: int = 0,
                        origin: str = Sketch.Origin.IMPORTED,
                        meta: dict | None = None) -> list[Render]:
    """`count` gradable renders, each with its own pattern PNG."""
    renders = renders_create(count, prompt=prompt, origin=origin, meta=meta, start=start)
    for index, render in enumerate(renders, start=start):
        render.png.save("render.png", ContentFile(pattern_png(index)), save=True)
    return renders


def grades_give(render: Render, *values: str) -> None:
    """One grade per value, from curators c0, c1, ... (created as needed)."""
    for i, value in enumerate(values):
        grade_record(render=render, curator=curator_get_or_create(username=f"c{i}"), value=value)


def snapshot_build(name: str, members: list[tuple[str, str]]) -> PoolSnapshot:
    """A snapshot of (tier, subject) members without renders: the sampler
    reads only the snapshot."""
    snapshot = PoolSnapshot.objects.create(name=name, rule={}, counts={})
    PoolMember.objects.bulk_create([
        PoolMember(snapshot=snapshot, tier=tier, subject=subject, prompt=f"{subject} {i}",
                   code=f"// member {i}", png="")
        for i, (tier, subject) in enumerate(members)])
    return snapshot
