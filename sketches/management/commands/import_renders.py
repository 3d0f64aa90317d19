"""python manage.py import_renders PATH [--now] [--json] [--fail-on-error] [--brush auto|2|1]

Imports sketches (and their renders and grades, when given) from a folder or
zip of .js files with an optional manifest.jsonl, or from a .jsonl file of
{"prompt", "code"} lines. See `--help` for the manifest format."""
from __future__ import annotations

import json
import sys

from django.core.management.base import BaseCommand, CommandError

from sketches import services
from sketches.brush_api import AUTO_BRUSH, BRUSHES
from sketches.importing import ImportInputError, ImportReport, ItemResult, Outcome, import_path

PROGRESS_EVERY = 25

HELP = """Import sketches from PATH: a folder or a .zip of .js files, or a .jsonl file.

A folder or zip may hold manifest.jsonl at its top, one JSON object a line:
  {"file": "hibiscus.js", "prompt": "a peach-pink hibiscus", "png": "hibiscus.png",
   "seed": 0, "grades": {"ana": "love", "ben": "okay"}, "brush": "1"}
"file" is required. "png" is a render of that code at "seed" (default 0), kept as an
ok render; without it the sketch is queued for rendering. "grades" maps curator
names to love, okay or nope. "brush" ("2", "1" or "auto") is the p5.brush that
sketch renders with, over --brush. .js files the manifest does not name are imported
with no prompt. A .jsonl file holds {"prompt": ..., "code": ..., "seed": ...,
"grades": {...}, "brush": ...} lines instead.

--brush chooses the p5.brush the sketches render with: auto (the default) renders
each with the version its calls are written for (1.x where it calls bleed,
setHatch, push... and nothing only 2.x has; else 2.x), since sketches from outside
are written for either and most published ones for 1.x; 2 or 1 renders every
sketch with that version, as a run does (runs render with 2.x unless told). The
choice is recorded on each render (Render.brush) and used when it renders.

Code already stored (same SHA-256) is reported as already imported and not stored
again; its grades are still applied. Each bad item is reported with an error code
(not_utf8, file_too_large, unsafe_path, zip_bomb, corrupt_entry, not_png,
image_too_large, corrupt_image, duplicate_file, bad_line, missing_file,
empty_code, bad_grades, internal_error) and the rest are imported.

Exit status: 0 when the input was read, even if some items failed (they are
listed); 1 when the input as a whole cannot be read (missing, not a zip,
folder or .jsonl), or with --fail-on-error when any item failed."""


class Command(BaseCommand):
    help = HELP

    def create_parser(self, prog_name, subcommand, **kwargs):
        from argparse import RawDescriptionHelpFormatter

        parser = super().create_parser(prog_name, subcommand, **kwargs)
        parser.formatter_class = RawDescriptionHelpFormatter
        return parser

    def add_arguments(self, parser):
        parser.add_argument("path", help="a folder, a .zip or a .jsonl file")
        parser.add_argument("--now", action="store_true",
                            help="render in this process (browser pool) instead of queueing")
        parser.add_argument("--json", action="store_true", dest="as_json",
                            help="print the report as one JSON object (no progress)")
        parser.add_argument("--fail-on-error", action="store_true",
                            help="exit 1 when any item failed")
        parser.add_argument("--brush", choices=BRUSHES, default=AUTO_BRUSH,
                            help="the p5.brush the sketches render with (a manifest line's "
                                 "\"brush\" wins); auto, the default: each by its calls")

    def handle(self, *args, path, now, as_json, fail_on_error, brush=AUTO_BRUSH, **options):
        if not now:
            self._check_broker()
        progress = None if as_json else self._progress
        try:
            report = import_path(path, on_progress=progress, queue_renders=not now,
                                 brush=brush)
        except ImportInputError as exc:
            raise CommandError(str(exc)) from exc
        if now and report.pending_render_ids:
            self._render_now(report, quiet=as_json)
        if as_json:
            self.stdout.write(json.dumps(report.to_dict(), sort_keys=True))
        else:
            self._print_report(report)
        if fail_on_error and report.errors:
            raise CommandError(f"{len(report.errors)} of {report.total} items failed")

    def _check_broker(self) -> None:
        """Queueing renders needs the broker; without it every sketch would wait
        through Celery's reconnect retries (about 20 s each) and stay unqueued."""
        from celery import current_app

        if current_app.conf.task_always_eager:
            return
        try:
            with current_app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, interval_start=0.2, interval_step=0.2,
                                       timeout=2)
        except Exception as exc:
            raise CommandError(f"cannot reach the Celery broker to queue renders ({exc}): "
                               "start Redis, or pass --now to render here") from exc

    def _progress(self, done: int, total: int, result: ItemResult) -> None:
        if sys.stdout.isatty():
            self.stdout.write(f"\r{done}/{total} items", ending="\n" if done == total else "")
            self.stdout.flush()
        elif done == total or done % PROGRESS_EVERY == 0:
            self.stdout.write(f"{done}/{total} items")

    def _render_now(self, report: ImportReport, *, quiet: bool) -> None:
        statuses: dict[str, int] = {}

        def progress(done: int, total: int, render) -> None:
            statuses[render.status] = statuses.get(render.status, 0) + 1
            if not quiet and (done == total or done % PROGRESS_EVERY == 0):
                self.stdout.write(f"{done}/{total} rendered")

        # Each render within the import's deadline, which the import stored on it.
        services.renders_execute_bulk(render_ids=report.pending_render_ids,
                                      on_progress=progress)
        if not quiet:
            self.stdout.write("rendered: " + ", ".join(
                f"{n} {status}" for status, n in sorted(statuses.items())))

    def _print_report(self, report: ImportReport) -> None:
        if report.errors:
            self.stdout.write("errors:")
        for result in report.errors:
            self.stdout.write(self.style.WARNING(
                f"  {result.name}: {result.code}: {result.message}"))
        for result in report.items:
            if result.outcome == Outcome.IMPORTED and result.message:
                self.stdout.write(self.style.WARNING(f"  {result.name}: {result.message}"))
        if report.ignored:
            shown = ", ".join(report.ignored[:10])
            more = f" and {len(report.ignored) - 10} more" if len(report.ignored) > 10 else ""
            self.stdout.write(f"ignored (neither a sketch nor a named render): {shown}{more}")
        style = self.style.WARNING if report.errors else self.style.SUCCESS
        self.stdout.write(style(f"{report.source}: {report.summary()}"))
