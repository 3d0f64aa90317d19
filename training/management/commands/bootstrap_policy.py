"""python manage.py bootstrap_policy [--out DIR] [--size tiny|test] [--minutes M]
[--count N] [--seed S] [--evaluate N] [--render] [--force] [--if-missing]
[--queue]: build the built-in policy from the procedural corpus (tokenizer,
small Qwen3 model, SFT on the CPU), check what it writes against the gate,
and save it where runs find it; or, with --queue, have the train worker do
it (what `make demo` does)."""
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from training.policy import builtin_policy_dir
from training.policy.build import RECIPES, SIZES, policy_bootstrap, policy_exists
from training.policy.build_status import BuildBusy, build_tracked
from training.policy.sft import SftConfig
from training.tasks import policy_bootstrap_task

PROGRESS_EVERY = 25  # steps between progress lines (about 10 s each for the tiny size)


class Command(BaseCommand):
    help = ("Train the built-in tiny policy by supervised fine-tuning on procedural painter "
            "sketches, evaluate it against the gate, and save it (model, tokenizer and "
            "paintrl_policy.json).")

    def add_arguments(self, parser):
        parser.add_argument("--out", help="policy folder (default PAINTRL_POLICY_DIR)")
        parser.add_argument("--size", choices=sorted(SIZES), default="tiny")
        parser.add_argument("--minutes", type=float,
                            help="training time budget (with neither this nor --steps: the "
                                 "size's recipe, 1,150 steps for tiny)")
        parser.add_argument("--steps", type=int, help="stop after this many steps")
        parser.add_argument("--count", type=int, help="painter sketches in the corpus")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--evaluate", type=int, default=24,
                            help="held-out samples at temperature 1 checked by the gate (0: none)")
        parser.add_argument("--render", action="store_true",
                            help="also render the evaluation samples in the sandbox")
        parser.add_argument("--lr", type=float, help="peak learning rate (default: the recipe)")
        parser.add_argument("--shortest", type=float,
                            help="keep this share of the shortest sketches of each subject and "
                                 "tier (default: the recipe)")
        parser.add_argument("--logit-scale", type=float,
                            help="multiply the trained policy's logits by this (1: unchanged; "
                                 "default: the recipe)")
        parser.add_argument("--threads", type=int,
                            help="torch threads (default PAINTRL_REWARD_THREADS)")
        parser.add_argument("--force", action="store_true", help="replace an existing policy")
        parser.add_argument("--if-missing", action="store_true",
                            help="do nothing, successfully, when the policy already exists")
        parser.add_argument("--queue", action="store_true",
                            help="build on the train worker instead of here (progress shows on "
                                 "the training runs page)")

    def handle(self, *args, out, size, minutes, steps, count, seed, evaluate, render, threads,
               force, lr, shortest, logit_scale, if_missing, queue, **options):
        target = Path(out or builtin_policy_dir())
        if policy_exists(target) and not force:
            if if_missing:
                self.stdout.write(f"a policy is already in {target}; nothing to do")
                return
            raise CommandError(f"a policy already exists at {target}; pass --force to "
                               "replace it")
        recipe = RECIPES[size]
        if (count is not None and count < 1) or evaluate < 0:
            raise CommandError("--count must be at least 1 and --evaluate 0 or more")
        try:
            if minutes is None and steps is None:
                minutes, steps = recipe["minutes"], recipe["steps"]
            sft = SftConfig(minutes=minutes, max_steps=steps, seed=seed, threads=threads,
                            learning_rate=_given(lr, recipe["learning_rate"]),
                            batch_size=recipe["batch_size"], log_every=PROGRESS_EVERY)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if queue:  # checked here first, so a bad option fails now, not on the worker
            self._queue(target, size=size, minutes=minutes, steps=steps, count=count, seed=seed,
                        evaluate=evaluate, render=render, threads=threads, force=force, lr=lr,
                        shortest=shortest, logit_scale=logit_scale)
            return
        count = recipe["count"] if count is None else count
        self.stdout.write(f"building the {size!r} policy in {target}")
        try:
            with build_tracked(target) as tracker:
                record = policy_bootstrap(
                    target, size=size, count=count, seed=seed, sft=sft,
                    vocab_size=recipe["vocab_size"], evaluate=evaluate,
                    shortest=_given(shortest, recipe["shortest"]),
                    logit_scale=_given(logit_scale, recipe["logit_scale"]), render=render,
                    force=force, on_progress=lambda p: (tracker.progress(p), self._progress(p)),
                    log=lambda line: (tracker.log(line), self.stdout.write(line)))
        except (BuildBusy, FileExistsError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self._summary(record)
        self.stdout.write(self.style.SUCCESS(f"policy saved in {target}"))

    def _queue(self, target: Path, **options) -> None:
        # Only what was given (0 is a value: `--evaluate 0`), so the worker's
        # defaults fill the rest.
        options = {name: value for name, value in options.items()
                   if value is not None and value is not False}
        policy_bootstrap_task.delay(str(target), options)
        self.stdout.write(f"queued: the train worker will build the policy in {target} "
                          "(progress on the training runs page)")

    def _progress(self, p) -> None:
        self.stdout.write(f"step {p.step}  loss {p.loss:.3f}  lr {p.learning_rate:.2e}  "
                          f"{p.tokens_per_s:,.0f} tokens/s  epoch {p.epoch:.2f}  "
                          f"{p.elapsed_s:.0f} s  ({p.done:.0%})")
        self.stdout.flush()  # progress shows as it happens when output goes to a log

    def _summary(self, record: dict) -> None:
        training = record["training"]
        self.stdout.write(f"trained {training['steps']} steps ({training['epochs']} epochs) in "
                          f"{training['seconds']} s: loss {training['first_loss']} -> "
                          f"{training['final_loss']}; {record['parameters']:,} parameters")
        for key, title in (("evaluation_unscaled", "gate evaluation before logit scaling"),
                           ("evaluation", "gate evaluation")):
            if record.get(key):
                shown = {k: v for k, v in record[key].items()
                         if k not in ("per_sample", "examples")}
                self.stdout.write(f"{title}: {json.dumps(shown)}")


def _given(value, default):
    return default if value is None else value
