"""Comparisons out of the app and back in, as JSON lines.

Format "paintrl-comparisons/1": UTF-8, one object per comparison (skips
included: they say a curator passed a pair over), oldest first:

    {"format": "paintrl-comparisons/1", "comparison_id": 7,
     "curator": "alice", "created": "2026-12-02T09:15:00+00:00",
     "choice": "left",                  # left / right / tie / skip, of the sides shown
     "shown_ms": 2140, "source": "app", "prompt": "a peach-pink hibiscus in watercolour",
     "left":  {"render_id": 12, "sketch_id": 5, "seed": 0, "code_sha256": "9f2c..."},
     "right": {"render_id": 14, "sketch_id": 6, "seed": 0, "code_sha256": "41ab..."}}

Import finds each side's render by its code (SHA-256) and seed, so the file
applies to any database holding those renders (imported by `import_renders`
from a grade export, say): the render with that id when it matches, else the
oldest that does. The whole file is checked before anything is stored, each
bad line reported by number with its reason, and a file with any bad line
stores nothing: nothing is half imported, nothing skipped unseen. A good file
is stored in one transaction, curators by name (created when new), with the
source "import" and the time the comparison was made. A comparison the
database already holds (same curator, pair, sides and choice) is left as it
is, so importing a file twice adds nothing.
"""
from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from django.db import transaction

from sketches.models import Render

from .models import Comparison
from .selectors import renders_gradable
from .services import comparison_submit, curator_get_or_create

FORMAT = "paintrl-comparisons/1"
CHUNK_SIZE = 500
# Errors listed in a failed import's message; the exception holds them all.
ERRORS_SHOWN = 10


def side_record(render: Render) -> dict:
    return {"render_id": render.pk, "sketch_id": render.sketch_id, "seed": render.seed,
            "code_sha256": render.sketch.code_sha256}


def comparison_record(comparison: Comparison) -> dict:
    return {"format": FORMAT, "comparison_id": comparison.pk,
            "curator": comparison.curator.get_username(),
            "created": comparison.created.isoformat(), "choice": comparison.choice,
            "shown_ms": comparison.shown_ms, "source": comparison.source,
            "prompt": comparison.prompt,
            "left": side_record(comparison.left), "right": side_record(comparison.right)}


def comparisons_all():
    return (Comparison.objects.select_related("curator", "left__sketch", "right__sketch")
            .order_by("created", "pk"))


def jsonl_lines() -> Iterator[str]:
    for comparison in comparisons_all().iterator(chunk_size=CHUNK_SIZE):
        yield json.dumps(comparison_record(comparison), ensure_ascii=False) + "\n"


def dataset_lines(pictured: set[int]) -> list[str]:
    """comparisons.jsonl of the Hugging Face dataset (rating.export): one row
    per judgement (skips left out), each side's image file when the render is
    among the dataset's images (graded ones), else "" (the loader types
    columns from the first rows, and a null would type one as null)."""
    def file_name(render_id: int) -> str:
        return f"images/{render_id}.png" if render_id in pictured else ""

    rows = []
    for c in comparisons_all().filter(choice__in=Comparison.JUDGEMENTS).iterator(
            chunk_size=CHUNK_SIZE):
        rows.append(json.dumps({
            "left_render_id": c.left_id, "right_render_id": c.right_id,
            "left_file_name": file_name(c.left_id), "right_file_name": file_name(c.right_id),
            "choice": c.choice, "curator": c.curator.get_username(),
            "created": c.created.isoformat(), "prompt": c.prompt}, ensure_ascii=False) + "\n")
    return rows


@dataclass(frozen=True)
class LineError:
    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


class ComparisonImportError(ValueError):
    """A file with bad lines: `errors` names every one; nothing was stored."""

    def __init__(self, errors: list[LineError]):
        self.errors = errors
        shown = "; ".join(map(str, errors[:ERRORS_SHOWN]))
        more = f"; and {len(errors) - ERRORS_SHOWN} more" if len(errors) > ERRORS_SHOWN else ""
        super().__init__(f"{len(errors)} bad line{'s' if len(errors) != 1 else ''}, nothing "
                         f"imported: {shown}{more}")


@dataclass(frozen=True)
class ImportResult:
    imported: int  # comparisons stored (new, or changed)
    unchanged: int  # already held as they are


@dataclass(frozen=True)
class _Checked:
    curator: str
    left: Render
    right: Render
    choice: str
    shown_ms: int | None
    created: datetime


def comparisons_import(lines: Iterable[str]) -> ImportResult:
    """Check every line, then store them all in one transaction (module
    docstring). Raises ComparisonImportError naming each bad line."""
    checked, errors = [], []
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            checked.append(_check(text))
        except ValueError as exc:
            errors.append(LineError(number, str(exc)))
    if errors:
        raise ComparisonImportError(errors)
    imported = unchanged = 0
    with transaction.atomic():
        for c in checked:
            curator = curator_get_or_create(username=c.curator)
            if Comparison.objects.filter(curator=curator, left=c.left, right=c.right,
                                         choice=c.choice).exists():
                unchanged += 1
                continue
            comparison_submit(curator=curator, left=c.left, right=c.right, choice=c.choice,
                              shown_ms=c.shown_ms, source=Comparison.Source.IMPORT,
                              created=c.created)
            imported += 1
    return ImportResult(imported=imported, unchanged=unchanged)


def _check(text: str) -> _Checked:
    """One line, parsed and its renders found; ValueError says what is wrong."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    if record.get("format") != FORMAT:
        raise ValueError(f"format is {record.get('format')!r}, expected {FORMAT!r}")
    curator = record.get("curator")
    if not isinstance(curator, str) or not curator.strip():
        raise ValueError(f"curator must be a non-empty name, got {curator!r}")
    choice = record.get("choice")
    if choice not in Comparison.Choice.values:
        raise ValueError(f"choice {choice!r} is not one of {', '.join(Comparison.Choice.values)}")
    shown_ms = record.get("shown_ms")
    if shown_ms is not None and (not isinstance(shown_ms, int) or shown_ms < 0):
        raise ValueError(f"shown_ms must be a whole number of milliseconds or null, "
                         f"got {shown_ms!r}")
    try:
        created = datetime.fromisoformat(record.get("created") or "")
    except (TypeError, ValueError):
        raise ValueError(f"created must be an ISO 8601 time, got {record.get('created')!r}") \
            from None
    if created.tzinfo is None:
        raise ValueError(f"created {record['created']!r} has no UTC offset")
    left, right = _render_of(record, "left"), _render_of(record, "right")
    if left.pk == right.pk or left.sketch.prompt != right.sketch.prompt:
        raise ValueError(f"renders {left.pk} and {right.pk} are not two renders of one prompt")
    return _Checked(curator.strip(), left, right, choice, shown_ms, created)


def _render_of(record: dict, side: str) -> Render:
    ref = record.get(side)
    if not isinstance(ref, dict) or not isinstance(ref.get("code_sha256"), str) \
            or not isinstance(ref.get("seed"), int):
        raise ValueError(f"{side} must be an object with code_sha256 and seed")
    matching = renders_gradable().select_related("sketch").filter(
        sketch__code_sha256=ref["code_sha256"], seed=ref["seed"])
    same_id = isinstance(ref.get("render_id"), int) and matching.filter(
        pk=ref["render_id"]).first()
    render = same_id or matching.order_by("pk").first()
    if render is None:
        raise ValueError(f"{side} render not found: no rendered sketch with code "
                         f"{ref['code_sha256'][:12]}… at seed {ref['seed']} (import its "
                         "sketch first, e.g. with import_renders)")
    return render
