"""python manage.py import_pool_snapshot PATH [--name NAME]

Imports a pool snapshot export (a folder or a zip written by
`export_pool_snapshot`) as the same frozen snapshot: name, note, rule, counts,
and its members with their tiers, pins, subjects and order, pointing at
renders of the export's PNGs. Sketches and renders go through the same import
as `import_renders`; code already imported at the same seed is reused. The
snapshot is stored in one transaction once every member's render is in: any
problem is reported and leaves no snapshot. A name that is taken is refused;
--name imports it under another."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from pool.snapshot_import import SnapshotImportError, snapshot_import


class Command(BaseCommand):
    help = __doc__

    def add_arguments(self, parser):
        parser.add_argument("path", help="the export: a folder or a .zip")
        parser.add_argument("--name", help="the new snapshot's name (default: the exported one)")

    def handle(self, *args, path, name, **options):
        try:
            result = snapshot_import(path=path, name=name)
        except SnapshotImportError as exc:
            raise CommandError(str(exc)) from exc
        snapshot = result.snapshot
        members = list(snapshot.members.values_list("tier", "pinned"))
        tiers = ", ".join(f"{sum(1 for t, _ in members if t == tier)} {tier}"
                          for tier in sorted({t for t, _ in members}))
        pinned = sum(1 for _, p in members if p)
        self.stdout.write(self.style.SUCCESS(
            f"Imported snapshot {snapshot.name!r}: {len(members)} members ({tiers}; "
            f"{pinned} pinned); renders: {result.renders_new} stored from the export's PNGs, "
            f"{result.renders_reused} already imported and reused"))
