"""GRPO proof of learning: does the built-in tiny policy's reward rise when it
trains against rubric v2 with the local judge, on the CPU?

One TrainingRun (rubric v2, the local reward-model judge and scorer, the
newest pool snapshot, the "painter subjects" prompts, the built-in policy)
is launched with the same service the admin's Launch action calls
(training.runs.services.run_launch) and trained in this process by the same
task the train worker runs (Celery in eager mode). It prints, per step:
reward mean and spread, the share of groups with zero spread, gate pass and
unknown-method rates, completion tokens, and the step time split (generate /
render / judge / update); then the first-third against last-third mean
reward and the least-squares slope of the reward over steps with its t
statistic, as peers report. It asserts nothing.

The run needs an active reward model and a pool snapshot. With
`--database URL` it uses a database that has them (the demo's, after
grading, training a reward model and freezing a snapshot). Without, it
builds a throwaway one first: `--world N` painter sketches rendered, graded
by the simulated curator, a reward model trained on those grades and a
snapshot frozen (minutes: the renders dominate).

With `--probe N` the run also takes the fixed evaluation probe every N
steps (training/runs/probe/), scored by a yardstick: a second reward model
trained on the grades the judge's model held out (in a throwaway world,
trained here; with --database, the newest yardstick of the active model).
The report then adds the probe's mean per probe step and its trend, each
step's rollouts scored by the same yardstick, and the overoptimisation
curve (training/runs/overoptimisation.py). With `--gold`, the yardstick is
the gold judge (pool/reward/gold.py: trained on thousands of painter renders
by their tiers, disjoint by sketch code from the world), built into
PAINTRL_GOLD_DIR first if it is not there (about 25 minutes of renders on 2
cores) and registered in the world. `--seeds 0 1 2` trains one run a seed in
the same world and ends with a table of the seeds.

    .venv/bin/python benchmarks/grpo_bench.py [--database URL --media DIR]
        [--world 160] [--steps 36] [--generations 8] [--prompts-per-step 2]
        [--lr 3e-4] [--max-tokens 256] [--policy DIR] [--seed 0 | --seeds 0 1 2]
        [--probe N [--gold]] [--beta 0]

Queue messages the setup sends (render jobs) go to Redis database 14, which
is flushed at the end, so a running demo's workers never see them.
"""
# ruff: noqa: E402  (Django is set up before the project's imports)
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
BENCH_REDIS = "redis://127.0.0.1:6379/14"


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="a database URL with a reward model and snapshot")
    parser.add_argument("--media", help="its MEDIA_ROOT (with --database)")
    parser.add_argument("--world", type=int, default=160,
                        help="painter sketches to render for a throwaway world (default 160)")
    parser.add_argument("--steps", type=int, default=36)
    parser.add_argument("--generations", type=int, default=8)
    parser.add_argument("--prompts-per-step", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-4,
                        help="3e-4 (with the Qwen3 policy, 1e-3 left the reward flat over 40 "
                             "steps while 3e-4 and 1e-4 rose)")
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--policy", help="policy folder (default: the built-in policy)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seeds", type=int, nargs="+",
                        help="one run a seed, in one world (instead of --seed)")
    parser.add_argument("--beta", type=float, default=0.0,
                        help="KL penalty (0: none, and no KL is measured)")
    parser.add_argument("--name", default="grpo_bench")
    parser.add_argument("--probe", type=int, default=0,
                        help="take the evaluation probe every N steps (0: none)")
    parser.add_argument("--gold", action="store_true",
                        help="score the probe and the rollouts with the gold judge")
    args = parser.parse_args()
    if args.gold and not args.probe:
        parser.error("--gold scores the probe: give --probe N too")
    return args


def environment(args: argparse.Namespace) -> tempfile.TemporaryDirectory | None:
    """Point Django at the chosen or a throwaway database, before setup."""
    scratch = None
    if args.database:
        os.environ["DATABASE_URL"] = args.database
        if args.media:
            os.environ["PAINTRL_MEDIA_ROOT"] = args.media
    else:
        scratch = tempfile.TemporaryDirectory(prefix="paintrl-grpo-bench-")
        os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}/bench.sqlite3"
        os.environ["PAINTRL_MEDIA_ROOT"] = f"{scratch.name}/media"
    os.environ["REDIS_URL"] = BENCH_REDIS
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")
    return scratch


def world_build(count: int, *, yardstick: bool, gold: bool = False) -> None:
    """Render `count` painter sketches, grade them as the simulated curator,
    train and activate a reward model, freeze a snapshot; with `yardstick`,
    also train a yardstick on the grades the model held out; with `gold`,
    register the gold judge instead (built first where it is missing)."""
    from jobs.runner import job_run_here
    from pool.reward.services import reward_model_activate, reward_model_create
    from pool.reward.simulated import grades_simulate
    from pool.services import snapshot_freeze
    from sketches import selectors, services
    from sketches.corpus import corpus_seed

    started = time.monotonic()
    corpus_seed(count=count, seed=100_000, size=256)
    ids = selectors.renders_pending_ids(None)
    services.renders_execute_bulk(render_ids=ids)
    grades_simulate(seed=0)
    job = reward_model_create(config={"sources": "simulated"}, queue=False)
    job = job_run_here(kind="reward_model", pk=job.pk)
    if job.status != "done":
        raise SystemExit(f"the reward model did not train: {job.error}")
    reward_model_activate(reward_model=job, score=False)
    if gold:
        gold_register()
    elif yardstick:
        from pool.reward.services import reward_model_yardstick_create

        stick = reward_model_yardstick_create(reward_model=job, queue=False)
        stick = job_run_here(kind="reward_model", pk=stick.pk)
        if stick.status != "done":
            raise SystemExit(f"the yardstick did not train: {stick.error}")
        print(f"yardstick v{stick.version}: held-out pairwise accuracy "
              f"{stick.metrics['heldout_pairwise_accuracy']:.3f} on "
              f"{stick.training_data.get('renders')} renders v{job.version} never learnt from")
    snapshot = snapshot_freeze(name=f"grpo-bench-{int(time.time())}")
    print(f"world: {len(ids)} renders, reward model v{job.version} (held-out pairwise accuracy "
          f"{job.metrics['heldout_pairwise_accuracy']:.3f}, simulated grades), snapshot "
          f"{snapshot.name!r} with {snapshot.counts.get('total', 0)} members, "
          f"{time.monotonic() - started:.0f} s")


def gold_register() -> None:
    """The gold judge of PAINTRL_GOLD_DIR in this database, built first if missing."""
    from django.conf import settings

    from pool.reward.gold import gold_build, gold_exists
    from pool.reward.services import reward_model_gold_register

    folder = Path(settings.PAINTRL_GOLD_DIR)
    if not gold_exists(folder):
        print(f"no gold judge in {folder}: building it")
        gold_build(folder)
    gold = reward_model_gold_register(folder)
    record = gold.training_data["gold"]
    print(f"gold judge v{gold.version}: held-out pairwise accuracy "
          f"{record['metrics']['heldout_pairwise_accuracy']:.3f} on the painter's tiers "
          f"({record['split']['test']} test renders of {record['renders']}, painter seeds "
          f"{record['painter']['seeds'][0]}..{record['painter']['seeds'][1]})")


def run_create(args: argparse.Namespace, seed: int):
    from pool.models import PoolSnapshot, RewardModel
    from training.models import Judge, PromptSet, Rubric, SystemPrompt, TrainingRun
    from training.presets import LOCAL_JUDGE, PROMPT_SET_NAME, SYSTEM_PROMPT_NAME

    reward_model = RewardModel.objects.filter(active=True).first()
    snapshot = PoolSnapshot.objects.order_by("-created").first()
    if reward_model is None or snapshot is None:
        raise SystemExit("the database has no active reward model or no pool snapshot")
    local = Judge.objects.get(name=LOCAL_JUDGE)
    yardstick = None
    if args.probe:
        from pool.reward.selectors import gold_newest, yardstick_newest

        yardstick = gold_newest() if args.gold else yardstick_newest(reward_model)
        if yardstick is None:
            raise SystemExit("--probe --gold needs a registered gold judge" if args.gold else
                             f"--probe needs a finished yardstick of v{reward_model.version}")
    print(f"reward model v{reward_model.version} (held-out pairwise accuracy "
          f"{reward_model.metrics.get('heldout_pairwise_accuracy')}); snapshot "
          f"{snapshot.name!r} ({snapshot.counts.get('total', 0)} members)")
    return TrainingRun.objects.create(
        name=args.name, base_model=args.policy or "",
        prompt_set=PromptSet.objects.get(name=PROMPT_SET_NAME),
        system_prompt=SystemPrompt.objects.filter(name=SYSTEM_PROMPT_NAME).first(),
        rubric=Rubric.objects.get(name="v2", version=1), snapshot=snapshot,
        judge=local, scorer=local, num_generations=args.generations,
        prompts_per_step=args.prompts_per_step, max_steps=args.steps, learning_rate=args.lr,
        max_completion_length=args.max_tokens, seed=seed, save_steps=max(args.steps, 1),
        device="cpu", probe_every=args.probe, yardstick=yardstick, beta=args.beta)


def report(run) -> dict:
    """Print the run's steps and trends; what the seeds' table shows of it."""
    from training.models import TrainingStep

    steps = list(TrainingStep.objects.filter(run=run).order_by("step"))
    print(f"\n{'step':>4} {'reward':>7} {'std':>6} {'flat':>5} {'gate':>5} {'unk':>5} "
          f"{'tokens':>6} {'gold':>6} {'kl':>7} {'gen s':>6} {'rend s':>6} {'judge s':>7} "
          f"{'upd s':>6} {'total s':>7}")
    for s in steps:
        t = s.times

        def num(value, spec):
            return "-" if value is None else format(value, spec)

        print(f"{s.step:4d} {num(s.reward_mean, '7.3f')} {num(s.reward_std, '6.3f')} "
              f"{num(s.zero_spread_groups, '5.2f')} {num(s.gate_pass, '5.2f')} "
              f"{num(s.unknown_method_rate, '5.2f')} "
              f"{num(s.completion_tokens.get('mean'), '6.0f')} {num(s.yardstick_mean, '6.3f')} "
              f"{num(s.metrics.get('kl'), '7.4f')} {num(t.get('generate'), '6.1f')} "
              f"{num(t.get('render'), '6.1f')} {num(t.get('judge'), '7.2f')} "
              f"{num(t.get('update'), '6.1f')} {num(t.get('total'), '7.1f')}")
    rewards = [s.reward_mean for s in steps if s.reward_mean is not None]
    if len(rewards) < 3:
        print("too few steps with a reward to say anything")
        return {"run": run.pk, "seed": run.seed}
    from training.diagnostics import reward_trend

    result = reward_trend(rewards)
    flat = [s.zero_spread_groups for s in steps if s.zero_spread_groups is not None]
    clean = sum(1 for f in flat if f == 0)
    totals = [s.times.get("total") for s in steps if s.times.get("total")]
    split = {key: statistics.fmean(s.times.get(key) or 0.0 for s in steps)
             for key in ("generate", "render", "judge", "update", "total")}
    print(f"\nreward over {len(rewards)} steps: first third (steps 1-{result['third']}) mean "
          f"{result['first']:.3f}, last third mean {result['last']:.3f} "
          f"({result['last'] - result['first']:+.3f})")
    print(f"least-squares slope {result['slope']:+.4f} per step, t = {t_text(result['t'])} "
          f"(n = {len(rewards)})")
    print(f"steps with no zero-spread group: {clean} of {len(flat)}")
    gate = [s.gate_pass for s in steps if s.gate_pass is not None]
    if gate:
        third = max(1, len(gate) // 3)
        print(f"gate pass: first third {statistics.fmean(gate[:third]):.2f}, last third "
              f"{statistics.fmean(gate[-third:]):.2f}")
    print("mean seconds per step: " + ", ".join(f"{k} {v:.1f}" for k, v in split.items())
          + f" (median total {statistics.median(totals):.1f})")
    adjusted = prompt_adjusted(run)
    if adjusted is not None:
        print(f"prompt-adjusted slope (each group's mean reward less its prompt's mean, "
              f"{adjusted['n']} groups): {adjusted['slope']:+.4f} per step, "
              f"t = {t_text(adjusted['t'])}")
    return {"run": run.pk, "seed": run.seed, "reward": result,
            "adjusted": adjusted, "probe": probe_report(run), "curve": curve_report(run)}


def prompt_adjusted(run) -> dict | None:
    """The reward's trend with the prompts' own difficulty taken out: each
    group's mean total less the mean of every group of its prompt, against
    the group's step (a step that drew hard prompts no longer reads as a
    fall)."""
    from training.diagnostics import least_squares
    from training.models import Rollout

    groups: dict[tuple[int, int], list[float]] = {}
    prompts: dict[tuple[int, int], str] = {}
    for step, group, prompt, total in Rollout.objects.filter(run=run, total__isnull=False) \
            .values_list("step", "group", "prompt", "total"):
        groups.setdefault((step, group), []).append(total)
        prompts[(step, group)] = prompt
    means = {key: statistics.fmean(values) for key, values in groups.items()}
    by_prompt: dict[str, list[float]] = {}
    for key, mean in means.items():
        by_prompt.setdefault(prompts[key], []).append(mean)
    centre = {prompt: statistics.fmean(values) for prompt, values in by_prompt.items()}
    ordered = sorted(means)
    steps = [step for step, _ in ordered]
    if len(ordered) < 3 or len(set(steps)) < 2:
        return None
    values = [means[key] - centre[prompts[key]] for key in ordered]
    return {**least_squares(steps, values), "n": len(ordered)}


def probe_report(run) -> dict | None:
    """The probe's mean yardstick score per probe step, and its trend."""
    from training.diagnostics import reward_trend
    from training.models import Probe
    from training.runs.probe.selectors import probe_means

    rows = probe_means(run)
    if not rows:
        return None
    times = dict(Probe.objects.filter(run=run).values_list("step", "times"))
    print("\nprobe (yardstick win rate against fixed references; gate failures 0):")
    for row in rows:
        print(f"  step {row.step:3d}: mean {'-' if row.mean is None else f'{row.mean:.3f}'}"
              f" ± {'-' if row.se is None else f'{row.se:.3f}'} (standard error, "
              f"{row.scored} scored), {times[row.step].get('total', 0):.1f} s")
    known = [row.mean for row in rows if row.mean is not None]
    trend = reward_trend(known)
    if trend is not None:
        print(f"probe: first third {trend['first']:.3f}, last third {trend['last']:.3f}, "
              f"slope {trend['slope']:+.4f} per probe, t = {t_text(trend['t'])}")
    # The pictures apart from the gate: a probe whose samples pass the gate
    # more often rises with no better picture among them.
    passed = [row.mean for row in probe_means(run, passed_only=True) if row.mean is not None]
    if (passed_trend := reward_trend(passed)) is not None:
        print(f"probe, samples the gate passed only: first third {passed_trend['first']:.3f}, "
              f"last third {passed_trend['last']:.3f}, slope {passed_trend['slope']:+.4f} "
              f"per probe, t = {t_text(passed_trend['t'])}")
    return trend and {**trend, "passed": passed_trend}


def curve_report(run) -> dict | None:
    """The overoptimisation curve: the yardstick on each step's rollouts
    against the reward, smoothed, and where the yardstick stopped rising."""
    from training.runs.overoptimisation import curve_summary, curve_verdict, run_curve

    summary = curve_summary(run_curve(run))
    if summary is None:
        return None
    print(f"\nyardstick on the rollouts (smoothed over {summary['window']} steps), against "
          "the reward:")
    for i in range(0, len(summary["steps"]), 10):
        print(f"  step {summary['steps'][i]:3d}: reward {summary['proxy'][i]:.3f}, yardstick "
              f"{summary['gold'][i]:.3f}")
    trend = summary["gold_trend"]
    print(f"yardstick on the rollouts: slope {trend['slope']:+.5f} per step, "
          f"t = {t_text(trend['t'])}; {curve_verdict(summary)}")
    return summary


def t_text(t: float | None) -> str:
    """A t statistic as printed; None when the fit is exact."""
    return "undefined" if t is None else f"{t:.2f}"


@contextlib.contextmanager
def world(args: argparse.Namespace, *, yardstick: bool, gold: bool = False):
    """Django on the chosen database, or on a throwaway world built here (with
    `yardstick`, one trained too); runs launched inside train in this process
    (eager Celery). The queue database is flushed and the throwaway world
    removed after."""
    scratch = environment(args)
    import django

    django.setup()
    import redis
    from django.core.management import call_command

    from paintrl_site.celery import app as celery_app

    try:
        call_command("migrate", verbosity=0)
        if not args.database:
            world_build(args.world, yardstick=yardstick, gold=gold)
        # The Launch action's service queues a run; eager Celery trains it right here.
        celery_app.conf.task_always_eager = True
        yield
    finally:
        redis.Redis.from_url(BENCH_REDIS).flushdb()
        if scratch is not None:
            scratch.cleanup()


def seeds_table(rows: list[dict]) -> None:
    """One line a seed: the reward's, the probe's and the rollouts' yardstick trends."""
    def trend(value: dict | None) -> str:
        if not value:
            return "-"
        ends = f"{value['first']:.3f} -> {value['last']:.3f}, " if "first" in value else ""
        return f"{ends}t = {t_text(value['t'])}"

    print(f"\n{'seed':>4}  {'reward':<28} {'probe (yardstick)':<28} "
          f"{'rollouts (yardstick, smoothed)':<34} turn")
    for row in rows:
        curve = row.get("curve")
        rollouts = "-"
        if curve:
            rollouts = (f"{curve['start_gold']:.3f} -> {curve['end_gold']:.3f}, "
                        f"t = {t_text(curve['gold_trend']['t'])}")
        turn = (f"stopped rising at step {curve['peak_step']}" if curve and
                curve["stopped_rising"] else "none")
        print(f"{row['seed']:>4}  {trend(row.get('reward')):<28} {trend(row.get('probe')):<28} "
              f"{rollouts:<34} {turn}")


def main() -> None:
    args = arguments()
    rows = []
    with world(args, yardstick=bool(args.probe), gold=args.gold):
        from training.runs.services import run_launch

        for seed in args.seeds or [args.seed]:
            run = run_create(args, seed)
            print(f"\nrun {run.pk}: {args.steps} steps x {args.prompts_per_step} prompts x "
                  f"{args.generations} generations, lr {args.lr}, beta {args.beta}, seed "
                  f"{seed}, policy {args.policy or 'built-in'}; load average "
                  f"{os.getloadavg()[0]:.2f}")
            started = time.monotonic()
            run_launch(run=run)
            run.refresh_from_db()
            print(f"run {run.pk} {run.status} in {time.monotonic() - started:.0f} s"
                  f"{': ' + run.error if run.error else ''}; load average "
                  f"{os.getloadavg()[0]:.2f}")
            rows.append(report(run))
    if len(rows) > 1:
        seeds_table(rows)

if __name__ == "__main__":
    main()
