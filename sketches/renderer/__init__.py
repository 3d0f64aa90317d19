"""The sandboxed renderer. `shared_pool()` gives the process's one pool,
started on first use (after a Celery worker has forked) and closed at exit."""
from __future__ import annotations

import atexit
import threading

from .config import RendererConfig
from .pool import RendererUnavailable, RenderPool

__all__ = ["RenderPool", "RendererConfig", "RendererUnavailable", "shared_pool"]

_lock = threading.Lock()
_pool: RenderPool | None = None


def shared_pool(config: RendererConfig | None = None) -> RenderPool:
    global _pool
    with _lock:
        if _pool is None:
            if config is None:
                # Only without a config: sketches.conf imports this package's config.
                from ..conf import renderer_config

                config = renderer_config()
            _pool = RenderPool(config)
            atexit.register(close_shared_pool)
        return _pool


def close_shared_pool() -> None:
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.close()
