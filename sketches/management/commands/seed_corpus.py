"""python manage.py seed_corpus --count N [--seed S] [--size PX]: store N
procedural painter sketches and queue their renders on the `render` queue.
Safe to run twice: seeds already stored are skipped."""
import sys

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from sketches.corpus import corpus_seed


class Command(BaseCommand):
    help = ("Store N procedural painter sketches (painter seeds S .. S+N-1) and queue their "
            "renders on the render queue. Seeds already stored are skipped.")

    def add_arguments(self, parser):
        parser.add_argument("--count", type=int, required=True)
        parser.add_argument("--seed", type=int, default=0, help="first painter seed (default 0)")
        parser.add_argument("--size", type=int, default=settings.PAINTRL_PAINTER_SIZE,
                            help="canvas side in px (default PAINTRL_PAINTER_SIZE)")

    def handle(self, *args, count, seed, size, **options):
        if count < 0:
            raise CommandError("--count must be 0 or more")
        largest = settings.PAINTRL_RENDER_MAX_CANVAS_SIDE
        if not 32 <= size <= largest:
            raise CommandError(f"--size must be between 32 and {largest} "
                               "(PAINTRL_RENDER_MAX_CANVAS_SIDE)")

        def progress(done: int, total: int) -> None:
            if sys.stdout.isatty():
                self.stdout.write(f"\rseeding: {done}/{total}", ending="")
                self.stdout.flush()
            else:
                self.stdout.write(f"seeding: {done}/{total}")

        report = corpus_seed(count=count, seed=seed, size=size, on_progress=progress)
        if sys.stdout.isatty():
            self.stdout.write("")
        self.stdout.write(self.style.SUCCESS(
            f"{report.created} sketches added and queued for rendering, "
            f"{report.existing} already there."))
