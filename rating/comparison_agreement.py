"""How far curators agree on comparisons: of the pairs two or more curators
judged (left, right or tie; skips judge nothing), how often two curators who
judged the same pair chose the same render, or both a tie. Sides do not
matter: what is compared is the render chosen, not the side it was on."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

from .models import Comparison
from .pairs import PairKey, pair_key

TIE = "tie"


@dataclass(frozen=True)
class ComparisonAgreement:
    pairs: int  # pairs judged by two or more curators
    curator_pairs: int  # two curators on one such pair: what the share counts
    agreeing: int
    # agreeing / curator_pairs; None when no pair was judged twice.
    share: float | None


def comparison_agreement() -> ComparisonAgreement:
    verdicts: dict[PairKey, list[int | str]] = defaultdict(list)
    rows = Comparison.objects.filter(choice__in=Comparison.JUDGEMENTS).values_list(
        "left_id", "right_id", "choice")
    for left, right, choice in rows.iterator():
        winner = {Comparison.Choice.LEFT: left, Comparison.Choice.RIGHT: right}.get(choice, TIE)
        verdicts[pair_key(left, right)].append(winner)
    shared = [v for v in verdicts.values() if len(v) >= 2]
    both = [(a, b) for v in shared for a, b in combinations(v, 2)]
    agreeing = sum(a == b for a, b in both)
    return ComparisonAgreement(pairs=len(shared), curator_pairs=len(both), agreeing=agreeing,
                               share=agreeing / len(both) if both else None)
