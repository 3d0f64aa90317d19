"""python manage.py export_run RUN_ID OUT

Writes a training run (steps, rollouts with their sketches, renders and PNGs,
and what it was launched with) as a folder, or as a zip when OUT ends in .zip.
Checkpoints and the final policy are not exported: their paths are recorded.
`python manage.py import_run OUT` reads it back (see training.runs.transfer)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from training.models import TrainingRun
from training.runs.transfer import TransferError, run_export


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("run_id", type=int, help="the run's id")
        parser.add_argument("out", help="a new (or empty) folder, or a path ending in .zip")

    def handle(self, *args, run_id, out, **options):
        run = TrainingRun.objects.filter(pk=run_id).first()
        if run is None:
            raise CommandError(f"no training run with id {run_id}")
        try:
            summary = run_export(run=run, out=out)
        except TransferError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Exported run {run.name!r} (id {run.pk}, {run.status}): "
                          f"{summary.steps} steps, {summary.rollouts} rollouts, "
                          f"{summary.pngs} PNGs to {out}")
        left = summary.not_exported
        self.stdout.write(f"Not exported: {left['note']}")
        for path in (*left["checkpoints"], left["final_policy"]):
            if path:
                self.stdout.write(f"  {path}")
        if summary.missing_pngs:
            self.stderr.write(f"{len(summary.missing_pngs)} PNGs were missing from storage "
                              f"({', '.join(summary.missing_pngs[:10])}); their rollouts are "
                              "exported without a picture.")
