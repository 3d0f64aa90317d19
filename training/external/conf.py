"""The reward service's settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment)."""
from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def _at_least_one(name: str) -> int:
    value = getattr(settings, name)
    if value < 1:
        raise ImproperlyConfigured(f"{name} must be at least 1, got {value}")
    return value


def batch_max() -> int:
    """PAINTRL_REWARD_BATCH_MAX: the most items one request may hold. A
    batch is answered in one response, after its slowest render: 256 is a
    GRPO step of 32 prompts x 8 completions, what the engines send per call
    at most in their default configurations; more belongs in several calls."""
    return _at_least_one("PAINTRL_REWARD_BATCH_MAX")


def concurrency() -> int:
    """PAINTRL_REWARD_CONCURRENCY: batches one external run may have scoring
    at once; one more is answered 429 with Retry-After. Each batch holds a
    web process for as long as its renders take, so this bounds what one
    client can take of the web processes and the render fleet."""
    return _at_least_one("PAINTRL_REWARD_CONCURRENCY")


def retry_after_s() -> int:
    """PAINTRL_REWARD_RETRY_AFTER_S: what a 429 or a 409 for a batch still
    scoring tells the client to wait. A light render takes about a second,
    so a few seconds lets a batch ahead finish without a client spinning."""
    return _at_least_one("PAINTRL_REWARD_RETRY_AFTER_S")


def backlog_max() -> int:
    """PAINTRL_REWARD_BACKLOG_MAX: renders waited on (fleet batches, renders
    asked for on a page) that may sit in the render queue before a new batch
    is answered 503 with Retry-After. 1024 is four full batches (one run's
    whole concurrency at the largest batch): at the local fleet's pace (two
    browsers, 2.1 painter renders a second, benchmarks/fleet_bench.py) about
    8 minutes of work, near the adapters' 600 s wait for an answer
    (client.REQUEST_TIMEOUT_S). A larger fleet clears it sooner and may take
    a larger bound."""
    return _at_least_one("PAINTRL_REWARD_BACKLOG_MAX")
