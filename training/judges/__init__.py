"""Judge backends behind one interface (base.JudgeBackend): the local reward
model (the default), an OpenAI-compatible vision endpoint, and an HPSv3
service. `judge_backend(judge)` builds the one a Judge row names."""
from __future__ import annotations

from .base import JudgeBackend, JudgeUnavailable, Picture
from .cache import CachedJudge

__all__ = ["JudgeBackend", "JudgeUnavailable", "Picture", "judge_backend"]


def judge_backend(judge) -> JudgeBackend:
    """The backend for a `training.models.Judge`; slow backends answer through
    the database cache. Raises JudgeUnavailable when it cannot answer at all."""
    from ..models import Judge

    if judge.backend == Judge.Backend.LOCAL:
        from .local import LocalRewardModelJudge

        return LocalRewardModelJudge()
    if judge.backend == Judge.Backend.OPENAI:
        from .openai_compat import OpenAICompatibleJudge

        return CachedJudge(OpenAICompatibleJudge.from_judge(judge))
    if judge.backend == Judge.Backend.HPSV3:
        from .hpsv3 import hpsv3_or_fallback

        return hpsv3_or_fallback(judge)
    raise JudgeUnavailable(f"unknown judge backend {judge.backend!r}")
