"""The rubric race: does the four-signal rubric (v2) reach the nine-signal
rubric's (v1) ceiling in fewer steps, with the same policy and data?

For each seed, one v2 run is launched with the admin's service (as
grpo_bench.py launches it: the built-in policy, the local judge, the newest
pool snapshot, the painter prompts), then cloned with "clone with another
rubric" (training.runs.services.run_clone), which keeps the prompts, their
order, the render seeds, the snapshot and the judges, and launched with v1.
Both take the evaluation probe every N steps, scored by the yardstick (a
reward model trained on grades the judge's model never saw), which neither
rubric optimises.

v1 at our scale (training.reward.rubric.ramp_target_at_scale): its length ramp's
target is half as much again as the policy's mean completion length before
training (the first run's step-0 probe), not the article's 3000 tokens, which
a 256-token policy could never approach. With the local judge, v1's
adherence signal cannot be answered (the reward model never sees the
prompt), so the v1 runs drop it openly (drop_unanswerable: the run records
it) and say so; its four quality judges are one opinion, the reward model's
preference score (the article measured 0.85-0.95 correlation between them:
ours is the extreme of that), which the report's correlations show.

The race is read twice with the yardstick: off the probe (its curve smoothed
by a centred mean of 3 probes), and off each step's own rollouts, scored as
the probe scores its samples (smoothed over 5 steps; the same prompts for v1
and v2 at each step). Per seed and overall (the seeds' mean curves), it
prints for each reading: v1's ceiling (the mean of the last third of its
curve); the step at which each run's smoothed curve first reaches it
(training.diagnostics.first_reaching), and v2's steps over v1's; the slopes'
t. Then the code length (completion tokens) in the first and last third of
each run, the reward's t, raw and prompt-adjusted, v1's length ramp and the
replay lab's correlations. It asserts nothing. `--out` keeps the
measurements as JSON after every seed (a long race that stops early keeps
its finished seeds), `--report` prints a kept file again, `--runs` reads
finished runs of `--database` (a v2 run and its clone with v1 per seed, made
in the admin, say) as a race, and `--charts DIR` writes the readings' and the
code length's charts as SVG.

    .venv/bin/python benchmarks/rubric_race.py [--seeds 0 1 2] [--steps 60]
        [--probe 5] [--world 320] [--ramp-target N] [--out race.json]
        [--charts docs] [--report race.json]
        [--database URL --media DIR --runs ID ...]

It builds a throwaway world as grpo_bench.py does (or uses --database), and
its queue messages go to the same flushed Redis database (14).
"""
# ruff: noqa: E402  (Django is set up before the project's imports)
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grpo_bench

# The race reads "reached" off a curve smoothed by a centred mean of this many
# probes: a probe is 8 samples, and one lucky probe is not a level held.
WINDOW = 3
# The second reading, the yardstick on each step's own rollouts (16 renders a
# step, against the probe's 8 every 5 steps), is smoothed over this many steps.
ROLLOUT_WINDOW = 5
# The issue's target: v2 reaches v1's ceiling in at most half v1's steps.
TARGET_RATIO = 0.5


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="a database URL with a reward model, its yardstick "
                                           "and a snapshot")
    parser.add_argument("--media", help="its MEDIA_ROOT (with --database)")
    parser.add_argument("--world", type=int, default=320)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--probe", type=int, default=5, help="probe every N steps")
    parser.add_argument("--gold", action="store_true",
                        help="read the race with the gold judge instead of a yardstick "
                             "(grpo_bench.py --gold)")
    parser.add_argument("--beta", type=float, default=0.0, help="KL penalty of the v2 runs")
    parser.add_argument("--generations", type=int, default=8)
    parser.add_argument("--prompts-per-step", type=int, default=2)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--max-tokens", type=int, default=256)
    parser.add_argument("--policy", help="policy folder (default: the built-in policy)")
    parser.add_argument("--ramp-target", type=int,
                        help="v1's ramp target in tokens (default: scaled to the policy)")
    parser.add_argument("--out", help="keep the measurements here (JSON)")
    parser.add_argument("--charts", help="write the race's charts (SVG) into this folder")
    parser.add_argument("--report", help="print a kept JSON file's race again; train nothing")
    parser.add_argument("--runs", type=int, nargs="+",
                        help="read these finished runs of --database (a v2 run and its clone "
                             "with v1 per seed) as a race; train nothing")
    args = parser.parse_args()
    if args.runs and not args.database:
        parser.error("--runs reads runs of a database: give --database (and --media)")
    if args.probe < 1:
        parser.error("--probe must be at least 1: the race is read off the probe")
    return args


# --- measuring --------------------------------------------------------------------------------

def run_measure(run) -> dict:
    """What the race reads off one finished run."""
    from training.diagnostics import reward_trend, rubric_diagnostics
    from training.models import Probe, Rollout, TrainingStep
    from training.reward.kinds import LENGTH
    from training.reward.rubric import rubric_specs

    run.refresh_from_db()
    specs = rubric_specs(run.rubric.signals, run.dropped_signals)
    steps = list(TrainingStep.objects.filter(run=run).order_by("step"))
    rollouts = list(Rollout.objects.filter(run=run).order_by("step", "group", "index"))
    ramps = [s for s in specs if s.kind == LENGTH and s.params.get("mode") == "ramp"]
    ramp_by_step: dict[int, list[float]] = {}
    for rollout in rollouts:
        for spec in ramps:
            value = rollout.values.get(spec.key)
            if value is not None:
                ramp_by_step.setdefault(rollout.step, []).append(value)
    probes = []
    for probe in Probe.objects.filter(run=run).order_by("step").prefetch_related("samples"):
        samples = list(probe.samples.all())
        scores = [s.score for s in samples if s.score is not None]
        probes.append({"step": probe.step,
                       "score": statistics.fmean(scores) if scores else None,
                       "tokens": statistics.fmean(s.tokens for s in samples) if samples else None})
    diagnostics = rubric_diagnostics(specs, [r.values for r in rollouts],
                                     [(r.step, r.group) for r in rollouts]) if rollouts else None
    rewards = [s.reward_mean for s in steps if s.reward_mean is not None]
    adjusted = grpo_bench.prompt_adjusted(run)
    by_step = rollout_yardstick(run, rollouts)
    return {
        "run": run.pk, "rubric": str(run.rubric), "status": run.status, "error": run.error,
        "seed": run.seed, "signals": [s.name for s in specs],
        "dropped": [entry["name"] for entry in run.dropped_signals],
        "steps": [{"step": s.step, "reward": s.reward_mean,
                   "tokens": s.completion_tokens.get("mean"), "gate": s.gate_pass,
                   "flat": s.zero_spread_groups,
                   "ramp": statistics.fmean(ramp_by_step[s.step]) if s.step in ramp_by_step
                   else None, "seconds": s.times.get("total")} for s in steps],
        "probes": probes,
        "rollout_yardstick": [{"step": step, "score": statistics.fmean(scores)}
                              for step, scores in sorted(by_step.items())],
        "reward_t": (reward_trend(rewards) or {}).get("t"),
        "adjusted_t": adjusted["t"] if adjusted else None,
        "correlation": diagnostics["correlation"] if diagnostics else None,
        "redundant": diagnostics["redundant"] if diagnostics else [],
    }


def rollout_yardstick(run, rollouts) -> dict[int, list[float]]:
    """The yardstick's score of each step's rollouts, as the probe scores its
    samples (training.runs.probe.samples.Prober.scores: the mean win
    probability against the probe's fixed references, 0 for a sketch the gate
    rejected), by step: the second reading of the race, with a step's prompts
    in place of the probe's fixed ones (the same prompts for v1 and v2 at each
    step, so the two curves are paired step by step)."""
    from types import SimpleNamespace

    from sketches.models import Render
    from training.reward.inputs import rollout_from_render
    from training.runs.probe.samples import ProbePlan, Prober

    plan = ProbePlan.from_launched(run.launched_config or {})
    if plan is None:
        return {}
    prober = Prober(run_id=run.pk, plan=plan, renderer=None)
    renders = Render.objects.in_bulk([r.render_id for r in rollouts if r.render_id])
    stored = [(r.step, rollout_from_render(renders[r.render_id]))
              for r in rollouts if r.render_id in renders]
    outcomes = [SimpleNamespace(status=rollout.status,
                                png=rollout.picture.data if rollout.picture else None)
                for _, rollout in stored]
    by_step: dict[int, list[float]] = {}
    for (step, _), score in zip(stored, prober.scores(outcomes), strict=True):
        if score is not None:  # an unavailable render has none
            by_step.setdefault(step, []).append(score)
    return by_step


def v1_rubric(target: int):
    """Rubric v1 with its ramp at `target` tokens, as a rubric of its own (the
    preset stays as the article wrote it)."""
    from training.models import Rubric
    from training.reward.rubric import PRESETS, ramp_target_set

    rubric, _ = Rubric.objects.get_or_create(
        name=f"v1 at {target} tokens", version=1,
        defaults={"signals": ramp_target_set(PRESETS["v1"]["signals"], target),
                  "description": f"Rubric v1 with its length ramp's target scaled to the "
                                 f"policy: {target} tokens, not 3000 (benchmarks/rubric_race.py)"})
    return rubric


def race_run(args: argparse.Namespace, seed: int, rubric=None, parent=None):
    """Launch one race run with the admin's service and train it here (eager
    Celery); v1 is v2's run cloned with another rubric."""
    from training.runs.services import run_clone, run_launch

    if parent is None:
        args.name = f"race v2 seed {seed}"
        run = grpo_bench.run_create(args, seed)
    else:
        run = run_clone(run=parent, rubric=rubric)
        # The local judge cannot answer adherence: dropped openly, recorded on the run.
        run.drop_unanswerable = True
        run.name = f"race {rubric.name} seed {seed}"
        run.save(update_fields=["drop_unanswerable", "name"])
    started = time.monotonic()
    run_launch(run=run)
    run.refresh_from_db()
    print(f"run {run.pk} ({run.name}) {run.status} in {time.monotonic() - started:.0f} s"
          f"{': ' + run.error if run.error else ''}; load average {os.getloadavg()[0]:.2f}",
          flush=True)
    return run


def race(args: argparse.Namespace) -> dict:
    results = {"settings": {key: getattr(args, key) for key in (
        "seeds", "steps", "probe", "generations", "prompts_per_step", "lr", "max_tokens",
        "world")}, "ramp_target": args.ramp_target, "runs": []}
    for seed in args.seeds:
        v2 = race_run(args, seed)
        results["runs"].append(run_measure(v2))
        if results["ramp_target"] is None:
            from training.reward.rubric import ramp_target_at_scale

            start = results["runs"][-1]["probes"][0]["tokens"]
            results["ramp_target"] = ramp_target_at_scale(start, args.max_tokens)
            results["ramp_start_tokens"] = start
            print(f"v1's ramp target: {results['ramp_target']} tokens (the policy's step-0 "
                  f"probe completions average {start:.1f} tokens)", flush=True)
        v1 = race_run(args, seed, rubric=v1_rubric(results["ramp_target"]), parent=v2)
        results["runs"].append(run_measure(v1))
        keep(args, results)
    return results


def keep(args: argparse.Namespace, results: dict) -> None:
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")


# --- reading the race -------------------------------------------------------------------------

READINGS = {  # what a curve is read off, and the centred window that smooths it
    "probes": ("the probe", WINDOW),
    "rollout_yardstick": ("the rollouts", ROLLOUT_WINDOW),
}


def curve(run: dict, reading: str = "probes") -> tuple[list[int], list[float]]:
    known = [p for p in run.get(reading) or [] if p["score"] is not None]
    return [p["step"] for p in known], [p["score"] for p in known]


def race_read(v1: dict, v2: dict, reading: str) -> dict:
    """v1's ceiling on one reading's curves, the step each run first reaches
    it, v2's steps over v1's, and each curve's slope t."""
    from training.diagnostics import first_reaching, reward_trend

    window = READINGS[reading][1]
    (s1, y1), (s2, y2) = curve(v1, reading), curve(v2, reading)
    trend1, trend2 = reward_trend(y1), reward_trend(y2)
    if trend1 is None or trend2 is None:
        return {"ceiling": None, "v1_reach": None, "v2_reach": None, "ratio": None,
                "v1_t": None, "v2_t": None}
    ceiling = trend1["last"]
    reach1 = first_reaching(s1, y1, ceiling, window=window)
    reach2 = first_reaching(s2, y2, ceiling, window=window)
    return {"ceiling": ceiling, "v1_reach": reach1, "v2_reach": reach2,
            "ratio": reach2 / reach1 if reach1 and reach2 is not None else None,
            "v1_t": trend1["t"], "v2_t": trend2["t"]}


def duel(v1: dict, v2: dict) -> dict:
    """One seed's race, or the seeds' mean curves': each reading, and how code
    length moved."""
    from training.diagnostics import reward_trend

    code = {}
    for name, run in (("v1", v1), ("v2", v2)):
        trend = reward_trend([s["tokens"] for s in run["steps"] if s["tokens"] is not None])
        code[name] = {"first": trend and trend["first"], "last": trend and trend["last"]}
    return {**{reading: race_read(v1, v2, reading) for reading in READINGS}, "code": code}


def mean_run(runs: list[dict]) -> dict:
    """The seeds' runs of one rubric as one: each reading's mean score and the
    mean step tokens at each step they all have."""
    merged: dict = {}
    for reading in READINGS:
        curves = [dict(zip(*curve(r, reading), strict=True)) for r in runs]
        shared = sorted(set.intersection(*(set(c) for c in curves)))
        merged[reading] = [{"step": step, "score": statistics.fmean(c[step] for c in curves)}
                           for step in shared]
    step_numbers = sorted(set.intersection(*({s["step"] for s in r["steps"]} for r in runs)))
    merged["steps"] = []
    for step in step_numbers:
        tokens = [s["tokens"] for r in runs for s in r["steps"]
                  if s["step"] == step and s["tokens"] is not None]
        merged["steps"].append({"step": step,
                                "tokens": statistics.fmean(tokens) if tokens else None})
    return merged


def number(value, spec: str = ".3f") -> str:
    return "-" if value is None else format(value, spec)


def pairs(results: dict) -> list[tuple[int, dict, dict]]:
    """(seed, v1 run, v2 run) for each seed whose two runs finished."""
    by_seed: dict[int, dict] = {}
    for run in results["runs"]:
        by_seed.setdefault(run["seed"], {})["v2" if run["rubric"].startswith("v2") else "v1"] = run
    return [(seed, runs["v1"], runs["v2"]) for seed, runs in sorted(by_seed.items())
            if {"v1", "v2"} <= set(runs) and all(r["probes"] for r in runs.values())]


def run_print(run: dict) -> None:
    curve_text = " ".join(f"{p['step']}:{number(p['score'], '.2f')}" for p in run["probes"])
    dropped = f"; dropped {', '.join(run['dropped'])}" if run["dropped"] else ""
    print(f"\n{run['rubric']} seed {run['seed']} (run {run['run']}, {run['status']}"
          f"{dropped}): reward t {number(run['reward_t'], '.2f')}, prompt-adjusted t "
          f"{number(run['adjusted_t'], '.2f')}")
    print(f"  probe by step: {curve_text}")
    ramp = [s for s in run["steps"] if s["ramp"] is not None]
    if ramp:
        saturated = next((s["step"] for s in ramp if s["ramp"] >= 0.95), None)
        print(f"  length ramp: mean {ramp[0]['ramp']:.2f} at step {ramp[0]['step']}, "
              f"{ramp[-1]['ramp']:.2f} at step {ramp[-1]['step']}; a step's mean first "
              f"at 0.95 or more: {saturated if saturated is not None else 'never'}")
    redundant = ", ".join(f"{p['a']} ~ {p['b']} r={p['r']:.2f}" for p in run["redundant"])
    print(f"  signals measuring one thing (|r| >= 0.85, group-centred): {redundant or 'none'}")
    if run["rubric"].startswith("v2") and run["correlation"]:
        names, matrix = run["correlation"]["names"], run["correlation"]["matrix"]
        if "preference" in names and "pairwise" in names:
            r = matrix[names.index("preference")][names.index("pairwise")]
            print(f"  preference ~ pairwise r = {number(r, '.2f')}")


def print_report(results: dict) -> None:
    settings = results["settings"]
    print(f"\nthe race: {settings['steps']} steps x {settings['prompts_per_step']} prompts x "
          f"{settings['generations']} generations, lr {settings['lr']}, probe every "
          f"{settings['probe']} steps; v1's ramp target {results['ramp_target']} tokens"
          + (f" (1.5 x the step-0 probe's {results['ramp_start_tokens']:.1f})"
             if results.get("ramp_start_tokens") else ""))
    for run in results["runs"]:
        run_print(run)
    found = pairs(results)
    if not found:
        print("\nno seed has both runs finished: no race to read")
        return
    duels = [(seed, duel(v1, v2)) for seed, v1, v2 in found]
    if len(duels) > 1:
        duels.append(("mean", duel(mean_run([v1 for _, v1, _ in found]),
                                   mean_run([v2 for _, _, v2 in found]))))
    for reading, (label, window) in READINGS.items():
        print(f"\nread off {label} (a centred mean of {window} points):")
        print(f"{'seed':>5} {'v1 ceiling':>10} {'v1 reaches':>10} {'v2 reaches':>10} "
              f"{'v2/v1':>6} {'v1 t':>6} {'v2 t':>6}")
        met = 0
        for seed, d in duels:
            r = d[reading]
            if seed != "mean" and r["ratio"] is not None and r["ratio"] <= TARGET_RATIO:
                met += 1
            print(f"{seed!s:>5} {number(r['ceiling']):>10} {number(r['v1_reach'], 'd'):>10} "
                  f"{number(r['v2_reach'], 'd'):>10} {number(r['ratio'], '.2f'):>6} "
                  f"{number(r['v1_t'], '.2f'):>6} {number(r['v2_t'], '.2f'):>6}")
        print(f"v2 reached v1's ceiling in at most {TARGET_RATIO:.0%} of v1's steps on {met} "
              f"of {len(found)} seeds (target: at least 2 of 3)")
    print(f"\n{'seed':>5} {'v1 tokens':>13} {'v2 tokens':>13}")
    for seed, d in duels:
        code = {name: f"{number(c['first'], '.0f')} -> {number(c['last'], '.0f')}"
                for name, c in d["code"].items()}
        print(f"{seed!s:>5} {code['v1']:>13} {code['v2']:>13}")
    print("\n'reaches': the first step at which the smoothed curve is at v1's ceiling (the "
          "mean of the last third of v1's points) or above; '-': never within the run (v2/v1 "
          "is '-' too where v1 was at its ceiling at step 0). t: the least-squares slope's t. "
          "Tokens: mean completion tokens, first third -> last third of the steps.")
    if results.get("charts"):
        print(f"charts: {', '.join(results['charts'])}")


def charts_write(results: dict, folder: str) -> list[str]:
    """The seeds' mean yardstick curves (probe and rollouts) with v1's
    ceilings, and their code lengths, as SVG files in `folder`."""
    from training.charts import lines_svg
    from training.diagnostics import smoothed

    found = pairs(results)
    if not found:
        return []
    v1, v2 = mean_run([v1 for _, v1, _ in found]), mean_run([v2 for _, _, v2 in found])
    race = duel(v1, v2)
    charts = {}
    for reading, (label, window) in READINGS.items():
        # Drawn as the race reads them: smoothed by the reading's window.
        lines = {name: list(zip(*curve(run, reading), strict=True))
                 for name, run in (("v1", v1), ("v2", v2))}
        lines = {name: list(zip([s for s, _ in points],
                                smoothed([y for _, y in points], window), strict=True))
                 for name, points in lines.items()}
        lines["v1's ceiling"] = [(s, race[reading]["ceiling"]) for s, _ in lines["v1"]]
        charts[f"rubric_race_{reading}.svg"] = lines_svg(
            lines, y_label="yardstick (win rate)", x_label="step", whole_x=True,
            title=f"The yardstick on {label} (a centred mean of {window}), "
                  f"mean of {len(found)} seeds")
    charts["rubric_race_tokens.svg"] = lines_svg({
        "v1": [(s["step"], s["tokens"]) for s in v1["steps"]],
        "v2": [(s["step"], s["tokens"]) for s in v2["steps"]],
    }, y_label="completion tokens", x_label="step", whole_x=True,
        title=f"Code length (mean completion tokens), mean of {len(found)} seeds")
    Path(folder).mkdir(parents=True, exist_ok=True)
    written = []
    for name, svg in charts.items():
        path = Path(folder) / name
        path.write_text(str(svg) + "\n")
        written.append(str(path))
    return written


def runs_read(args: argparse.Namespace) -> dict:
    """The race of runs trained already (--runs), read as a race of this
    script's own: pairs by seed, v2 and v1 at our scale."""
    from training.models import TrainingRun
    from training.reward.kinds import LENGTH

    runs = list(TrainingRun.objects.filter(pk__in=args.runs).order_by("pk"))
    if len(runs) != len(set(args.runs)):
        found = {run.pk for run in runs}
        raise SystemExit(f"no run {', '.join(str(i) for i in args.runs if i not in found)} "
                         "in that database")
    first = runs[0]
    ramp = next((signal.get("params", {}).get("target_tokens") for run in runs
                 for signal in run.rubric.signals if signal.get("kind") == LENGTH
                 and signal.get("params", {}).get("mode") == "ramp"), None)
    return {"settings": {"seeds": sorted({run.seed for run in runs}), "steps": first.max_steps,
                         "probe": first.probe_every, "generations": first.num_generations,
                         "prompts_per_step": first.prompts_per_step,
                         "lr": first.learning_rate, "max_tokens": first.max_completion_length,
                         "world": None},
            "ramp_target": ramp, "runs": [run_measure(run) for run in runs]}


def main() -> None:
    args = arguments()
    if args.report:
        results = json.loads(Path(args.report).read_text())
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")
        import django

        django.setup()
        if args.charts:
            results["charts"] = charts_write(results, args.charts)
        print_report(results)
        return
    with grpo_bench.world(args, yardstick=True, gold=args.gold):
        results = runs_read(args) if args.runs else race(args)
        if args.charts:
            results["charts"] = charts_write(results, args.charts)
        keep(args, results)
        print_report(results)

if __name__ == "__main__":
    main()
