"""Taste out in the shape preference trainers load: curators' comparisons and
grades as pairs of (prompt, chosen, rejected), which TRL's RewardTrainer and
DPOTrainer take as they are, beside the imagefolder export (rating.export).

Format "paintrl-preferences/1", a folder (`load_dataset(folder)` loads it
offline; the zip the site serves is that folder, to unpack first):

    README.md                  dataset card; its YAML header names the configs
    data/<split>.parquet       config "default": pairs where one side won
    ties/<split>.parquet       config "ties": comparisons a curator called a tie

TRL's "standard preference" format with an explicit prompt: `prompt` is what
the sketches were asked to paint, `chosen` and `rejected` the two sketches'
code (the completion a policy writes, so DPO teaches the code and a reward
model reads it); the pictures are `chosen_image` and `rejected_image`,
`datasets` Image columns (PNG bytes inside the parquet; None where a render
has no picture: rejected by the gate, never painted). No column is called
`margin` (RewardTrainer would subtract it in its loss) nor `image`/`images`
(DPOTrainer would take the dataset for a vision one and the picture for part
of the prompt).

Where pairs come from:
- a comparison (source "comparison"): the side the curator chose is chosen;
  a tie keeps its sides as shown and goes to the "ties" config, since both
  trainers read every row of theirs as "chosen beats rejected";
- grades (source "grades"): two renders of one prompt that the same curator
  graded differently, the higher grade chosen (`chosen_grade`,
  `rejected_grade`). Equal grades are not a judgement of the pair and make
  no row.
Whose grades and comparisons count is rating.sources' answer, as for the
pool and the reward model: people's grades whenever any exist, else the
simulated curator's; comparisons beside people's grades only. Each row names
its `curator` (the username, as every export and import of grades does).

A pair of two renders of the same code (two seeds of one sketch) is left out:
its chosen and rejected completions are the same text. Splits are by sketch
code (rating.splits, the reward model's split): a pair whose two sketches
fall in different splits is left out too, so no sketch is in two splits.
The card says how many pairs each rule left out.
"""
from __future__ import annotations

import functools
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from django.db.models import QuerySet

from files.stored import read_bytes
from sketches.models import Render

from .models import Comparison, Grade
from .sources import comparisons_count, grade_sources
from .splits import SPLITS, SplitConfig, split_of

FORMAT = "paintrl-preferences/1"
PAIRS, TIES = "default", "ties"
FOLDERS = {PAIRS: "data", TIES: "ties"}
SOURCE_COMPARISON, SOURCE_GRADES = "comparison", "grades"
CHUNK_SIZE = 500
# Rows buffered per parquet row group: two PNGs a row, so this bounds memory.
ROWS_PER_GROUP = 64
# PNGs kept in memory while writing: a render is in many pairs of its prompt.
PNG_CACHE = 512

# Each column: its type ("image": a datasets Image) and what it holds.
COLUMNS = {
    "prompt": ("string", "what both sketches were asked to paint"),
    "chosen": ("string", "the preferred sketch's code"),
    "rejected": ("string", "the other sketch's code"),
    "chosen_image": ("image", "the preferred render (None: no picture)"),
    "rejected_image": ("image", "the other render (None: no picture)"),
    "tie": ("bool", "the curator called it a tie (only in config ties)"),
    "curator": ("string", "who judged: the curator's username"),
    "source": ("string", "comparison, or grades (two different grades)"),
    "chosen_grade": ("string", "love/okay/nope for grade pairs, else \"\""),
    "rejected_grade": ("string", "love/okay/nope for grade pairs, else \"\""),
    "chosen_render_id": ("int64", "the preferred render's id in the app"),
    "rejected_render_id": ("int64", "the other render's id"),
    "chosen_sketch_id": ("int64", "the preferred sketch's id"),
    "rejected_sketch_id": ("int64", "the other sketch's id"),
    "created": ("string", "when judged (ISO 8601; grades: the later one)"),
}


def arrow_schema():
    """The parquet files' schema, carrying the `datasets` features so the
    Image columns load as images. `datasets` is imported here, not with the
    module: the web process imports the export views, and needs the library
    (a second of imports) only when someone exports."""
    import datasets  # noqa: PLC0415 (why: the docstring)

    return datasets.Features({
        name: datasets.Image() if kind == "image" else datasets.Value(kind)
        for name, (kind, _) in COLUMNS.items()}).arrow_schema


@dataclass(frozen=True)
class Side:
    render_id: int
    sketch_id: int
    code: str
    code_sha256: str
    png: str  # the name in the default storage, "" without a picture


@dataclass(frozen=True)
class Pair:
    """One judgement: `chosen` over `rejected` (for a tie, the sides shown)."""

    prompt: str
    chosen: Side
    rejected: Side
    tie: bool
    curator: str
    source: str
    created: str
    chosen_grade: str = ""
    rejected_grade: str = ""


@dataclass
class Counts:
    """What was written per config and split, and what each rule left out."""

    rows: dict[str, dict[str, int]]
    same_code: int = 0
    across_splits: int = 0

    @property
    def total(self) -> int:
        return sum(n for splits in self.rows.values() for n in splits.values())


def _side(render: Render) -> Side:
    sketch = render.sketch
    return Side(render_id=render.pk, sketch_id=sketch.pk, code=sketch.code,
                code_sha256=sketch.code_sha256, png=render.png.name or "")


def _renders(ids: Iterable[int]) -> dict[int, Side]:
    renders = Render.objects.filter(pk__in=set(ids)).select_related("sketch")
    return {render.pk: _side(render) for render in renders.iterator(chunk_size=CHUNK_SIZE)}


def comparison_pairs(comparisons: QuerySet[Comparison]) -> Iterator[Pair]:
    rows = list(comparisons.filter(choice__in=Comparison.JUDGEMENTS)
                .select_related("curator").order_by("created", "pk"))
    sides = _renders([c.left_id for c in rows] + [c.right_id for c in rows])
    for c in rows:
        left, right = sides[c.left_id], sides[c.right_id]
        chosen, rejected = (right, left) if c.choice == Comparison.Choice.RIGHT else (left, right)
        yield Pair(prompt=c.prompt, chosen=chosen, rejected=rejected,
                   tie=c.choice == Comparison.Choice.TIE, curator=c.curator.get_username(),
                   source=SOURCE_COMPARISON, created=c.created.isoformat())


def grade_pairs(grades: QuerySet[Grade]) -> Iterator[Pair]:
    """Per curator and prompt, every two renders graded differently."""
    rows = list(grades.select_related("curator").order_by("curator_id", "render_id")
                .values_list("curator__username", "render_id", "render__sketch__prompt",
                             "value", "updated"))
    sides = _renders(render_id for _, render_id, _, _, _ in rows)
    groups: dict[tuple[str, str], list[tuple[int, str, str]]] = defaultdict(list)
    for curator, render_id, prompt, value, updated in rows:
        groups[curator, prompt].append((render_id, value, updated.isoformat()))
    for (curator, prompt), graded in groups.items():
        for i, (a, a_value, a_time) in enumerate(graded):
            for b, b_value, b_time in graded[i + 1:]:
                if Grade.ORDINAL[a_value] == Grade.ORDINAL[b_value]:
                    continue
                (win, win_value), (lose, lose_value) = sorted(
                    [(a, a_value), (b, b_value)], key=lambda s: -Grade.ORDINAL[s[1]])
                yield Pair(prompt=prompt, chosen=sides[win], rejected=sides[lose], tie=False,
                           curator=curator, source=SOURCE_GRADES, created=max(a_time, b_time),
                           chosen_grade=win_value, rejected_grade=lose_value)


def pairs() -> Iterator[Pair]:
    """Every judgement that counts (module docstring): comparisons, then grades."""
    sources = grade_sources()
    if comparisons_count(sources):
        yield from comparison_pairs(Comparison.objects.all())
    yield from grade_pairs(Grade.objects.filter(source__in=sources))


@functools.lru_cache(maxsize=PNG_CACHE)
def _png(name: str) -> bytes:
    return read_bytes(name)  # through the storage: the file may be in a bucket


def _image(side: Side) -> dict | None:
    if not side.png:
        return None
    return {"bytes": _png(side.png), "path": f"{side.render_id}.png"}


def row(pair: Pair) -> dict:
    return {
        "prompt": pair.prompt, "chosen": pair.chosen.code, "rejected": pair.rejected.code,
        "chosen_image": _image(pair.chosen), "rejected_image": _image(pair.rejected),
        "tie": pair.tie, "curator": pair.curator, "source": pair.source,
        "chosen_grade": pair.chosen_grade, "rejected_grade": pair.rejected_grade,
        "chosen_render_id": pair.chosen.render_id, "rejected_render_id": pair.rejected.render_id,
        "chosen_sketch_id": pair.chosen.sketch_id, "rejected_sketch_id": pair.rejected.sketch_id,
        "created": pair.created,
    }


class _Files:
    """One parquet file per (config, split), opened at its first row, so a
    split with no rows has no file (the loader refuses an empty split)."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.schema = arrow_schema()
        self.writers: dict[tuple[str, str], pq.ParquetWriter] = {}
        self.buffers: dict[tuple[str, str], list[dict]] = defaultdict(list)
        self.counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))

    def add(self, config: str, split: str, values: dict) -> None:
        key = (config, split)
        self.buffers[key].append(values)
        self.counts[config][split] += 1
        if len(self.buffers[key]) >= ROWS_PER_GROUP:
            self._flush(key)

    def _flush(self, key: tuple[str, str]) -> None:
        if key not in self.writers:
            path = self.folder / FOLDERS[key[0]] / f"{key[1]}.parquet"
            path.parent.mkdir(parents=True, exist_ok=True)
            self.writers[key] = pq.ParquetWriter(path, self.schema)
        self.writers[key].write_batch(
            pa.RecordBatch.from_pylist(self.buffers.pop(key), schema=self.schema))

    def close(self) -> dict[str, dict[str, int]]:
        for key in list(self.buffers):
            self._flush(key)
        for writer in self.writers.values():
            writer.close()
        return {config: dict(splits) for config, splits in self.counts.items()}


def write_folder(folder: Path, split_config: SplitConfig | None = None) -> Counts:
    """Write the dataset into `folder` (created; must be empty if it exists).
    Raises ValueError when no judgement makes a pair (nothing to load)."""
    if folder.exists() and any(folder.iterdir()):
        raise FileExistsError(f"{folder} is not empty: choose a new folder for the dataset")
    folder.mkdir(parents=True, exist_ok=True)
    split_config = split_config or SplitConfig()
    files = _Files(folder)
    counts = Counts(rows={})
    try:
        for pair in pairs():
            if pair.chosen.code_sha256 == pair.rejected.code_sha256:
                counts.same_code += 1
                continue
            split = split_of(pair.chosen.code_sha256, split_config)
            if split != split_of(pair.rejected.code_sha256, split_config):
                counts.across_splits += 1
                continue
            files.add(TIES if pair.tie else PAIRS, split, row(pair))
    finally:
        counts.rows = files.close()
        _png.cache_clear()
    if not counts.total:
        raise ValueError("no comparison or pair of different grades to export")
    (folder / "README.md").write_text(dataset_card(counts, split_config), encoding="utf-8")
    return counts


def dataset_card(counts: Counts, split_config: SplitConfig) -> str:
    configs = []
    for config in (PAIRS, TIES):
        splits = [s for s in SPLITS if counts.rows.get(config, {}).get(s)]
        if splits:
            configs.append({"config_name": config, "data_files": [
                {"split": s, "path": f"{FOLDERS[config]}/{s}.parquet"} for s in splits]})
    header = "configs:\n" + "".join(
        f"- config_name: {c['config_name']}\n  data_files:\n" + "".join(
            f"  - split: {f['split']}\n    path: {f['path']}\n" for f in c["data_files"])
        for c in configs)
    columns = "\n".join(f"- `{name}`: {doc}" for name, (_, doc) in COLUMNS.items())
    split = json.dumps({"by": "sketch code", "test_fraction": split_config.test_fraction,
                        "validation_fraction": split_config.validation_fraction,
                        "seed": split_config.seed})
    rows = json.dumps(counts.rows, sort_keys=True)
    return (
        f"---\n{header}---\n# paintrl preferences\n\nCurators' comparisons and grades of "
        f"p5.brush sketches as preference pairs, exported from paintrl ({FORMAT}).\n\n"
        "`datasets.load_dataset(folder)` gives the pairs where one side won (TRL's standard "
        "preference format, explicit prompt: RewardTrainer and DPOTrainer take it as it is); "
        "`load_dataset(folder, \"ties\")` the comparisons called a tie.\n\n"
        f"Rows per config and split: {rows}. Split: {split}; no sketch is in two splits. "
        f"Left out: {counts.across_splits} pairs whose sketches fall in different splits, "
        f"{counts.same_code} pairs of two renders of the same code.\n\n"
        f"Columns:\n\n{columns}\n")
