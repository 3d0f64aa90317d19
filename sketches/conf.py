"""The sketches app's settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment)."""
from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from .renderer.config import RendererConfig


def renderer_config() -> RendererConfig:
    return RendererConfig(
        chromium_path=settings.PAINTRL_CHROMIUM_PATH,
        sandbox_user=settings.PAINTRL_CHROMIUM_USER,
        allow_unsandboxed=settings.PAINTRL_CHROMIUM_ALLOW_UNSANDBOXED,
        browsers=settings.PAINTRL_RENDER_BROWSERS,
        deadline_s=settings.PAINTRL_RENDER_DEADLINE_S,
        max_frames=settings.PAINTRL_RENDER_MAX_FRAMES,
        max_canvas_side=settings.PAINTRL_RENDER_MAX_CANVAS_SIDE,
        blank_floor=settings.PAINTRL_BLANK_FLOOR,
        painted_words=settings.PAINTRL_PAINTED_WORDS,
    )


def fleet_wait_s() -> float:
    """PAINTRL_FLEET_WAIT_S: how long a fleet batch waits with no render
    worker answering before the renders left come back `unavailable`. Long
    enough for a render worker to be restarted and take the batch (one
    answered pings 1.5 s after it was started here, 2026-12-02, and its
    browser starts with its first render, about 1 s) or for a busy one to
    finish what it holds (a render: at most the 30 s deadline); short enough
    that a training step with no render worker left ends in minutes, not
    hours."""
    value = settings.PAINTRL_FLEET_WAIT_S
    if not value > 0:
        raise ImproperlyConfigured(f"PAINTRL_FLEET_WAIT_S must be positive, got {value}")
    return float(value)


def score_size() -> int:
    return settings.PAINTRL_SCORE_SIZE


def setting_function(name: str, default: str = "") -> Callable | None:
    """The function a dotted-path setting names (how a lower app reaches a
    higher one's code), or None when the setting is empty; a path that does
    not import is an ImproperlyConfigured naming the setting."""
    path = getattr(settings, name, default)
    return _imported(name, path) if path else None


def _imported(name: str, path: str) -> Callable:
    """What `path` (from setting `name`) names; an ImproperlyConfigured naming
    the setting when it does not import."""
    try:
        return import_string(path)
    except ImportError as exc:
        raise ImproperlyConfigured(
            f"{name}={path!r} does not name an importable function: {exc}") from exc


def png_in_use() -> Callable[[str], bool] | None:
    """The check a re-render asks before deleting an old PNG, or None when
    none is set (old PNGs are then kept)."""
    return setting_function("PAINTRL_PNG_IN_USE")


def render_panels() -> list[Callable]:
    """The render page's extra panels (settings.PAINTRL_RENDER_PANELS)."""
    return [_imported("PAINTRL_RENDER_PANELS", path) for path in settings.PAINTRL_RENDER_PANELS]
