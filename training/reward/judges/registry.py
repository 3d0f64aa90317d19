"""Which class answers for a Judge row. PAINTRL_JUDGE_BACKENDS (settings)
maps each row's `backend` key to a JudgeBackend subclass by dotted path,
loaded as Django loads its cache and mail backends. Judge.backend's choices
are `backend_choices`, so the admin's select lists what is configured, and
a new backend is one class and one setting (no migration)."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

from .base import JudgeBackend, JudgeUnavailable

SETTING = "PAINTRL_JUDGE_BACKENDS"
# A new Judge row's backend, and the one an HPSv3 judge with no service falls
# back to: the local reward model, which needs nothing configured.
DEFAULT_BACKEND = "local"


def backend_class(backend: str) -> type[JudgeBackend]:
    """The class configured for `backend`. A key the setting does not list
    (a row saved under a backend since removed) is JudgeUnavailable, like any
    judge that cannot answer; a path that does not import, or names no
    JudgeBackend, is ImproperlyConfigured naming the key and the path."""
    paths = getattr(settings, SETTING)
    if backend not in paths:
        raise JudgeUnavailable(f"judge backend {backend!r} is not configured: {SETTING} has "
                               f"{', '.join(map(repr, paths)) or 'none'}")
    path = paths[backend]
    try:
        found = import_string(path)
    except ImportError as exc:
        raise ImproperlyConfigured(
            f"{SETTING}[{backend!r}] = {path!r} does not import: {exc}") from exc
    if not (isinstance(found, type) and issubclass(found, JudgeBackend)):
        raise ImproperlyConfigured(
            f"{SETTING}[{backend!r}] = {path!r} is not a judge backend (a subclass of "
            "training.reward.judges.base.JudgeBackend)")
    return found


def backend_choices() -> list[tuple[str, str]]:
    """(key, label) of each configured backend, in the setting's order: the
    choices of Judge.backend."""
    return [(key, backend_class(key).label or key) for key in getattr(settings, SETTING)]
