"""The sketches app's settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment)."""
from django.conf import settings

from .renderer.config import RendererConfig


def renderer_config() -> RendererConfig:
    return RendererConfig(
        chromium_path=settings.PAINTRL_CHROMIUM_PATH,
        browsers=settings.PAINTRL_RENDER_BROWSERS,
        deadline_s=settings.PAINTRL_RENDER_DEADLINE_S,
        max_frames=settings.PAINTRL_RENDER_MAX_FRAMES,
        max_canvas_side=settings.PAINTRL_RENDER_MAX_CANVAS_SIDE,
        blank_floor=settings.PAINTRL_BLANK_FLOOR,
    )


def score_size() -> int:
    return settings.PAINTRL_SCORE_SIZE
