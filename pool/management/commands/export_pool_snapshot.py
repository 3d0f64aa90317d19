"""python manage.py export_pool_snapshot SNAPSHOT OUT

Writes a frozen pool snapshot (named, or given by id) as a folder of PNGs,
code and manifest.jsonl, or as a zip when OUT ends in .zip. The result
imports as the same snapshot with `python manage.py import_pool_snapshot OUT`,
or as plain renders with `python manage.py import_renders OUT`."""
from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from pool.export import snapshot_export_folder, snapshot_export_zip
from pool.models import PoolSnapshot


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("snapshot", help="the snapshot's name, or its id")
        parser.add_argument("out", help="a new (or empty) folder, or a path ending in .zip")

    def handle(self, *args, snapshot, out, **options):
        found = PoolSnapshot.objects.filter(name=snapshot).first()
        if found is None and snapshot.isdigit():
            found = PoolSnapshot.objects.filter(pk=int(snapshot)).first()
        if found is None:
            names = ", ".join(PoolSnapshot.objects.values_list("name", flat=True)[:10])
            raise CommandError(f"no snapshot named {snapshot!r} (or with that id); "
                               f"snapshots: {names or 'none yet'}")
        try:
            if out.lower().endswith(".zip"):
                if Path(out).exists():
                    raise FileExistsError(f"{out} exists already")
                summary = snapshot_export_zip(found, out)
            else:
                summary = snapshot_export_folder(found, out)
        except FileExistsError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"Exported snapshot {found.name!r}: {summary.members} members, "
                          f"{summary.pngs} PNGs to {out}")
        if summary.missing_pngs:
            self.stderr.write(f"{len(summary.missing_pngs)} PNGs were missing from storage "
                              f"(members {summary.missing_pngs[:10]}); their manifest lines "
                              "have no png, so an import renders them again.")
