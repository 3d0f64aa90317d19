"""python manage.py render_pending [--limit N] [--stale]: render every pending
render now, across the whole browser pool, with progress. For a queue-free
machine or a backlog; the workers do the same through render_batch_task.

With --stale it re-renders, in place, the renders an older renderer made
(selectors.renders_stale; services.renders_rerender says what is kept), so a
corpus shows what the current renderer paints."""
import sys

from django.core.management.base import BaseCommand

from sketches import selectors, services


class Command(BaseCommand):
    help = ("Render pending renders in this process, across the browser pool; with --stale, "
            "re-render those an older renderer made.")

    def add_arguments(self, parser):
        parser.add_argument("--limit", type=int, default=None)
        parser.add_argument("--stale", action="store_true",
                            help="re-render renders whose renderer_version is not the current "
                                 "one (never pending or imported ones) instead")

    def handle(self, *args, limit, stale, **options):
        if stale:
            self.rerender_stale(limit)
            return
        ids = selectors.renders_pending_ids(limit)
        if not ids:
            self.stdout.write("nothing pending")
            return
        statuses: dict[str, int] = {}

        def progress(done: int, total: int, render) -> None:
            statuses[render.status] = statuses.get(render.status, 0) + 1
            self.progress(done, total, "rendered")

        services.renders_execute_bulk(render_ids=ids, on_progress=progress)
        self.stdout.write(self.style.SUCCESS(f"\ndone: {by_status(statuses)}"))

    def rerender_stale(self, limit: int | None) -> None:
        # Worked out from node_modules: no browser starts when nothing is stale.
        versions = selectors.renderer_versions_current()
        ids = selectors.renders_stale_ids(limit, version=versions)
        named = " or ".join(versions)
        if not ids:
            self.stdout.write(f"nothing stale: every render is {named} (or imported)")
            return
        self.stdout.write(f"re-rendering {len(ids)} renders with {named}")
        replaced: dict[str, int] = {}
        kept = 0

        def progress(done: int, total: int, rerender: services.Rerender) -> None:
            nonlocal kept
            if rerender.replaced:
                replaced[rerender.status] = replaced.get(rerender.status, 0) + 1
            else:
                kept += 1
            self.progress(done, total, "re-rendered")

        services.renders_rerender(render_ids=ids, on_progress=progress)
        left = selectors.renders_stale(versions).count()
        self.stdout.write(self.style.SUCCESS(
            f"\ndone: {sum(replaced.values())} re-rendered ({by_status(replaced) or 'none'}), "
            f"{kept} kept as they were (unavailable); {left} still stale"))

    def progress(self, done: int, total: int, verb: str) -> None:
        if sys.stdout.isatty():
            self.stdout.write(f"\r{done}/{total} {verb}", ending="")
        elif done == total or done % 10 == 0:
            self.stdout.write(f"{done}/{total} {verb}")


def by_status(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
