"""python manage.py train_reward_model [--source auto|human|simulated] [--epochs N]
[--image-size PX] [--seed S] [--model cnn|backbone] [--activate] [--queue]:
train a new reward-model version from the grades, here with progress printed,
or on the short worker with --queue."""
from django.core.management.base import BaseCommand, CommandError

from jobs.runner import job_run_here
from pool.models import RewardModel
from pool.reward import services
from pool.reward.config import KINDS, TrainConfig
from pool.reward.metrics import evidence_warning, interval_text
from pool.reward.scoring import renders_score
from rating.sources import SOURCE_CHOICES


class Command(BaseCommand):
    help = ("Train a new reward model from the grades (in this process, printing progress; "
            "--queue sends it to the short worker instead).")

    def add_arguments(self, parser):
        defaults = TrainConfig()
        parser.add_argument("--source", choices=SOURCE_CHOICES, default=defaults.sources,
                            help="whose grades: human, simulated, or auto (human when any "
                                 "exist, else simulated)")
        parser.add_argument("--epochs", type=int, default=defaults.max_epochs,
                            help=f"most epochs (default {defaults.max_epochs}; early "
                                 "stopping usually ends sooner)")
        parser.add_argument("--image-size", type=int, default=defaults.image_size)
        parser.add_argument("--seed", type=int, default=defaults.seed)
        parser.add_argument("--model", choices=KINDS, default=defaults.model,
                            help="cnn, or backbone (a head on PAINTRL_REWARD_BACKBONE)")
        parser.add_argument("--activate", action="store_true",
                            help="make it the active model and score every render with it")
        parser.add_argument("--queue", action="store_true",
                            help="train on the Celery short worker; follow it in the admin")

    def handle(self, *args, source, epochs, image_size, seed, model, activate, queue,
               **options):
        config = {"sources": source, "max_epochs": epochs, "image_size": image_size,
                  "seed": seed, "model": model}
        try:
            reward_model = services.reward_model_create(config=config, queue=queue,
                                                        activate=activate and queue)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if queue:
            self.stdout.write(self.style.SUCCESS(
                f"Queued reward model v{reward_model.version} on the short queue; "
                "follow it in the admin (Reward models)."))
            return
        self.stdout.write(f"Training reward model v{reward_model.version} here "
                          f"({source} grades, up to {epochs} epochs)...")
        reward_model = job_run_here(kind="reward_model", pk=reward_model.pk,
                                    on_progress=self.print_progress)
        if reward_model.status != RewardModel.Status.DONE:
            raise CommandError(f"reward model v{reward_model.version} {reward_model.status}: "
                               f"{reward_model.error or 'see the admin'}")
        self.print_metrics(reward_model)
        if activate:
            services.reward_model_activate(reward_model=reward_model, score=False)
            scored = renders_score(reward_model=reward_model)
            self.stdout.write(self.style.SUCCESS(
                f"Activated v{reward_model.version}; scored {scored} renders."))

    def print_progress(self, progress: dict) -> None:
        if progress.get("stage") != "training":
            if progress.get("done") in (0, progress.get("total")):
                self.stdout.write(f"  {progress['stage']}: {progress['done']}/{progress['total']}")
            return
        self.stdout.write(
            f"  epoch {progress['epoch']:3d}/{progress['max_epochs']}  "
            f"loss {progress['train_loss']:.4f}  "
            f"validation pairwise accuracy {progress['validation_accuracy']:.3f}  "
            f"(best {progress['best_accuracy']:.3f} at epoch {progress['best_epoch']})  "
            f"{progress['elapsed_s']:.0f} s")

    def print_metrics(self, reward_model: RewardModel) -> None:
        metrics, data = reward_model.metrics, reward_model.training_data
        kind = "SIMULATED" if metrics.get("simulated_grades") else "human"
        accuracy = metrics["heldout_pairwise_accuracy"]
        interval = interval_text(metrics["test"])
        self.stdout.write(self.style.SUCCESS(
            f"Reward model v{reward_model.version} done: held-out pairwise accuracy "
            f"{'-' if accuracy is None else format(accuracy, '.3f')}"
            f"{f' [{interval}]' if interval else ''} "
            f"on {metrics['test']['pairs']} pairs "
            f"({kind} grades, {data['renders']} renders); best epoch {metrics['best_epoch']} "
            f"of {metrics['epochs_run']} ({metrics['stopped_by']}), "
            f"{metrics['train_seconds']:.0f} s."))
        compared = metrics.get("heldout_comparison_accuracy")
        if compared is not None:
            self.stdout.write(f"  held-out comparison accuracy {compared:.3f} on "
                              f"{metrics['heldout_comparisons']} comparisons")
        warning = evidence_warning(metrics["test"])
        if warning:
            self.stdout.write(self.style.WARNING(
                f"Do not rely on this model: its accuracy is {warning}."))
        for grade, row in metrics["test"]["by_grade"].items():
            self.stdout.write(f"  {grade:5}  n={row['n']:4d}  mean score {row['mean']:+.2f}  "
                              f"median {row['median']:+.2f}")
