"""python manage.py simulate_grades [--seed S] [--flip-probability P] [--regrade]:
grade the procedural corpus as the simulated curator (pool/reward/simulated.py
states the rule). Its grades carry source "simulated" and are never counted
as a person's."""
from django.core.management.base import BaseCommand, CommandError

from pool.reward.simulated import FLIP_PROBABILITY, SIMULATED_CURATOR, grades_simulate


class Command(BaseCommand):
    help = ("Grade finished procedural renders by a fixed rule (painter tier good/fair/bad -> "
            "love/okay/nope, a seeded share flipped one step) as the simulated curator.")

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--flip-probability", type=float, default=FLIP_PROBABILITY,
                            help=f"chance a grade moves one step off the tier "
                                 f"(default {FLIP_PROBABILITY})")
        parser.add_argument("--regrade", action="store_true",
                            help="grade again renders the simulated curator already graded")

    def handle(self, *args, seed, flip_probability, regrade, **options):
        try:
            report = grades_simulate(seed=seed, flip_probability=flip_probability,
                                     regrade=regrade)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(self.style.SUCCESS(
            f"{SIMULATED_CURATOR} graded {report.graded} renders ({report.changed} changed); "
            f"{report.already_graded} already graded, {report.skipped_no_tier} not procedural."))
