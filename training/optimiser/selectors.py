"""Reads about a prompt optimisation's candidates."""
from __future__ import annotations

from django.db.models import QuerySet

from ..models import PromptCandidate, PromptOptimisation


def candidates_of(job: PromptOptimisation) -> QuerySet[PromptCandidate]:
    return PromptCandidate.objects.filter(optimisation=job).select_related(
        "parent", "system_prompt").order_by("index")


def candidate_best(job: PromptOptimisation) -> PromptCandidate | None:
    """The candidate with the highest mean score over the prompt set, the
    earliest found among equals: GEPA's own choice of best (GEPAResult.best_idx)."""
    return PromptCandidate.objects.filter(optimisation=job).order_by(
        "-mean_score", "index").first()
