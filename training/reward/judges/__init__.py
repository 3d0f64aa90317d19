"""Judge and scorer backends behind one interface (base.JudgeBackend): the
local reward model (the default), an OpenAI-compatible vision endpoint, and
an HPSv3 service, each listed in PAINTRL_JUDGE_BACKENDS (registry).
`judge_backend(judge)` builds the one a Judge row names."""
from __future__ import annotations

from .base import JudgeBackend, JudgeUnavailable, Picture
from .cache import CachedJudge
from .registry import DEFAULT_BACKEND, backend_class

__all__ = ["DEFAULT_BACKEND", "JudgeBackend", "JudgeUnavailable", "Picture", "judge_backend"]


def judge_backend(judge) -> JudgeBackend:
    """The backend for a `training.models.Judge`, whether it judges or scores;
    a cacheable (slow or paid) one answers through the database cache. Raises
    JudgeUnavailable when it cannot answer at all."""
    backend = backend_class(judge.backend).from_judge(judge)
    if backend.cacheable:
        backend = CachedJudge(backend)
    return backend
