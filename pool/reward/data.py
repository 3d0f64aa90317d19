"""What the reward model learns from: each graded render with its mean
ordinal grade (nope 0, okay 1, love 2, averaged over curators), the pairs a
pairwise loss compares, and a split into train / validation / test that keeps
every render of one sketch on the same side, so the model is never tested on
a picture whose code it was trained on.

The split is rating.splits' (a hash of the sketch's code, not a shuffle:
adding grades later never moves a render from one side to the other), the
same the preference export (rating.preference_export) splits by.

Comparisons (rating's Comparison: a curator preferred one of two renders of
one prompt) join the grade-derived pairs: Bradley-Terry takes both. A
comparison belongs to the more held-out split of its two renders (test over
validation over train), so no held-out comparison is trained on and each
holds at least one picture whose code the model never saw. Ties are left
out: Bradley-Terry has no tie outcome, and counting one as half a win each
way only pulls two scores together, while a curator's "can't tell" more
often means both are equally bad or equally fine than equal in taste (their
grades say which). Skips judge nothing and are left out too.
"""
from __future__ import annotations

import hashlib
import json
import math
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from rating.models import Comparison, Grade
from rating.sources import comparisons_count, comparisons_decided, grade_sources
from rating.splits import SPLITS, TEST, TRAIN, VALIDATION, SplitConfig, split_of
from sketches.models import Render

GRADE_NAMES = ("nope", "okay", "love")  # index = ordinal


@dataclass(frozen=True)
class GradedItem:
    """One graded render. `group` decides its split: renders sharing it (the
    renders of one sketch) always land together."""

    key: str  # the render id in the database, or a file stem in benchmarks
    group: str
    # The render's PNG: its name in the default storage, or in benchmarks a
    # local path (load_images says how each is read).
    png: str
    grade: float  # mean ordinal grade, 0 (nope) .. 2 (love)
    n_grades: int = 1
    paint_fraction: float | None = None

    @property
    def grade_name(self) -> str:
        """The nearest grade: what per-grade statistics bucket this render by."""
        return GRADE_NAMES[int(np.clip(np.floor(self.grade + 0.5), 0, 2))]


@dataclass(frozen=True)
class ComparedPair:
    """One curator's judgement that render `winner` beats render `loser`
    (GradedItem keys)."""

    winner: str
    loser: str


@dataclass(frozen=True)
class GradedSet:
    items: tuple[GradedItem, ...]
    sources: tuple[str, ...] = ()
    # How many of the grades came from each source counted (sources lists what
    # counted, which names "import" where nothing was imported).
    grades_by_source: tuple[tuple[str, int], ...] = ()
    split_config: SplitConfig = field(default_factory=SplitConfig)
    comparisons: tuple[ComparedPair, ...] = ()
    # Compared renders nobody graded: their pictures are needed, their grade
    # (NaN) never is. Indexed after `items` (all_items).
    compared_only: tuple[GradedItem, ...] = ()

    @property
    def all_items(self) -> tuple[GradedItem, ...]:
        """Every render whose picture the model sees: graded, then compared only."""
        return self.items + self.compared_only

    def comparison_split(self) -> dict[str, np.ndarray]:
        """Per split, the comparisons as (winner, loser) index pairs into
        all_items, shape (P, 2): each in the more held-out split of its two
        renders (module docstring)."""
        index = {item.key: i for i, item in enumerate(self.all_items)}
        groups = [item.group for item in self.all_items]
        rank = {TRAIN: 0, VALIDATION: 1, TEST: 2}
        parts: dict[str, list[tuple[int, int]]] = {name: [] for name in SPLITS}
        for pair in self.comparisons:
            a, b = index[pair.winner], index[pair.loser]
            split = max(split_of(groups[a], self.split_config),
                        split_of(groups[b], self.split_config), key=rank.get)
            parts[split].append((a, b))
        return {name: np.array(pairs, dtype=np.int64).reshape(-1, 2)
                for name, pairs in parts.items()}

    def split(self) -> dict[str, list[int]]:
        """Indices into `items` per split."""
        parts: dict[str, list[int]] = {name: [] for name in SPLITS}
        for index, item in enumerate(self.items):
            parts[split_of(item.group, self.split_config)].append(index)
        return parts

    def grades(self, indices: Sequence[int] | None = None) -> np.ndarray:
        chosen = self.items if indices is None else [self.items[i] for i in indices]
        return np.array([item.grade for item in chosen], dtype=np.float32)

    def without(self, *, keys: Collection[str], groups: Collection[str]) -> GradedSet:
        """This set less every item whose key is in `keys` or whose group is in
        `groups` (a yardstick's data: reward.disjoint)."""
        def kept(item: GradedItem) -> bool:
            return item.key not in keys and item.group not in groups

        compared_only = tuple(item for item in self.compared_only if kept(item))
        known = {item.key for item in self.items if kept(item)} | {
            item.key for item in compared_only}
        # grades_by_source counted the whole set: not known per item, so not kept.
        return replace(self, items=tuple(item for item in self.items if kept(item)),
                       compared_only=compared_only, grades_by_source=(),
                       comparisons=tuple(c for c in self.comparisons
                                         if c.winner in known and c.loser in known))

    def check_trainable(self) -> dict[str, list[int]]:
        """The split, after making sure each part can rank something: a part
        whose renders all share one grade has no pairs to learn or measure."""
        parts = self.split()
        for name, indices in parts.items():
            if len(set(self.grades(indices).tolist())) < 2:
                raise ValueError(
                    f"the {name} split has {len(indices)} renders and fewer than two distinct "
                    f"grades among {len(self.items)} graded renders: grade more renders "
                    "(of more sketches), or change the split fractions")
        return parts

    def summary(self) -> dict:
        """What RewardModel.training_data records: render ids per split, grade
        counts, and a hash that changes when any render or grade does."""
        parts = self.split()
        counts = {name: dict(Counter(self.items[i].grade_name for i in indices))
                  for name, indices in parts.items()}
        content = json.dumps(sorted((item.key, item.grade, item.n_grades) for item in self.items))
        if self.comparisons:  # without any, the hash stays what it was before comparisons
            content += json.dumps(sorted((c.winner, c.loser) for c in self.comparisons))
        return {
            "sources": list(self.sources),
            "grades_by_source": dict(self.grades_by_source),
            "renders": len(self.items),
            "grades": sum(item.n_grades for item in self.items),
            "split": {"test_fraction": self.split_config.test_fraction,
                      "validation_fraction": self.split_config.validation_fraction,
                      "seed": self.split_config.seed, "by": "sketch code"},
            "render_ids": {name: [self.items[i].key for i in indices]
                           for name, indices in parts.items()},
            "grade_counts": counts,
            "comparisons": {name: len(pairs) for name, pairs in self.comparison_split().items()},
            "sha256": hashlib.sha256(content.encode()).hexdigest(),
        }


def ordered_pairs(grades: Sequence[float] | np.ndarray) -> np.ndarray:
    """Every (better, worse) index pair whose mean grades differ: the
    comparisons a pairwise loss or pairwise accuracy counts. Shape (P, 2)."""
    values = np.asarray(grades, dtype=np.float32)
    better, worse = np.nonzero(values[:, None] > values[None, :])
    return np.stack([better, worse], axis=1)


def mean_ordinals(rows: Iterable[tuple[object, str]]) -> dict[object, tuple[float, int]]:
    """(render key, grade value) rows -> {key: (mean ordinal, number of grades)}."""
    ordinal = {name: index for index, name in enumerate(GRADE_NAMES)}
    totals: dict[object, list[int]] = {}
    for key, value in rows:
        totals.setdefault(key, []).append(ordinal[value])
    return {key: (sum(values) / len(values), len(values)) for key, values in totals.items()}


def graded_set_from_db(*, sources: str = "auto",
                       split_config: SplitConfig | None = None) -> GradedSet:
    """Every rendered (status ok, with a PNG) render that has grades from
    `sources` (a rating.sources choice: "auto", "human" or "simulated"), with
    its mean grade. The sources used are recorded with the model, so a score
    learnt from the simulated curator is always labelled so."""
    chosen = grade_sources(sources)
    rows = (Grade.objects.filter(source__in=chosen, render__status="ok")
            .exclude(render__png="")
            .values_list("render_id", "value", "render__sketch__code_sha256", "render__png",
                         "render__paint_fraction", "source"))
    details: dict[int, tuple[str, str, float | None]] = {}
    values = []
    by_source: Counter = Counter()
    for render_id, value, code_sha, png, paint, source in rows:
        details[render_id] = (code_sha, png, paint)
        values.append((render_id, value))
        by_source[source] += 1
    items = tuple(
        GradedItem(key=str(render_id), group=details[render_id][0],
                   png=details[render_id][1], grade=mean,
                   n_grades=count, paint_fraction=details[render_id][2])
        for render_id, (mean, count) in sorted(mean_ordinals(values).items()))
    graded = GradedSet(items=items, sources=chosen, split_config=split_config or SplitConfig(),
                       grades_by_source=tuple((s, by_source[s]) for s in chosen if by_source[s]))
    if comparisons_count(chosen):
        graded = _with_comparisons(graded)
    return graded


def _with_comparisons(graded: GradedSet) -> GradedSet:
    """`graded` with every left/right comparison of two rendered renders, and
    the compared renders nobody graded."""
    rows = comparisons_decided().values_list("left_id", "right_id", "choice")
    pairs = [(left, right) if choice == Comparison.Choice.LEFT else (right, left)
             for left, right, choice in rows]
    graded_keys = {item.key for item in graded.items}
    wanted = {pk for pair in pairs for pk in pair if str(pk) not in graded_keys}
    extra = {pk: (code, png, paint) for pk, code, png, paint in
             Render.objects.filter(pk__in=wanted, status="ok").exclude(png="")
             .values_list("pk", "sketch__code_sha256", "png", "paint_fraction")}
    compared_only = tuple(
        GradedItem(key=str(pk), group=code, png=png, grade=math.nan, n_grades=0,
                   paint_fraction=paint) for pk, (code, png, paint) in sorted(extra.items()))
    known = graded_keys | {item.key for item in compared_only}
    comparisons = tuple(ComparedPair(str(w), str(loser)) for w, loser in pairs
                        if str(w) in known and str(loser) in known)
    return replace(graded, comparisons=comparisons, compared_only=compared_only)
