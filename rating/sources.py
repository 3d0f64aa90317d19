"""Whose grades count? One answer for the pool, the reward model and a
judge's agreement.

People's grades (graded in the app or imported) whenever any person has
graded anything; only while none has, the simulated curator's
(pool.reward.simulated), so the demo and CI have something to work on. The
two are never mixed, and the condition is global: the first human grade
anywhere stops every simulated grade counting, everywhere at once, even for
renders no person has graded yet. Whatever rests on simulated grades says so
(the pool page, a snapshot's rule, a reward model's training data, a judge's
agreement).

Curators' comparisons of two renders are people's too: they count beside
people's grades, never beside the simulated curator's, and only those that
chose a side (a tie is "can't tell": Bradley-Terry has no tie outcome, and
half a win each way would only pull two scores together)."""
from __future__ import annotations

from django.db.models import QuerySet

from .models import Comparison, Grade

HUMAN_SOURCES: tuple[str, ...] = (Grade.Source.APP.value, Grade.Source.IMPORT.value)
SIMULATED_SOURCE: str = Grade.Source.SIMULATED.value
SIMULATED_SOURCES: tuple[str, ...] = (SIMULATED_SOURCE,)

# What a job may ask for (the reward model's `sources`): AUTO is the rule
# above; HUMAN and SIMULATED force one side whatever exists.
AUTO, HUMAN, SIMULATED = "auto", "human", "simulated"
SOURCE_CHOICES = (AUTO, HUMAN, SIMULATED)


def grades_simulated() -> bool:
    """Whether the simulated curator's grades are the ones that count: true
    only while no person has graded anything."""
    return not Grade.objects.filter(source__in=HUMAN_SOURCES).exists()


def grade_sources(choice: str = AUTO) -> tuple[str, ...]:
    """The Grade.source values that count for `choice` (SOURCE_CHOICES)."""
    if choice not in SOURCE_CHOICES:
        raise ValueError(f"unknown grade source {choice!r}: expected one of "
                         f"{', '.join(SOURCE_CHOICES)}")
    if choice == AUTO:
        choice = SIMULATED if grades_simulated() else HUMAN
    return HUMAN_SOURCES if choice == HUMAN else SIMULATED_SOURCES


def comparisons_count(sources: tuple[str, ...]) -> bool:
    """Whether curators' comparisons count beside grades of `sources`: only
    beside people's."""
    return bool(set(sources) & set(HUMAN_SOURCES))


def comparisons_decided() -> QuerySet[Comparison]:
    """The comparisons that count: those that chose left or right, oldest first."""
    return Comparison.objects.filter(
        choice__in=[Comparison.Choice.LEFT, Comparison.Choice.RIGHT]).order_by("pk")
