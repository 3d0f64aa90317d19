"""How far do curators agree? Krippendorff's alpha and weighted Cohen's kappa,
written from their definitions, for the agreement page.

Pure Python and no Django, so the numbers can be checked against published
worked examples. Grades enter as ordinal positions (Grade.ORDINAL: nope 0,
okay 1, love 2); any sortable values work.

- Krippendorff's alpha: K. Krippendorff, "Computing Krippendorff's
  Alpha-Reliability" (2011). Any number of coders, missing values allowed,
  through the coincidence matrix. alpha = 1 - D_o / D_e.
- Weighted kappa: J. Cohen, "Weighted kappa" (1968), for one pair of coders;
  quadratic weights by default, which make it the chance-corrected mean
  squared distance and so comparable with ordinal/interval alpha.

Both are undefined (None here, never a made-up 0 or 1) when the data hold no
variation to agree about, e.g. every grade is "okay".
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Hashable, Iterable, Sequence
from itertools import combinations
from typing import Literal

Level = Literal["nominal", "ordinal", "interval"]
Metric = Callable[[Hashable, Hashable], float]
Coincidences = dict[tuple[Hashable, Hashable], float]


def coincidence_matrix(units: Iterable[Iterable[Hashable | None]]) -> Coincidences:
    """o[c, k]: how often values c and k are paired within a unit, each unit
    weighted 1 / (m_u - 1) so every pairable value counts once in total.

    `units` holds, per unit (render), the values its coders gave; None marks
    a coder who did not code it. Units with fewer than two values are not
    pairable and drop out, as the definition says."""
    o: Coincidences = defaultdict(float)
    for unit in units:
        counts = Counter(v for v in unit if v is not None)
        m = sum(counts.values())
        if m < 2:
            continue
        for c, n_c in counts.items():
            for k, n_k in counts.items():
                pairs = n_c * (n_c - 1) if c == k else n_c * n_k
                if pairs:
                    o[(c, k)] += pairs / (m - 1)
    return dict(o)


def _marginals(o: Coincidences) -> dict[Hashable, float]:
    n: dict[Hashable, float] = defaultdict(float)
    for (c, _k), count in o.items():
        n[c] += count
    return dict(n)


def _metric(level: Level, n: dict[Hashable, float]) -> Metric:
    """delta^2(c, k) for the level of measurement. The ordinal one depends on
    the marginals: the distance between two ranks is how many pairable values
    lie between them (Krippendorff 2011, section C)."""
    if level == "nominal":
        return lambda c, k: 0.0 if c == k else 1.0
    if level == "interval":
        return lambda c, k: float(c - k) ** 2  # type: ignore[operator]
    if level == "ordinal":
        ranks = sorted(n)
        position = {value: i for i, value in enumerate(ranks)}

        def ordinal(c: Hashable, k: Hashable) -> float:
            lo, hi = sorted((position[c], position[k]))
            between = sum(n[ranks[g]] for g in range(lo, hi + 1))
            return (between - (n[c] + n[k]) / 2) ** 2

        return ordinal
    raise ValueError(f"unknown level {level!r}: expected nominal, ordinal or interval")


def krippendorff_alpha(units: Iterable[Iterable[Hashable | None]],
                       level: Level = "ordinal") -> float | None:
    """Krippendorff's alpha over `units` (see coincidence_matrix for the
    shape). None when fewer than two pairable values exist or all pairable
    values are equal (expected disagreement 0: alpha is 0/0)."""
    o = coincidence_matrix(units)
    n_c = _marginals(o)
    n = sum(n_c.values())
    if n < 2:
        return None
    delta2 = _metric(level, n_c)
    observed = sum(count * delta2(c, k) for (c, k), count in o.items())
    expected = sum(n_c[c] * n_c[k] * delta2(c, k) for c in n_c for k in n_c)
    if expected == 0:
        return None
    return 1.0 - (n - 1) * observed / expected


def confusion_table(pairs: Iterable[tuple[Hashable, Hashable]],
                    categories: Sequence[Hashable]) -> list[list[int]]:
    """table[i][j]: units the first coder put in categories[i] and the second
    in categories[j]. A value outside `categories` is an error, not a drop."""
    index = {c: i for i, c in enumerate(categories)}
    table = [[0] * len(categories) for _ in categories]
    for a, b in pairs:
        try:
            table[index[a]][index[b]] += 1
        except KeyError as exc:
            raise ValueError(f"value {exc.args[0]!r} is not one of the categories "
                             f"{list(categories)!r}") from None
    return table


def weighted_kappa(pairs: Iterable[tuple[Hashable, Hashable]], categories: Sequence[Hashable],
                   weights: Literal["quadratic", "linear"] = "quadratic") -> float | None:
    """Cohen's weighted kappa for two coders: 1 - sum(w * observed) / sum(w *
    expected), expected from the product of the two coders' marginals and
    w the (squared, for quadratic) distance between category positions.
    None when there are no pairs or no disagreement is expected by chance."""
    if weights not in ("quadratic", "linear"):
        raise ValueError(f"unknown weights {weights!r}: expected quadratic or linear")
    table = confusion_table(pairs, categories)
    total = sum(map(sum, table))
    k = len(categories)
    if total == 0 or k < 2:
        return None
    power = 2 if weights == "quadratic" else 1
    w = [[(abs(i - j) / (k - 1)) ** power for j in range(k)] for i in range(k)]
    rows = [sum(row) for row in table]
    cols = [sum(table[i][j] for i in range(k)) for j in range(k)]
    observed = sum(w[i][j] * table[i][j] for i in range(k) for j in range(k)) / total
    expected = sum(w[i][j] * rows[i] * cols[j] for i in range(k) for j in range(k)) / total**2
    if expected == 0:
        return None
    return 1.0 - observed / expected


def disagreement(values: Sequence[float]) -> float:
    """How much one unit's grades disagree: the mean squared distance over all
    pairs of its grades (love vs nope counts four times love vs okay). 0 for
    fewer than two grades."""
    pairs = list(combinations(values, 2))
    if not pairs:
        return 0.0
    return sum((a - b) ** 2 for a, b in pairs) / len(pairs)
