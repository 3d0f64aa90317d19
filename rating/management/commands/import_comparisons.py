"""Import comparisons: `manage.py import_comparisons FILE` reads what
export_comparisons wrote. Every line is checked first; with any bad line,
each is named and nothing is stored (rating/comparison_transfer.py)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from rating import comparison_transfer


class Command(BaseCommand):
    help = "Import comparisons from a JSONL export (all or nothing)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("path", help="a JSONL file from export_comparisons")

    def handle(self, *args, path: str, **options) -> None:
        try:
            with open(path, encoding="utf-8") as f:
                result = comparison_transfer.comparisons_import(f)
        except comparison_transfer.ComparisonImportError as exc:
            for error in exc.errors:
                self.stderr.write(str(error))
            raise CommandError(str(exc)) from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise CommandError(f"cannot read {path}: {exc}") from exc
        self.stdout.write(f"imported {result.imported} comparisons "
                          f"({result.unchanged} already held as they are)")
