"""What a batch of renders says about the policy that wrote it: how many the
browser could judge, how many the gate passed, how many called a brush
method that does not exist (the hallucinated-API count). A run's step
rates and a prompt candidate's (training.optimiser) are counted here."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sketches import gate
from sketches.rendering import OK, UNAVAILABLE, RenderOutcome


@dataclass(frozen=True)
class OutcomeCounts:
    """How many renders the browser could judge (not unavailable), how many of
    those the gate passed, and how many called a brush method that does not
    exist (the hallucinated-API count): a step's rates, and a prompt
    candidate's (training.optimiser)."""

    judged: int
    gate_passed: int
    unknown_method: int

    def share(self, name: str) -> float | None:
        """getattr(self, name) over `judged`; None when nothing was judged."""
        return getattr(self, name) / self.judged if self.judged else None


def outcome_counts(outcomes: Sequence[RenderOutcome]) -> OutcomeCounts:
    judged = [o for o in outcomes if o.status != UNAVAILABLE]
    return OutcomeCounts(judged=len(judged), gate_passed=sum(o.status == OK for o in judged),
                         unknown_method=sum(map(unknown_method_called, judged)))


def unknown_method_called(outcome: RenderOutcome) -> bool:
    return bool(outcome.unknown_calls) or gate.UNKNOWN_BRUSH_METHOD in outcome.violations
