"""One line of a manifest or of a JSONL file of sketches, parsed and checked.

manifest.jsonl (beside the .js files in a folder or zip), one object a line:
    {"file": "hibiscus.js", "prompt": "a peach-pink hibiscus in watercolour",
     "png": "renders/hibiscus.png", "seed": 0,
     "grades": {"ana": "love", "ben": "okay"}}
`file` is required; `prompt` (default ""), `png` (a render of this code at
`seed`, kept instead of rendering again), `seed` (default 0), `grades`
({curator name: "love" | "okay" | "nope"}) and `brush` (the p5.brush to render
it with: "2", "1" or "auto"; default: the import's own choice) are optional.

A JSONL file of sketches has `code` in place of `file` and no `png` (`brush`
as above):
    {"prompt": "three pencil lines", "code": "function setup() { ... }"}
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from ..brush_api import BRUSHES
from .errors import ErrorCode, ItemError

# Render seeds are stored in a 32-bit integer column.
SEED_RANGE = range(-(2**31), 2**31)


@dataclass(frozen=True)
class ManifestEntry:
    line: int
    file: str
    prompt: str = ""
    png: str | None = None
    seed: int = 0
    grades: dict[str, str] = field(default_factory=dict)
    brush: str | None = None  # None: the import's choice


@dataclass(frozen=True)
class SketchLine:
    line: int
    code: str
    prompt: str = ""
    seed: int = 0
    grades: dict[str, str] = field(default_factory=dict)
    brush: str | None = None


def manifest_entry_parse(line: int, raw: bytes) -> ManifestEntry:
    obj = _object(raw)
    return ManifestEntry(
        line=line,
        file=_text(obj, "file", required=True),
        prompt=_text(obj, "prompt"),
        png=_text(obj, "png") or None,
        seed=_seed(obj),
        grades=_grades(obj),
        brush=_brush(obj),
    )


_FILE_FIELD = re.compile(r'"file"\s*:\s*"((?:[^"\\]|\\.)*)"')


def manifest_file_hint(raw: bytes) -> str | None:
    """The file a manifest line that failed to parse seems to name, so that
    file is not imported without its prompt and grades (a re-import would
    then skip it as already imported, and they would never arrive)."""
    text = raw.decode("utf-8", "replace")
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError):
        match = _FILE_FIELD.search(text)
        return match.group(1) if match else None
    file = obj.get("file") if isinstance(obj, dict) else None
    return file if isinstance(file, str) and file else None


def sketch_line_parse(line: int, raw: bytes) -> SketchLine:
    obj = _object(raw)
    if "code" not in obj:
        raise ItemError(ErrorCode.BAD_LINE, "no 'code' field")
    return SketchLine(line=line, code=_text(obj, "code"), prompt=_text(obj, "prompt"),
                      seed=_seed(obj), grades=_grades(obj), brush=_brush(obj))


def _object(raw: bytes) -> dict:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ItemError(ErrorCode.NOT_UTF8, f"the line is not UTF-8 (byte {exc.start})") from exc
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ItemError(ErrorCode.BAD_LINE, f"not JSON: {exc.msg} at column {exc.colno}") from exc
    except RecursionError as exc:  # [[[[...]]]] thousands deep
        raise ItemError(ErrorCode.BAD_LINE, "not JSON: nested too deeply") from exc
    if not isinstance(obj, dict):
        raise ItemError(ErrorCode.BAD_LINE, f"expected a JSON object, got {type(obj).__name__}")
    return obj


def _text(obj: dict, key: str, *, required: bool = False) -> str:
    value = obj.get(key)
    if value is None:
        if required:
            raise ItemError(ErrorCode.BAD_LINE, f"no '{key}' field")
        return ""
    if not isinstance(value, str):
        raise ItemError(ErrorCode.BAD_LINE, f"'{key}' must be a string, got "
                                            f"{type(value).__name__}")
    if key != "code":  # code gets the same check, reported as not_utf8, where it is used
        text_check(value, ErrorCode.BAD_LINE, f"'{key}' ")
    return value


def text_check(text: str, code: ErrorCode, what: str = "") -> None:
    """Text a database can store: JSON may spell a NUL ("\\u0000") or half a
    surrogate pair ("\\ud800"), which PostgreSQL and UTF-8 refuse."""
    if "\x00" in text:
        raise ItemError(code, f"{what}contains NUL characters: binary, not text")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ItemError(code, f"{what}contains an unpaired surrogate at {exc.start}") from exc


def _seed(obj: dict) -> int:
    seed = obj.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed not in SEED_RANGE:
        raise ItemError(ErrorCode.BAD_LINE, f"'seed' must be a 32-bit integer, got {seed!r}")
    return seed


def _brush(obj: dict) -> str | None:
    brush = obj.get("brush")
    if brush is not None and brush not in BRUSHES:
        raise ItemError(ErrorCode.BAD_LINE, f"'brush' must be one of "
                                            f"{', '.join(BRUSHES)}, got {brush!r}")
    return brush


def _grades(obj: dict) -> dict[str, str]:
    """The shape only; the grades handler judges the values."""
    grades = obj.get("grades") or {}
    if not isinstance(grades, dict) or not all(isinstance(v, str) for v in grades.values()):
        raise ItemError(ErrorCode.BAD_LINE,
                        "'grades' must be an object of curator name: grade strings")
    for name in grades:
        text_check(name, ErrorCode.BAD_LINE, "a curator name ")
    return grades
