"""Export grades: `manage.py export_grades` writes JSONL to stdout;
`--format dataset --output grades.zip` (or a new folder) writes the Hugging
Face imagefolder dataset (described in rating/export.py); `--format
preference --output FOLDER` writes the pairs TRL's RewardTrainer and DPOTrainer
load (rating/preference_export.py)."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.urls import reverse

from rating import export, preference_export


class Command(BaseCommand):
    help = ("Export every graded render with its grades, as JSONL or a datasets imagefolder; "
            "or the grades and comparisons as a preference dataset.")

    def add_arguments(self, parser) -> None:
        parser.add_argument("--format", choices=["jsonl", "dataset", "preference"], default="jsonl")
        parser.add_argument("--output", "-o", default="-",
                            help="JSONL: a file or - for stdout. Dataset: a .zip or a new folder. "
                                 "Preference: a new folder.")
        parser.add_argument("--base-url", default="",
                            help="Site address for png_url in JSONL, e.g. https://paintrl.example")

    def handle(self, *args, format: str, output: str, base_url: str, **options) -> None:
        if format == "dataset":
            self._dataset(output)
        elif format == "preference":
            self._preference(output)
        else:
            self._jsonl(output, base_url.rstrip("/"))

    def _jsonl(self, output: str, base_url: str) -> None:
        def png_url(render) -> str:
            return base_url + reverse("sketches:render_png", args=[render.pk])

        lines = export.jsonl_lines(png_url if base_url else None)
        count = 0
        if output == "-":
            for count, line in enumerate(lines, 1):  # noqa: B007 (count is the result)
                self.stdout.write(line, ending="")
        else:
            with open(output, "w", encoding="utf-8") as f:
                for count, line in enumerate(lines, 1):  # noqa: B007
                    f.write(line)
        self.stderr.write(f"exported {count} graded renders as JSONL")

    def _dataset(self, output: str) -> None:
        if output == "-":
            raise CommandError("--format dataset needs --output: a .zip file or a new folder")
        path = Path(output)
        try:
            if path.suffix == ".zip":
                with open(path, "wb") as f:
                    rows = export.dataset_write_zip(f)
            else:
                rows = export.dataset_write_folder(path)
        except FileExistsError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"exported {rows} graded renders with images to {path}")

    def _preference(self, output: str) -> None:
        if output == "-":
            raise CommandError("--format preference needs --output: a new folder")
        try:
            counts = preference_export.write_folder(Path(output))
        except (FileExistsError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"exported {counts.total} preference pairs to {output} "
                          f"({counts.rows}); left out {counts.across_splits} across splits, "
                          f"{counts.same_code} of the same code")
