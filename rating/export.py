"""Grades out of the app: one JSON line per graded render, or a Hugging Face
`imagefolder` dataset (PNGs plus metadata.jsonl) for training elsewhere.

JSONL format "paintrl-grades/1": UTF-8, one object per line, renders with at
least one grade, in render id order:

    {"format": "paintrl-grades/1",
     "render_id": 12, "sketch_id": 5, "seed": 0, "status": "ok",
     "prompt": "a peach-pink hibiscus in watercolour",
     "code": "function setup() { ... }",
     "origin": "imported",              # Sketch.Origin: imported/rollout/edited/procedural
     "parent_sketch_id": null,          # the sketch an edit came from
     "width": 400, "height": 400,
     "png": "renders/005/5-0-12.png",   # path under MEDIA_ROOT, null without an image
     "png_url": "https://host/sketches/renders/12/png/",  # login required; null if unknown
     "grades": {"alice": "love", "bob": "okay"},          # curator name: love/okay/nope
     "grade_details": [                 # the same grades with who, when and how
        {"curator": "alice", "value": "love", "updated": "2026-11-30T07:40:00+00:00",
         "source": "app", "shown_ms": 1830}, ...]}

`prompt`, `code`, `seed` and `grades` are the import path's JSONL-of-sketches
fields, so an export re-imports as it is: `manage.py import_renders
grades.jsonl` (sketches.importing) re-creates each sketch, queues its render
at the seed, and stores the grades through rating.services.grades_import
(curators by name; the grades get source "import" and a new `updated`).
`updated` is ISO 8601 with offset; `shown_ms` is null for imported grades.

Dataset layout (a zip or a folder; `datasets.load_dataset("imagefolder",
data_dir=folder)` or `data_files=zip` loads it offline): images/<render_id>.png
plus metadata.jsonl with `file_name` and the columns in DATASET_COLUMNS. Its
`grades` is a list of {curator, value, updated, source}: a column keyed by
curator names would give every curator a column of its own. Renders without a
PNG are left out of the dataset (not out of the JSONL). Every dataset column
is non-null: the loader infers types from the first rows, and a column that
starts with nulls would be typed as null. Where curators compared pairs, the
dataset also holds comparisons.jsonl (rating.comparison_transfer.dataset_lines:
one row per left/right/tie judgement, with each side's image file when that
render is in images/); the imagefolder loader leaves it alone, and
`load_dataset("json", data_files=".../comparisons.jsonl")` reads it.
"""
from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

from django.db.models import Prefetch, QuerySet

from sketches.models import Render

from . import comparison_transfer
from .models import Grade

FORMAT = "paintrl-grades/1"
# Renders fetched per query while streaming; each brings its grades along.
CHUNK_SIZE = 500

PngUrl = Callable[[Render], str]

DATASET_COLUMNS = {
    "render_id": "the render's id in the app",
    "sketch_id": "the sketch's id in the app",
    "seed": "the render seed (Math.random, random() and noise() are seeded with it)",
    "prompt": "what the sketch was asked to paint",
    "code": "the p5.brush sketch",
    "origin": "imported, rollout, edited or procedural",
    "grades": "list of {curator, value, updated, source}; value is love, okay or nope",
    "n_love": "how many curators graded love",
    "n_okay": "how many curators graded okay",
    "n_nope": "how many curators graded nope",
    "mean_grade": "mean of the grades on the ordinal scale nope 0, okay 1, love 2",
}


def graded_renders() -> QuerySet[Render]:
    grades = Grade.objects.select_related("curator").order_by("curator__username")
    return (Render.objects.filter(pk__in=Grade.objects.values("render_id"))
            .select_related("sketch")
            .prefetch_related(Prefetch("grades", queryset=grades))
            .order_by("pk"))


def grade_entry(grade: Grade) -> dict:
    return {"curator": grade.curator.get_username(), "value": grade.value,
            "updated": grade.updated.isoformat(), "source": grade.source,
            "shown_ms": grade.shown_ms}


def render_record(render: Render, png_url: PngUrl | None = None) -> dict:
    """The JSONL object for one render (its grades must be prefetched)."""
    sketch = render.sketch
    grades = list(render.grades.all())
    return {
        "format": FORMAT,
        "render_id": render.pk, "sketch_id": sketch.pk, "seed": render.seed,
        "status": render.status, "prompt": sketch.prompt, "code": sketch.code,
        "origin": sketch.origin, "parent_sketch_id": sketch.parent_id,
        "width": render.width, "height": render.height,
        "png": render.png.name or None,
        "png_url": png_url(render) if png_url and render.png else None,
        "grades": {g.curator.get_username(): g.value for g in grades},
        "grade_details": [grade_entry(g) for g in grades],
    }


def records(png_url: PngUrl | None = None) -> Iterator[dict]:
    for render in graded_renders().iterator(chunk_size=CHUNK_SIZE):
        yield render_record(render, png_url)


def jsonl_lines(png_url: PngUrl | None = None) -> Iterator[str]:
    for record in records(png_url):
        yield json.dumps(record, ensure_ascii=False) + "\n"


def dataset_row(record: dict, file_name: str) -> dict:
    details = record["grade_details"]
    values = [g["value"] for g in details]
    return {
        "file_name": file_name,
        **{key: record[key] for key in ("render_id", "sketch_id", "seed", "prompt", "code",
                                        "origin")},
        "grades": [{k: g[k] for k in ("curator", "value", "updated", "source")}
                   for g in details],
        "n_love": values.count(Grade.Value.LOVE),
        "n_okay": values.count(Grade.Value.OKAY),
        "n_nope": values.count(Grade.Value.NOPE),
        "mean_grade": sum(Grade.ORDINAL[v] for v in values) / len(values),
    }


def dataset_card(rows: int, comparisons: int = 0) -> str:
    columns = "\n".join(f"- `{name}`: {doc}" for name, doc in DATASET_COLUMNS.items())
    compared = (f"\n`comparisons.jsonl` holds {comparisons} comparisons of two renders of one "
                "prompt (`left_render_id`, `right_render_id`, their `*_file_name` in images/ or "
                "\"\" when not graded, `choice` left/right/tie of the sides shown, `curator`, "
                "`created`, `prompt`): `datasets.load_dataset(\"json\", "
                "data_files=\".../comparisons.jsonl\")`.\n") if comparisons else ""
    return (f"# paintrl grades\n\n{rows} graded renders of p5.brush sketches, exported from "
            f"paintrl ({FORMAT}).\n\nLoad with `datasets.load_dataset(\"imagefolder\", "
            f"data_dir=...)`.\n\nColumns besides `image`:\n\n{columns}\n{compared}")


def dataset_files() -> Iterator[tuple[str, bytes]]:
    """(path, content) for every file of the dataset: the images as they are
    read, then metadata.jsonl and README.md."""
    rows: list[str] = []
    pictured: set[int] = set()
    for render in graded_renders().iterator(chunk_size=CHUNK_SIZE):
        if not render.png:
            continue
        file_name = f"images/{render.pk}.png"
        with render.png.open("rb") as f:
            yield file_name, f.read()
        row = dataset_row(render_record(render), file_name)
        rows.append(json.dumps(row, ensure_ascii=False) + "\n")
        pictured.add(render.pk)
    yield "metadata.jsonl", "".join(rows).encode()
    comparisons = comparison_transfer.dataset_lines(pictured)
    if comparisons:
        yield "comparisons.jsonl", "".join(comparisons).encode()
    yield "README.md", dataset_card(len(rows), len(comparisons)).encode()


def dataset_write_zip(fileobj: IO[bytes]) -> int:
    """Write the dataset as a zip into `fileobj`; returns the number of rows."""
    images = 0
    with zipfile.ZipFile(fileobj, "w") as archive:
        for name, content in dataset_files():
            # PNGs are compressed already; deflating them again only costs time.
            method = zipfile.ZIP_STORED if name.endswith(".png") else zipfile.ZIP_DEFLATED
            archive.writestr(name, content, compress_type=method)
            images += name.endswith(".png")
    return images


def dataset_write_folder(folder: Path) -> int:
    """Write the dataset into `folder` (created; must be empty if it exists)."""
    if folder.exists() and any(folder.iterdir()):
        raise FileExistsError(f"{folder} is not empty: choose a new folder for the dataset")
    (folder / "images").mkdir(parents=True, exist_ok=True)
    images = 0
    for name, content in dataset_files():
        (folder / name).write_bytes(content)
        images += name.endswith(".png")
    return images
