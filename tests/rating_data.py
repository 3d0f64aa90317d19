"""Test data for the grading tests: curators, and renders that passed the gate
with small real PNGs (one distinct colour each), stored under MEDIA_ROOT."""
from __future__ import annotations

import colorsys
import io

from django.contrib.auth import get_user_model
from django.core.files.base import ContentFile
from django.utils import timezone
from PIL import Image

from rating.services import curator_group
from sketches.models import Render, Sketch

PASSWORD = "a-long-password-1"


def curator_create(username: str, *, staff: bool = False, superuser: bool = False):
    staff = staff or superuser
    user = get_user_model().objects.create_user(username, password=PASSWORD, is_staff=staff,
                                                is_superuser=superuser)
    if not staff:
        user.groups.add(curator_group())
    return user


def png_bytes(index: int, side: int = 48) -> bytes:
    """A PNG of one colour, different for every index (golden-ratio hues)."""
    r, g, b = colorsys.hsv_to_rgb((index * 0.618034) % 1.0, 0.55, 0.9)
    image = Image.new("RGB", (side, side), (int(r * 255), int(g * 255), int(b * 255)))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def renders_create(count: int, *, prompt: str = "a hibiscus", origin: str = Sketch.Origin.IMPORTED,
                   meta: dict | None = None, start: int = 0, side: int = 48,
                   same_prompt: bool = False) -> list[Render]:
    """`count` gradable renders (status ok, with an image), oldest first; each
    with a prompt of its own (numbered), or all with `prompt` itself."""
    renders = []
    for i in range(start, start + count):
        sketch = Sketch.objects.create(code=f"// sketch {i}\nfunction setup() {{}}",
                                       prompt=prompt if same_prompt else f"{prompt} {i}",
                                       origin=origin, meta=meta or {})
        render = Render(sketch=sketch, seed=i, status=Render.Status.OK, width=side, height=side,
                        rendered=timezone.now())
        render.save()
        render.png.save("render.png", ContentFile(png_bytes(i, side)), save=True)
        renders.append(render)
    return renders
