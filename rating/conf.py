"""The rating app's settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment)."""
from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from sketches.conf import setting_function


def grade_overlap() -> int:
    overlap = settings.PAINTRL_GRADE_OVERLAP
    if overlap < 1:
        raise ImproperlyConfigured(f"PAINTRL_GRADE_OVERLAP must be at least 1, got {overlap}")
    return overlap


def compare_overlap() -> int:
    overlap = settings.PAINTRL_COMPARE_OVERLAP
    if overlap < 1:
        raise ImproperlyConfigured(f"PAINTRL_COMPARE_OVERLAP must be at least 1, got {overlap}")
    return overlap


def pair_score_label() -> str | None:
    """The Render.taste_model label of the active reward model's scores, or
    None when no model is active (or no provider is set)."""
    provider = setting_function("PAINTRL_PAIR_SCORE_LABEL")
    return provider() if provider is not None else None


def claim_ttl() -> timedelta:
    return timedelta(seconds=settings.PAINTRL_CLAIM_TTL_S)


def grade_prefetch() -> int:
    return max(1, settings.PAINTRL_GRADE_PREFETCH)


def informative_order() -> Callable | None:
    """The "most informative first" order function, or None when none is set."""
    return setting_function("PAINTRL_INFORMATIVE_ORDER")
