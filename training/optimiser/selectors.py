"""Reads about a prompt optimisation's candidates and rejected proposals."""
from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery

from ..models import PromptCandidate, PromptOptimisation

# The best candidate first: the highest mean score, the earliest found among
# equals (GEPA's own choice of best, GEPAResult.best_idx).
BEST_FIRST = ("-mean_score", "index")


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
        *BEST_FIRST).first()


def optimisations_with_best(queryset: QuerySet[PromptOptimisation]) -> QuerySet[PromptOptimisation]:
    """`queryset` with each job's candidate_best as `best_mean_score` and
    `best_index` (None without one), in the list's one query."""
    best = PromptCandidate.objects.accepted().filter(
        optimisation=OuterRef("pk")).order_by(*BEST_FIRST)
    return queryset.annotate(best_mean_score=Subquery(best.values("mean_score")[:1]),
                             best_index=Subquery(best.values("index")[:1]))
