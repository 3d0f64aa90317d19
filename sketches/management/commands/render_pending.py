"""python manage.py render_pending [--limit N]: render every pending render now,
across the whole browser pool, with progress. For a queue-free machine or a
backlog; the workers do the same through render_batch_task."""
import sys

from django.core.management.base import BaseCommand

from sketches import selectors, services


class Command(BaseCommand):
    help = "Render pending renders in this process, across the browser pool."

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=None)

    def handle(self, *args, limit, **options):
        ids = selectors.renders_pending_ids(limit)
        if not ids:
            self.stdout.write("nothing pending")
            return
        statuses: dict[str, int] = {}

        def progress(done: int, total: int, render) -> None:
            statuses[render.status] = statuses.get(render.status, 0) + 1
            if sys.stdout.isatty():
                self.stdout.write(f"\r{done}/{total} rendered", ending="")
            elif done == total or done % 10 == 0:
                self.stdout.write(f"{done}/{total} rendered")

        services.renders_execute_bulk(render_ids=ids, on_progress=progress)
        summary = ", ".join(f"{n} {status}" for status, n in sorted(statuses.items()))
        self.stdout.write(self.style.SUCCESS(f"\ndone: {summary}"))
