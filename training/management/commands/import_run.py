"""python manage.py import_run PATH [--name NAME]

Recreates a training run exported by `manage.py export_run` (a folder or a
.zip) as a finished record: its steps, rollouts, sketches, renders and PNGs,
in one transaction (bad input or a failure leaves nothing). The rubric,
system prompt, prompt set, judges and pool snapshot are matched by name (and
version) in this database; what is missing is created from the copies the
run was launched with, or left empty, and said."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from training.runs.transfer import TransferError, run_import


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("path", help="the export's folder or .zip")
        parser.add_argument("--name", help="the imported run's name (default: the exported "
                                           "one, which must not be taken)")

    def handle(self, *args, path, name=None, **options):
        try:
            summary = run_import(path=path, name=name)
        except TransferError as exc:
            raise CommandError(f"{exc}; nothing was imported") from exc
        run = summary.run
        self.stdout.write(f"Imported run {run.name!r} as id {run.pk} ({run.status}): "
                          f"{summary.steps} steps, {summary.rollouts} rollouts, "
                          f"{summary.pngs} PNGs")
        for notice in summary.notices:
            self.stdout.write(f"Notice: {notice}")
