"""Reward benchmark: how much does scoring a GRPO batch (every rubric v2
signal, the local reward-model judge) add on top of rendering it, against
the target of at most 15 % on this machine?

The batch is 64 rollouts, 8 prompts x 8 generations, as one GRPO step sees
them: 8 painter subjects, 8 seeds each; the first sketch's prompt is the
group's prompt for all 8 (generations share a prompt). Timed, per round:

  (A) render only     the 64 codes submitted to the pool from one thread per
                      browser (as render_bench does); wall time until the
                      last render is in;
  (B) render + score  the same 64 codes, rendered the same way, while one
                      scoring thread takes renders off a queue as they
                      complete and scores whatever has arrived (up to
                      SCORE_CHUNK at a time) with signals_compute: scoring
                      overlaps rendering; wall time until the last score is in;
  (C) score only      A's 64 outcomes scored after the fact in one
                      signals_compute call; A + C is the sequential way.

Rounds run A, C, B, A, C, B, ... so drift in the machine's load falls on
all three. The verdict (PASS/MISS against 15 %) is on the way training
scores a batch, A + C: the reward function renders the whole batch across
the pool, then scores it (training/runs/rewards.py); overhead =
median(A + C) / median(A) - 1. B shows what overlapping the two would give,
and how noisy a second render of the same batch is on a shared machine.
Each scoring run gets a fresh judge, so no picture's score is remembered
from an earlier run (references included: the first step of a training run,
the worst case); the reward model's weights are loaded once per process, as
in a worker.

Setup, untimed: a throwaway SQLite database and MEDIA_ROOT in a temporary
folder (nothing touches the user's database or media), a RenderPool of
PAINTRL_RENDER_BROWSERS browsers, 12 reference renders (one good-tier painter
sketch per subject, seeds from REFERENCE_SEED_START) frozen as a PoolSnapshot
of "love" members, and an active RewardModel with an UNTRAINED TasteCNN
(default TrainConfig): scoring time does not depend on the weights' values,
so the signal values printed are no measure of taste; only the times count.
One render and one scoring run warm the pool and the model before timing.
It asserts nothing; non-ok renders are counted.

    .venv/bin/python benchmarks/reward_bench.py [--size 256] [--repeats 2]
        [--browsers N] [--keep] [--quick]

--size 256 keeps the run short; the production render size is 400
(PAINTRL_PAINTER_SIZE): --size 400. --quick: 16 rollouts (4 x 4), one round,
a smoke check. Figures depend on the machine (SwiftShader draws on the CPU)
and on whatever else it runs, so the load average is printed before and
after: compare runs on the same machine only.
"""
# ruff: noqa: E402  (Django is set up, against a throwaway database, before the project's imports)
from __future__ import annotations

import argparse
import io
import os
import queue
import shutil
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# Set before Django reads its settings, and unconditionally: the benchmark
# writes a snapshot, members and a reward model, which must never land in
# the user's database or media folder.
WORKDIR = Path(tempfile.mkdtemp(prefix="paintrl-reward-bench-"))
os.environ["DATABASE_URL"] = f"sqlite:///{WORKDIR / 'bench.sqlite3'}"
os.environ["PAINTRL_MEDIA_ROOT"] = str(WORKDIR / "media")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")

import django

django.setup()

import numpy as np
import torch
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection
from PIL import Image

from pool.models import PoolMember, PoolSnapshot, RewardModel, Tier
from pool.reward.conf import torch_threads
from pool.reward.config import TrainConfig
from pool.reward.train import new_scorer
from sketches.conf import renderer_config
from sketches.painter import SUBJECTS, paint
from sketches.renderer import RenderPool
from sketches.rendering import OK, REJECTED, UNAVAILABLE, RenderOutcome, render_text
from training.reward.inputs import SignalContext, rollout_from_outcome
from training.reward.judges.local import LocalRewardModelJudge
from training.reward.rubric import PRESETS, rubric_total, signal_specs
from training.reward.scoring import signals_compute

TARGET_OVERHEAD = 0.15
# Subjects of the batch's groups, ordered so that the first four (--quick)
# already span the painter's four families: drawing cost differs by family.
BATCH_SUBJECTS = ("hibiscus", "hills", "fruit-bowl", "flow-field",
                  "peony", "seascape", "vase", "colour-fields")
BATCH_SEED_START = 1000
# References come from a seed range the batch never uses.
REFERENCE_SEED_START = 50_000
REFERENCE_SEARCH = 200  # seeds tried per subject for a good-tier sketch
# The most renders one signals_compute call takes in (B). The scoring thread
# takes whatever has arrived, so with renders coming one by one it scores
# them one by one; a backlog is taken in chunks so the last score is never
# held back by a long batch.
SCORE_CHUNK = 8
RUBRIC = "v2"


@dataclass(frozen=True)
class Generation:
    """One rollout of the batch: its group's prompt and its own code."""

    key: str
    prompt: str
    code: str
    seed: int  # painter seed, also the render seed
    subject: str
    tier: str


@dataclass
class Scored:
    """A scoring run's result: the values per rollout and where time went."""

    values: list[dict] = field(default_factory=list)
    busy_s: float = 0.0  # time inside signals_compute
    calls: int = 0


@dataclass
class Round:
    load: float
    a_s: float = 0.0
    b_s: float = 0.0
    c_s: float = 0.0
    b_tail_s: float = 0.0  # B: last score in minus last render in
    b_busy_s: float = 0.0
    b_calls: int = 0
    a_outcomes: list[RenderOutcome] = field(default_factory=list)
    b_outcomes: list[RenderOutcome] = field(default_factory=list)
    b_values: list[dict] = field(default_factory=list)
    c_values: list[dict] = field(default_factory=list)


# -- setup (untimed) ---------------------------------------------------------

def batch_paint(groups: int, per_group: int, size: int) -> list[Generation]:
    batch = []
    for g, subject in enumerate(BATCH_SUBJECTS[:groups]):
        seeds = range(BATCH_SEED_START + g * per_group, BATCH_SEED_START + (g + 1) * per_group)
        sketches = [paint(seed, subject=subject, size=size) for seed in seeds]
        prompt = sketches[0].prompt
        batch.extend(Generation(key=f"bench:{subject}:{s.meta['seed']}", prompt=prompt,
                                code=s.code, seed=s.meta["seed"], subject=subject,
                                tier=s.meta["quality"]) for s in sketches)
    return batch


def reference_sketches(size: int) -> list:
    """One sketch per painter subject, the first good-tier seed from
    REFERENCE_SEED_START (the first seed tried where none is good)."""
    chosen = []
    for subject in SUBJECTS:
        tried = (paint(REFERENCE_SEED_START + i, subject=subject, size=size)
                 for i in range(REFERENCE_SEARCH))
        good = next((s for s in tried if s.meta["quality"] == "good"), None)
        chosen.append(good or paint(REFERENCE_SEED_START, subject=subject, size=size))
    return chosen


def snapshot_create(pool: RenderPool, size: int, threads: int) -> PoolSnapshot:
    """Render the references and freeze the ok ones as love members."""
    sketches = reference_sketches(size)
    with ThreadPoolExecutor(max_workers=threads) as workers:
        outcomes = list(workers.map(lambda s: render_text(pool, s.code, s.meta["seed"]),
                                    sketches))
    kept = [(s, o) for s, o in zip(sketches, outcomes, strict=True) if o.status == OK]
    if not kept:
        raise SystemExit("no reference sketch rendered ok: the pairwise signal has nothing to "
                         "compare with; check the renderer (benchmarks/render_bench.py)")
    snapshot = PoolSnapshot.objects.create(
        name="reward-bench", rule={}, note="benchmarks/reward_bench.py references",
        counts={Tier.LOVE: len(kept), Tier.OKAY: 0, "total": len(kept)})
    for sketch, outcome in kept:
        subject = sketch.meta["subject"]
        png = default_storage.save(f"reward_bench/references/{subject}.png",
                                   ContentFile(outcome.png))
        PoolMember.objects.create(snapshot=snapshot, tier=Tier.LOVE, subject=subject,
                                  prompt=sketch.prompt, code=sketch.code,
                                  seed=sketch.meta["seed"], png=png)
    print(f"references: {len(kept)} of {len(sketches)} rendered ok "
          f"({sum(s.meta['quality'] == 'good' for s, _ in kept)} good tier), frozen as snapshot "
          f"{snapshot.name!r}")
    return snapshot


def reward_model_create() -> RewardModel:
    """An active reward model with untrained weights (module docstring)."""
    config = TrainConfig()
    reward_model = RewardModel(version=1, status=RewardModel.Status.DONE, active=True,
                               config=config.to_dict(), metrics={})
    reward_model.weights.save("reward-bench-untrained.pt",
                              ContentFile(new_scorer(config).to_bytes()), save=True)
    return reward_model


# -- the three timed ways ----------------------------------------------------

def rollouts_of(batch: list[Generation], outcomes) -> list:
    return [rollout_from_outcome(key=g.key, prompt=g.prompt, text=g.code, outcome=o)
            for g, o in zip(batch, outcomes, strict=True)]


def context_new(snapshot: PoolSnapshot) -> SignalContext:
    """A fresh judge per run: nothing remembered from the run before."""
    judge = LocalRewardModelJudge()
    return SignalContext(judge=judge, scorer=judge, snapshot=snapshot, seed="reward-bench")


def render_only(pool: RenderPool, batch: list[Generation],
                threads: int) -> tuple[float, list[RenderOutcome]]:
    """(A): wall seconds and the outcomes."""
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as workers:
        outcomes = list(workers.map(lambda g: render_text(pool, g.code, g.seed), batch))
    return time.perf_counter() - start, outcomes


def score_only(specs, batch: list[Generation], outcomes,
               snapshot: PoolSnapshot) -> tuple[float, list[dict]]:
    """(C): one signals_compute call over rendered outcomes."""
    context = context_new(snapshot)
    rollouts = rollouts_of(batch, outcomes)
    start = time.perf_counter()
    values = signals_compute(specs, rollouts, context)
    return time.perf_counter() - start, values


def render_and_score(pool: RenderPool, batch: list[Generation], threads: int, specs,
                     snapshot: PoolSnapshot) -> tuple[float, float, list, Scored]:
    """(B): (wall seconds, seconds from the last render to the last score,
    outcomes, Scored), scoring on one thread as renders complete."""
    context = context_new(snapshot)
    arrived: queue.Queue[tuple[int, Future]] = queue.Queue()
    outcomes: list[RenderOutcome | None] = [None] * len(batch)
    scored = Scored(values=[{} for _ in batch])
    failure: list[BaseException] = []
    last_render = [0.0]

    def on_rendered(index: int, future: Future) -> None:
        last_render[0] = time.perf_counter()
        arrived.put((index, future))

    def score_as_rendered() -> None:
        try:
            remaining = len(batch)
            while remaining:
                chunk = [arrived.get()]
                while len(chunk) < SCORE_CHUNK:
                    try:
                        chunk.append(arrived.get_nowait())
                    except queue.Empty:
                        break
                remaining -= len(chunk)
                indices = [index for index, _ in chunk]
                for index, future in chunk:
                    outcomes[index] = future.result()
                started = time.perf_counter()
                values = signals_compute(specs, rollouts_of([batch[i] for i in indices],
                                                            [outcomes[i] for i in indices]),
                                         context)
                scored.busy_s += time.perf_counter() - started
                scored.calls += 1
                for index, row in zip(indices, values, strict=True):
                    scored.values[index] = row
        except BaseException as exc:  # noqa: BLE001 - re-raised on the main thread
            failure.append(exc)
        finally:
            connection.close()  # this thread's own database connection

    start = time.perf_counter()
    scorer = threading.Thread(target=score_as_rendered, name="reward-bench-scorer")
    scorer.start()
    with ThreadPoolExecutor(max_workers=threads) as workers:
        for index, generation in enumerate(batch):
            future = workers.submit(render_text, pool, generation.code, generation.seed)
            future.add_done_callback(lambda f, i=index: on_rendered(i, f))
    scorer.join()
    wall = time.perf_counter() - start
    if failure:
        raise failure[0]
    return wall, wall - (last_render[0] - start), outcomes, scored


# -- report ------------------------------------------------------------------

def status_counts(outcomes) -> str:
    counts = {s: sum(o.status == s for o in outcomes) for s in (OK, REJECTED, UNAVAILABLE)}
    return "/".join(str(counts[s]) for s in (OK, REJECTED, UNAVAILABLE))


def signal_report(specs, values: list[dict]) -> None:
    print(f"\nrubric {RUBRIC} signal values (last round's C; untrained model: not taste):")
    print(f"  {'signal':12} {'weight':>6} {'mean':>6} {'None':>5}")
    for spec in specs:
        have = [row[spec.key] for row in values if row.get(spec.key) is not None]
        mean = f"{statistics.fmean(have):.3f}" if have else "-"
        print(f"  {spec.name:12} {spec.weight:6.2f} {mean:>6} {len(values) - len(have):5d}")
    totals = [rubric_total(row, specs) for row in values]
    have = [t for t in totals if t is not None]
    mean = f"{statistics.fmean(have):.3f}" if have else "-"
    print(f"  {'total':12} {'':>6} {mean:>6} {len(values) - len(have):5d}")


def pixel_difference(first: bytes, second: bytes) -> float:
    """Mean absolute difference of two renders' RGB pixels, 0-255: the same
    code and seed should paint the same picture (DESIGN.md)."""
    a, b = (np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)
            for png in (first, second))
    return float(np.abs(a - b).mean()) if a.shape == b.shape else 255.0


def largest_difference(first: list[dict], second: list[dict]) -> float | None:
    """Largest |difference| between two runs' values where both have one."""
    gaps = [abs(a[k] - b[k]) for a, b in zip(first, second, strict=True) for k in a
            if a.get(k) is not None and b.get(k) is not None]
    return max(gaps) if gaps else None


def report(rounds: list[Round], specs, n: int, load_before, load_after) -> None:
    print(f"\n{'round':>5} {'load':>5} {'A render s':>10} {'B +score s':>10} {'B/A-1':>7} "
          f"{'C score s':>9} {'A+C s':>7} {'B tail s':>8} {'B busy s':>8} {'calls':>5} "
          f"{'A ok/rej/unav':>13} {'B ok/rej/unav':>13}")
    for i, r in enumerate(rounds, start=1):
        print(f"{i:5d} {r.load:5.2f} {r.a_s:10.2f} {r.b_s:10.2f} {r.b_s / r.a_s - 1:+7.1%} "
              f"{r.c_s:9.2f} {r.a_s + r.c_s:7.2f} {r.b_tail_s:8.2f} {r.b_busy_s:8.2f} "
              f"{r.b_calls:5d} {status_counts(r.a_outcomes):>13} "
              f"{status_counts(r.b_outcomes):>13}")
    a = statistics.median(r.a_s for r in rounds)
    b = statistics.median(r.b_s for r in rounds)
    c = statistics.median(r.c_s for r in rounds)
    sequential = statistics.median(r.a_s + r.c_s for r in rounds)
    print(f"\nmedians over {len(rounds)} round(s), {n} rollouts:")
    print(f"  (A) render only                 {a:7.2f} s  ({n / a:.2f} rollouts/s)")
    print(f"  (B) render + score, pipelined   {b:7.2f} s  ({b / a - 1:+.1%} on A)")
    print(f"  (C) score only, after the fact  {c:7.2f} s  ({1000 * c / n:.0f} ms a rollout)")
    print(f"  A + C, sequential               {sequential:7.2f} s  "
          f"({sequential / a - 1:+.1%} on A)")
    if len(rounds) > 1:
        spread = (max(r.a_s for r in rounds) - min(r.a_s for r in rounds)) / a
        print(f"  A's own spread across rounds: {spread:.1%} of its median (render noise; "
              f"few rounds understate it); C / A = {c / a:.1%} is scoring's own cost")
    print(f"load average (1/5/15 min): before {'/'.join(f'{x:.2f}' for x in load_before)}, "
          f"after {'/'.join(f'{x:.2f}' for x in load_after)}")

    last = rounds[-1]
    pairs = [(x.png, y.png) for x, y in zip(last.a_outcomes, last.b_outcomes, strict=True)
             if x.png and y.png]
    differing = [pixel_difference(x, y) for x, y in pairs if x != y]
    worst = f" (largest mean pixel difference {max(differing):.2g}/255)" if differing else ""
    gap = largest_difference(last.b_values, last.c_values)
    print(f"last round: {len(pairs) - len(differing)} of {len(pairs)} PNGs byte-identical in A "
          f"and B{worst}; largest difference between B's and C's signal values: "
          f"{'-' if gap is None else f'{gap:.2g}'}")
    signal_report(specs, last.c_values)
    for why in sorted({f"{o.status} {o.violations} {o.errors[:1]}" for r in rounds
                       for o in r.a_outcomes + r.b_outcomes if o.status != OK}):
        print(f"  not ok: {why}")

    overhead = sequential / a - 1
    print(f"\n{'PASS' if overhead <= TARGET_OVERHEAD else 'MISS'}  scoring adds {overhead:+.1%} "
          f"to rendering a batch of {n} as training does it (render, then score): median A + C "
          f"{sequential:.2f} s vs median A {a:.2f} s (target <= {TARGET_OVERHEAD:.0%}); "
          f"pipelined, B came to {b / a - 1:+.1%}")


# -- main --------------------------------------------------------------------

def run(args: argparse.Namespace) -> None:
    call_command("migrate", verbosity=0, interactive=False)
    groups, per_group = (4, 4) if args.quick else (8, 8)
    repeats = args.repeats if args.repeats is not None else (1 if args.quick else 2)
    threads = args.browsers
    torch.set_num_threads(torch_threads())
    specs = signal_specs(PRESETS[RUBRIC]["signals"])
    batch = batch_paint(groups, per_group, args.size)
    tiers = {t: sum(g.tier == t for g in batch) for t in ("good", "fair", "bad")}
    load_before = os.getloadavg()

    print(f"machine: {os.cpu_count()} CPUs, load average {load_before[0]:.2f}; "
          f"{threads} browsers, {threads} render threads; torch threads {torch_threads()}")
    print(f"batch: {len(batch)} rollouts = {groups} prompts x {per_group} generations, "
          f"{args.size} px (production: {settings.PAINTRL_PAINTER_SIZE}); painter tiers "
          + ", ".join(f"{t} {c}" for t, c in tiers.items()))
    print(f"rubric {RUBRIC}: " + ", ".join(f"{s.name} {s.weight:.2f}" for s in specs)
          + "; judge: local reward model")
    print("reward model: UNTRAINED TasteCNN (default TrainConfig): scoring time does not depend "
          "on the weights' values, so the times hold and the signal values mean nothing")
    print(f"work folder: {WORKDIR}{' (kept)' if args.keep else ' (removed at the end)'}",
          flush=True)

    config = replace(renderer_config(), browsers=args.browsers)
    with RenderPool(config) as pool:
        snapshot = snapshot_create(pool, args.size, threads)
        reward_model_create()
        # Warm the pool and the model (weights loaded, torch's first call) untimed.
        _, warm = render_only(pool, batch[:1], 1)
        score_only(specs, batch[:1], warm, snapshot)
        rounds = []
        for i in range(repeats):
            print(f"round {i + 1} of {repeats}: A, C, B ...", flush=True)
            r = Round(load=os.getloadavg()[0])
            r.a_s, r.a_outcomes = render_only(pool, batch, threads)
            r.c_s, r.c_values = score_only(specs, batch, r.a_outcomes, snapshot)
            r.b_s, r.b_tail_s, r.b_outcomes, scored = render_and_score(pool, batch, threads,
                                                                       specs, snapshot)
            r.b_busy_s, r.b_calls, r.b_values = scored.busy_s, scored.calls, scored.values
            rounds.append(r)
    report(rounds, specs, len(batch), load_before, os.getloadavg())
    print("\nB tail: seconds from the last render to the last score; B busy: seconds inside "
          "signals_compute during B (its CPU competes with the browsers); calls: how many "
          "signals_compute calls B made")


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256,
                        help="render size in px (default 256; production renders at "
                             "PAINTRL_PAINTER_SIZE, 400: --size 400)")
    parser.add_argument("--repeats", type=int, default=None,
                        help="rounds of A, C, B (default 2; 1 with --quick)")
    parser.add_argument("--browsers", type=int, default=settings.PAINTRL_RENDER_BROWSERS,
                        help="browsers in the pool, and render threads (default "
                             "PAINTRL_RENDER_BROWSERS)")
    parser.add_argument("--keep", action="store_true",
                        help="keep the work folder (database, references, weights)")
    parser.add_argument("--quick", action="store_true",
                        help="16 rollouts (4 prompts x 4), one round: a smoke check")
    args = parser.parse_args()
    if args.repeats is not None and args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main() -> None:
    keep = False
    try:  # the work folder goes even when parsing fails or --help exits
        args = arguments()
        keep = args.keep
        run(args)
    finally:
        if keep:
            print(f"kept {WORKDIR}")
        else:
            shutil.rmtree(WORKDIR, ignore_errors=True)


if __name__ == "__main__":
    main()
