"""Importing sketches, their renders and grades made elsewhere.

Inputs (`python manage.py import_renders PATH`, or the staff upload page at
/sketches/import/):

* a folder or a zip of sketches as `.js` files, with an optional
  `manifest.jsonl` at its top (a zip holding a single folder counts as that
  folder). One JSON object a line:

      {"file": "hibiscus.js", "prompt": "a peach-pink hibiscus in watercolour",
       "png": "hibiscus.png", "seed": 0, "grades": {"ana": "love", "ben": "okay"}}

  `file` is required; `prompt`, `png` (a render of this code at `seed`, stored
  as an ok render instead of rendering again), `seed` (default 0) and
  `grades` ({curator: "love" | "okay" | "nope"}) are optional. `.js` files the
  manifest does not name are imported with an empty prompt; other files are
  listed as ignored.
* a `.jsonl` file of sketches: {"prompt": "...", "code": "...", "seed": 0,
  "grades": {...}} a line (`code` required).

Modules: sources (folder and zip members, bounded reads), records (manifest
and JSONL lines), images (PNG checks), inputs (the plan of items), service
(`import_path`, the one code path), report, jobs (the upload page's
ImportJob), upload (the form), errors (the named per-item errors)."""
from .errors import ErrorCode, ImportInputError, ItemError
from .report import ImportReport, ItemResult, Outcome
from .services import import_path

__all__ = ["ErrorCode", "ImportInputError", "ImportReport", "ItemError", "ItemResult",
           "Outcome", "import_path"]
