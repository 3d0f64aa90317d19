"""Do group-shared references make GRPO's advantages more faithful?

A pairwise reward is a win fraction against k references drawn from the
pool. Drawn per rollout, a rollout that met an easy reference beats its
group-mates by luck; drawn once per group (training.reward.inputs.SignalInput.
group: what runs do), every rollout of a group faces the same references and
the draw's difficulty cancels in the advantage (reward less its group's mean).

This measures it on stored renders, with the real signal code
(training.reward.scoring.signals_compute, the v2 preset's pairwise signal)
and the local judge: groups of `--size` ok renders of one subject (as a
step's rollouts of one prompt), each scored `--draws` times with fresh
references, once shared per group and once per rollout. The truth a draw is
held against is each render's expected win fraction, the mean over
`--truth` draws. It prints, for both ways, the mean correlation of a draw's
advantages with the true advantages, and how often the draw's best rollout
is the true best. It asserts nothing.

    .venv/bin/python benchmarks/reference_noise.py [--world 160] [--size 8]
        [--groups 24] [--draws 20] [--truth 200]

It builds a throwaway world as grpo_bench.py does (or uses --database).
"""
# ruff: noqa: E402  (Django is set up before the project's imports)
from __future__ import annotations

import argparse
import random
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import grpo_bench


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database", help="a database URL with a reward model and snapshot")
    parser.add_argument("--media", help="its MEDIA_ROOT (with --database)")
    parser.add_argument("--world", type=int, default=160)
    parser.add_argument("--size", type=int, default=8, help="rollouts a group")
    parser.add_argument("--groups", type=int, default=24)
    parser.add_argument("--draws", type=int, default=20, help="scorings compared with the truth")
    parser.add_argument("--truth", type=int, default=200, help="draws averaged into the truth")
    return parser.parse_args()


def groups_choose(size: int, count: int) -> list[list]:
    """`count` groups of `size` ok renders of one subject each, given the
    first one's prompt (a step's rollouts share theirs); a render may be in
    several groups, never twice in one."""
    from dataclasses import replace

    from pool.subjects import subject_of_prompt
    from sketches.models import Render
    from training.reward.inputs import rollout_from_render

    by_subject: dict[str, list] = {}
    for render in Render.objects.filter(status=Render.Status.OK).select_related("sketch"):
        by_subject.setdefault(subject_of_prompt(render.sketch.prompt), []).append(render)
    subjects = sorted(s for s, renders in by_subject.items() if len(renders) >= size)
    if not subjects:
        raise SystemExit(f"no subject has {size} ok renders: build a larger --world")
    rng = random.Random(0)
    groups = []
    for _ in range(count):
        rollouts = [rollout_from_render(r)
                    for r in rng.sample(by_subject[rng.choice(subjects)], size)]
        groups.append([replace(r, prompt=rollouts[0].prompt) for r in rollouts])
    return groups


def scored(rollouts, spec, context, *, seed: int, shared: bool) -> list[float]:
    from dataclasses import replace

    from training.reward.scoring import signals_compute

    context.seed = seed
    batch = [replace(r, group="group" if shared else "", key=f"{r.key}:{i}")
             for i, r in enumerate(rollouts)]
    return [row[spec.key] for row in signals_compute([spec], batch, context)]


def measure(args: argparse.Namespace) -> None:
    import numpy as np

    from pool.models import PoolSnapshot
    from training.diagnostics import pearson
    from training.models import Judge
    from training.presets import LOCAL_JUDGE
    from training.reward.advantages import grpo_advantages
    from training.reward.kinds import PAIRWISE
    from training.reward.rubric import PRESETS, signal_specs
    from training.reward.scoring import signal_context_for

    spec = next(s for s in signal_specs(PRESETS["v2"]["signals"]) if s.kind == PAIRWISE)
    local = Judge.objects.get(name=LOCAL_JUDGE)
    snapshot = PoolSnapshot.objects.order_by("-created").first()
    context = signal_context_for(judge=local, scorer=local, snapshot=snapshot)
    groups = groups_choose(args.size, args.groups)
    print(f"{len(groups)} groups of {args.size} ok renders, pairwise k={spec.params['k']} "
          f"against snapshot {snapshot.name!r} ({snapshot.counts.get('total', 0)} members); "
          f"truth: the mean of {args.truth} draws")
    results = {True: {"r": [], "best": []}, False: {"r": [], "best": []}}
    labels = [0] * args.size
    for g, rollouts in enumerate(groups):
        truth = np.mean([scored(rollouts, spec, context, seed=f"truth:{g}:{d}", shared=False)
                         for d in range(args.truth)], axis=0)
        true_adv = grpo_advantages(list(truth), labels)
        for shared in (True, False):
            for d in range(args.draws):
                values = scored(rollouts, spec, context, seed=f"draw:{g}:{d}", shared=shared)
                advantages = grpo_advantages(values, labels)
                r = pearson(advantages, true_adv)
                if r is not None:
                    results[shared]["r"].append(r)
                results[shared]["best"].append(
                    float(np.argmax(values) == np.argmax(truth)))
    for shared, name in ((True, "shared by the group (runs)"), (False, "drawn per rollout")):
        r, best = results[shared]["r"], results[shared]["best"]
        print(f"references {name:28}: advantages' correlation with the truth mean "
              f"{statistics.fmean(r):.3f} (median {statistics.median(r):.3f}, "
              f"{len(r)} draws); the true best rollout ranked best in "
              f"{statistics.fmean(best):.0%}")


def main() -> None:
    args = arguments()
    with grpo_bench.world(args, yardstick=False):
        measure(args)

if __name__ == "__main__":
    main()
