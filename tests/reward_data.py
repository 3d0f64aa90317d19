"""Toy graded renders for the reward-model tests: small PNGs whose grade
follows a visible property (the hue of their marks: red love, green okay,
blue nope), with random positions, sizes and backgrounds so the model has to
find the property rather than memorise pictures."""
from __future__ import annotations

import io
import random

from django.core.files.base import ContentFile
from PIL import Image, ImageDraw

from rating.models import Grade
from rating.services import curator_get_or_create, grade_record
from sketches.models import Render, Sketch

GRADES = ("nope", "okay", "love")
HUES = {"love": (200, 40, 40), "okay": (40, 160, 60), "nope": (40, 60, 200)}


def toy_png(grade: str, rng: random.Random, size: int = 40) -> bytes:
    shade = rng.randint(225, 255)
    image = Image.new("RGB", (size, size), (shade, shade, rng.randint(215, 255)))
    draw = ImageDraw.Draw(image)
    base = HUES[grade]
    for _ in range(rng.randint(3, 7)):
        x, y = rng.randint(0, size - 8), rng.randint(0, size - 8)
        w, h = rng.randint(4, size // 2), rng.randint(4, size // 2)
        colour = tuple(max(0, min(255, c + rng.randint(-30, 30))) for c in base)
        draw.rectangle([x, y, x + w, y + h], fill=colour)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def toy_render(*, grade: str, rng: random.Random, index: int, status: str = "ok",
               meta: dict | None = None, seed: int = 0) -> Render:
    sketch = Sketch.objects.create(prompt=f"toy {index}", code=f"// toy sketch {index}\n",
                                   meta=meta or {})
    render = Render.objects.create(sketch=sketch, seed=seed, status=status)
    if status == "ok":
        render.png.save(f"toy-{index}.png", ContentFile(toy_png(grade, rng)), save=False)
        render.width = render.height = 40
        render.paint_fraction = 0.3
        render.save()
    return render


def toy_graded_renders(count: int, *, seed: int = 0, curator: str = "alice",
                       source: str = Grade.Source.APP) -> list[Render]:
    """`count` rendered toy sketches, grades cycling nope/okay/love, each
    graded once by `curator`."""
    rng = random.Random(seed)
    who = curator_get_or_create(username=curator)
    renders = []
    for index in range(count):
        grade = GRADES[index % 3]
        render = toy_render(grade=grade, rng=rng, index=index)
        grade_record(render=render, curator=who, value=grade, source=source)
        renders.append(render)
    return renders


# A reward model small enough that a test trains it in about a second.
SMALL_CONFIG = {"image_size": 32, "width": 8, "max_epochs": 20, "batch_size": 32,
                "patience": 0, "sources": "human"}
