"""Export comparisons: `manage.py export_comparisons [-o FILE]` writes one
JSON line per comparison (format in rating/comparison_transfer.py)."""
from __future__ import annotations

from django.core.management.base import BaseCommand

from rating import comparison_transfer


class Command(BaseCommand):
    help = "Export every comparison of two renders, as JSONL."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--output", "-o", default="-", help="a file, or - for stdout")

    def handle(self, *args, output: str, **options) -> None:
        count = 0
        if output == "-":
            for count, line in enumerate(comparison_transfer.jsonl_lines(), 1):  # noqa: B007
                self.stdout.write(line, ending="")
        else:
            with open(output, "w", encoding="utf-8") as f:
                for count, line in enumerate(comparison_transfer.jsonl_lines(), 1):  # noqa: B007
                    f.write(line)
        self.stderr.write(f"exported {count} comparisons as JSONL")
