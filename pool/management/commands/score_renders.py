"""python manage.py score_renders [--all]: score renders with the active
reward model: those it has not scored yet (renders finished after it was
activated), or every finished render with --all."""
from django.core.management.base import BaseCommand, CommandError

from pool.reward.scoring import model_label, renders_score
from pool.reward.selectors import reward_model_active
from sketches.models import Render


class Command(BaseCommand):
    help = "Score renders the active reward model has not scored yet (--all: every render)."

    def add_arguments(self, parser):
        parser.add_argument("--all", action="store_true", help="score every finished render")

    def handle(self, *args, all, **options):
        active = reward_model_active()
        if active is None:
            raise CommandError("no reward model is active: train one with "
                               "`train_reward_model --activate` or activate one in the admin")
        renders = Render.objects.all()
        if not all:
            renders = renders.exclude(taste_model=model_label(active))
        scored = renders_score(reward_model=active, renders=renders)
        self.stdout.write(self.style.SUCCESS(
            f"Scored {scored} renders with reward model v{active.version}."))
