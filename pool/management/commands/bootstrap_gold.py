"""python manage.py bootstrap_gold [--out DIR] [--count N] [--seed S]
[--browsers B] [--retrain] [--force] [--if-missing] [--register]: build the
gold judge (pool/reward/gold.py) from painter renders labelled by their
tiers, save it where runs find it, and with --register store it as a reward
model a run's probe can be scored with."""
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from pool.reward.gold import (
    GOLD_CORPUS,
    GOLD_COUNT,
    GOLD_SEED,
    gold_build,
    gold_exists,
    gold_record,
)
from pool.reward.services import GoldError, reward_model_gold_register
from sketches.renderer import RendererConfig


class Command(BaseCommand):
    help = ("Render a painter corpus, train the gold judge on its tiers and save it "
            "(gold.pt, paintrl_gold.json, corpus.npz); --register stores it as a reward model.")

    def add_arguments(self, parser):
        parser.add_argument("--out", help="gold folder (default PAINTRL_GOLD_DIR)")
        parser.add_argument("--count", type=int, default=GOLD_COUNT,
                            help=f"painter sketches to render (default {GOLD_COUNT})")
        parser.add_argument("--seed", type=int, default=GOLD_SEED,
                            help=f"first painter seed (default {GOLD_SEED})")
        parser.add_argument("--browsers", type=int, help="render pool size (default: the "
                                                          "renderer's)")
        parser.add_argument("--retrain", action="store_true",
                            help="train again on the folder's rendered corpus")
        parser.add_argument("--force", action="store_true", help="replace an existing gold judge")
        parser.add_argument("--if-missing", action="store_true",
                            help="build nothing when the folder holds a gold judge already")
        parser.add_argument("--register", action="store_true",
                            help="store the gold judge as a reward model (once per database)")

    def handle(self, *args, out, count, seed, browsers, retrain, force, if_missing, register,
               **options):
        folder = Path(out or settings.PAINTRL_GOLD_DIR)
        if count < 100:
            raise CommandError("--count must be at least 100: fewer renders cannot train "
                               "and measure a gold judge")
        if gold_exists(folder) and not (force or retrain):
            if not if_missing:
                raise CommandError(f"a gold judge already exists in {folder}; pass --force to "
                                   "build it again, --retrain to train it again on its renders, "
                                   "or --if-missing")
            self.stdout.write(f"a gold judge is already in {folder}; nothing to build")
        else:
            if retrain and not (folder / GOLD_CORPUS).exists():
                raise CommandError(f"--retrain needs the rendered corpus in {folder}: build "
                                   "it first")
            renderer = None if browsers is None else RendererConfig(browsers=browsers)
            gold_build(folder, count=count, seed=seed, renderer=renderer, retrain=retrain,
                       log=lambda line: (self.stdout.write(line), self.stdout.flush()))
        record = gold_record(folder)
        if register:
            try:
                model = reward_model_gold_register(folder)
            except GoldError as exc:
                raise CommandError(str(exc)) from exc
            self.stdout.write(self.style.SUCCESS(
                f"gold judge registered as reward model v{model.version} (held-out pairwise "
                f"accuracy {record['metrics']['heldout_pairwise_accuracy']:.3f})"))
