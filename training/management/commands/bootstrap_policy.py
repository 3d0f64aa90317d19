"""python manage.py bootstrap_policy [--out DIR] [--size tiny|test] [--minutes M]
[--count N] [--seed S] [--evaluate N] [--render] [--force] [--if-missing]
[--queue]: build the built-in policy from the procedural corpus (tokenizer,
small Qwen3 model, SFT on the CPU), check what it writes against the gate,
and save it where runs find it; or, with --queue, have the train worker do
it (what `make demo` does). Either way the build is a job of kind
"policy_build" (training.policy.job), whose row the pages read."""
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from jobs.models import JobStatus
from jobs.runner import job_run_here
from jobs.services import job_finish
from training.kinds import POLICY_BUILD
from training.models import PolicyBuild
from training.policy import builtin_policy_dir
from training.policy.build import SIZES, policy_exists
from training.policy.selectors import BUILDING, policy_build_latest
from training.policy.services import PolicyBuildError, policy_build_start


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
        # Only what was given (0 is a value: `--evaluate 0`), so the size's
        # recipe fills the rest (training.policy.services.build_plan).
        options = {name: value for name, value in dict(
            size=size, minutes=minutes, steps=steps, count=count, seed=seed, evaluate=evaluate,
            render=render, threads=threads, force=force, lr=lr, shortest=shortest,
            logit_scale=logit_scale).items() if value is not None and value is not False}
        if if_missing and queue and (latest := policy_build_latest(target)) is not None \
                and latest.state == BUILDING:
            self.stdout.write(f"{latest.build} is already {latest.build.status}; nothing to do")
            return
        try:
            build = policy_build_start(out=target, options=options, queue=queue)
        except PolicyBuildError as exc:
            raise CommandError(str(exc)) from exc
        if queue:
            self.stdout.write(f"queued: the train worker will build the policy in {target} "
                              f"({build}; progress on the jobs and training runs pages)")
            return
        self.stdout.write(f"building the {size!r} policy in {target} ({build})")
        try:
            build = job_run_here(kind=POLICY_BUILD, pk=build.pk, on_progress=self._progress)
        except KeyboardInterrupt:
            # The runner records what a body raises, not an interrupt: without
            # this the row would read running until its lease went stale.
            job_finish(model=PolicyBuild, pk=build.pk, status=JobStatus.CANCELLED,
                       error="interrupted (Ctrl-C)")
            raise
        if build.status != JobStatus.DONE:
            raise CommandError(f"{build} {build.status}: {build.error}")
        self._summary(build.record)
        self.stdout.write(self.style.SUCCESS(f"policy saved in {target}"))

    def _progress(self, progress: dict) -> None:
        """A line a report: SFT's numbers where it has reached SFT, else the phase."""
        if progress.get("message", "").startswith("training:"):
            p = progress
            self.stdout.write(f"step {p['step']}  loss {p['loss']:.3f}  "
                              f"lr {p['learning_rate']:.2e}  {p['tokens_per_s']:,.0f} tokens/s  "
                              f"epoch {p['epoch']:.2f}  {p['sft_elapsed_s']:.0f} s  "
                              f"({p['done']:.0%})")
        else:
            self.stdout.write(progress.get("message", ""))
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

