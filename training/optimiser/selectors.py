"""Reads about a prompt optimisation's candidates and rejected proposals."""
from __future__ import annotations

from django.db.models import QuerySet

from ..models import PromptCandidate, PromptOptimisation


def candidates_of(job: PromptOptimisation) -> QuerySet[PromptCandidate]:
    """The candidates GEPA kept, by index (the seed first)."""
    return PromptCandidate.objects.accepted().filter(optimisation=job).select_related(
        "parent", "system_prompt").order_by("index")


def proposals_rejected_of(job: PromptOptimisation) -> QuerySet[PromptCandidate]:
    """The proposals GEPA rejected on their minibatch, in the order it made them."""
    return PromptCandidate.objects.rejected().filter(optimisation=job).select_related(
        "parent").order_by("iteration", "pk")


def candidate_best(job: PromptOptimisation) -> PromptCandidate | None:
    """The kept candidate with the highest mean score over the prompt set, the
    earliest found among equals: GEPA's own choice of best (GEPAResult.best_idx).
    A rejected proposal's mean is over its minibatch only, so it never competes."""
    return PromptCandidate.objects.accepted().filter(optimisation=job).order_by(
        "-mean_score", "index").first()
