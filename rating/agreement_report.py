"""The agreement page's numbers: reads every grade once and hands the
statistics in rating.agreement plain ordinal values."""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from statistics import fmean

from sketches.models import Render

from . import agreement
from .models import Grade

# Ordinal order for tables and statistics: nope < okay < love.
CATEGORIES = sorted(Grade.ORDINAL, key=Grade.ORDINAL.get)
LABELS = [Grade.Value(value).label for value in CATEGORIES]
DISPUTED_LIMIT = 30


@dataclass(frozen=True)
class PairAgreement:
    curator_a: str
    curator_b: str
    shared: int                  # renders both graded
    exact: float | None          # fraction graded the same
    alpha: float | None          # Krippendorff, ordinal, over the shared renders
    kappa: float | None          # Cohen, quadratic weights
    table: list[list[int]]       # rows: curator_a's grade, columns: curator_b's (CATEGORIES)

    def rows(self) -> list[tuple[str, list[int]]]:
        return list(zip(LABELS, self.table, strict=True))


@dataclass(frozen=True)
class DisputedRender:
    render_id: int
    prompt: str
    grades: list[tuple[str, str]]  # (curator, value)
    disagreement: float


@dataclass(frozen=True)
class AgreementReport:
    curators: list[str]
    grades: int
    multiply_graded: int         # renders with two or more grades: what alpha can use
    alpha: float | None          # Krippendorff, ordinal, all curators
    # Mean of the defined pairwise kappas weighted by shared renders. Light's
    # kappa is the unweighted mean, where a pair sharing two renders would
    # count as much as one sharing five hundred.
    mean_kappa: float | None
    pairs: list[PairAgreement]
    disputed: list[DisputedRender]


def _pair(a: str, b: str, by_render: dict[int, dict[str, int]]) -> PairAgreement:
    both = [(g[a], g[b]) for g in by_render.values() if a in g and b in g]
    ordinal_categories = [Grade.ORDINAL[c] for c in CATEGORIES]
    return PairAgreement(
        curator_a=a, curator_b=b, shared=len(both),
        exact=sum(x == y for x, y in both) / len(both) if both else None,
        alpha=agreement.krippendorff_alpha(both, level="ordinal"),
        kappa=agreement.weighted_kappa(both, ordinal_categories),
        table=agreement.confusion_table(both, ordinal_categories),
    )


def agreement_report(disputed_limit: int = DISPUTED_LIMIT) -> AgreementReport:
    by_render: dict[int, dict[str, int]] = defaultdict(dict)
    rows = Grade.objects.values_list("render_id", "curator__username", "value")
    for render_id, curator, value in rows.iterator():
        by_render[render_id][curator] = Grade.ORDINAL[value]
    curators = sorted({c for grades in by_render.values() for c in grades})

    pairs = [_pair(a, b, by_render) for a, b in combinations(curators, 2)]
    pairs = [p for p in pairs if p.shared]
    weighted = [(p.kappa, p.shared) for p in pairs if p.kappa is not None]

    ranked = sorted(
        ((agreement.disagreement(list(g.values())), len(g), render_id)
         for render_id, g in by_render.items() if len(g) >= 2),
        reverse=True)
    top = [(d, render_id) for d, _n, render_id in ranked[:disputed_limit] if d > 0]
    prompts = dict(Render.objects.filter(pk__in=[r for _d, r in top])
                   .values_list("pk", "sketch__prompt"))
    value_of = {ordinal: value for value, ordinal in Grade.ORDINAL.items()}
    disputed = [DisputedRender(render_id=r, prompt=prompts.get(r, ""), disagreement=d,
                               grades=[(c, value_of[v]) for c, v in sorted(by_render[r].items())])
                for d, r in top]

    return AgreementReport(
        curators=curators,
        grades=sum(len(g) for g in by_render.values()),
        multiply_graded=sum(1 for g in by_render.values() if len(g) >= 2),
        alpha=agreement.krippendorff_alpha(by_render[r].values() for r in by_render),
        mean_kappa=(fmean([k for k, _ in weighted], weights=[n for _, n in weighted])
                    if weighted else None),
        pairs=pairs,
        disputed=disputed,
    )
