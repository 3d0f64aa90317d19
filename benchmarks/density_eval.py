"""Render density: does rendering at a lower pixel density, for renders that
are only scored (GRPO rollouts: the judges look at 256 px copies, the small
reward model reads 64-96 px), buy speed without hurting the reward model's
held-out accuracy?

How: paints seeds 0..COUNT-1 with the procedural painter (`--size`, 400 px)
and renders each twice, interleaved per sketch (which density goes first
alternates with the seed), in two RenderPools of one browser each, side by
side: once as production renders it (density 1) and once with
`pixelDensity(D);` inserted right after its createCanvas(...) call, which
resizes the backing store (400 px at D = 0.64 gives a 256 x 256 PNG). Each
render is timed (wall time around sketches.rendering.render_text).
Every sketch is graded by the simulated curator's rule (pool/reward/
simulated.py, keyed as benchmarks/reward_eval.py keys it, so the two
renders of a sketch share a grade) and split by sketch with the production
split. The reward model (pool.reward, the production defaults) is trained on
the TRAIN renders at density 1 (curators grade full-density renders; the
validation split, also at density 1, only stops it early) and scores the
TEST sketches twice: their density-1 renders and their density-D renders.
Printed: render wall time per density, per painter tier and overall, and the
count of sketches whose verdict (status, violations) differs between the
densities; then held-out pairwise accuracy at each density with the number
of test renders and pairs, a bootstrap 95 % interval of the accuracy
difference (paired: resampling test sketches, seeded), the Spearman
correlation of the two score vectors and the mean score shift.

Renders are kept in `--out` (default a folder under the temp dir), one
reward_corpus.py-style folder per density (`density-1/`, `density-D/`:
PNGs + manifest.jsonl); seeds already there are not rendered again, so the
evaluation can be rerun, or a run continued, without re-rendering (the speed
figures then include timings from the earlier run). `density-1/` is also a
corpus that benchmarks/reward_eval.py can read.

    .venv/bin/python benchmarks/density_eval.py [--count 480] [--size 400] \
        [--density 0.64] [--out DIR] [--seed 0]
"""
# ruff: noqa: E402  (Django is set up before the project's imports)
from __future__ import annotations

import argparse
import json
import os
import struct
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")

import django

django.setup()

import numpy as np
import torch
from reward_corpus import MANIFEST, done_seeds
from reward_eval import corpus_graded_set

from pool.reward.config import TrainConfig
from pool.reward.data import TEST, TRAIN, VALIDATION, GradedSet, ordered_pairs
from pool.reward.features import load_images
from pool.reward.metrics import pairwise_accuracy
from pool.reward.simulated import FLIP_PROBABILITY
from pool.reward.train import DEFAULT_THREADS, fit, new_scorer
from sketches.painter import paint
from sketches.renderer import RendererConfig, RenderPool
from sketches.rendering import OK, render_text

TIERS = ("good", "fair", "bad")
BOOTSTRAP_SAMPLES = 2000


def with_density(code: str, density: float) -> str:
    """`code` with pixelDensity(density) called right after createCanvas.

    A plain string replace of the first "WEBGL);": enough for the procedural
    painter, whose setup() is `createCanvas(size, size, WEBGL);` and has no
    other "WEBGL);" before it; not a general way to edit any sketch."""
    marker = "WEBGL);"
    if marker not in code:
        raise ValueError("no `createCanvas(..., WEBGL);` in the sketch to add pixelDensity after")
    return code.replace(marker, f"{marker}\n  pixelDensity({density:g});", 1)


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    return struct.unpack(">II", png[16:24])


def render_one(pool: RenderPool, seed: int, size: int, density: float, folder: Path) -> dict:
    """Render one seed at `density` into `folder`: a reward_corpus.py manifest
    row, plus the wall time, verdict and PNG size."""
    sketch = paint(seed, size=size)
    # Density 1 is what production renders (p5's default here, ceil(devicePixelRatio)
    # = 1): the code is left as it is.
    code = sketch.code if density == 1 else with_density(sketch.code, density)
    started = time.perf_counter()
    outcome = render_text(pool, code, seed)
    wall_s = time.perf_counter() - started
    png, pixels = "", None
    if outcome.status == OK and outcome.png:
        png = f"{seed:05d}.png"
        (folder / png).write_bytes(outcome.png)
        pixels = list(png_size(outcome.png))
    return {"seed": seed, "png": png, "prompt": sketch.prompt, "meta": sketch.meta,
            "status": outcome.status, "violations": list(outcome.violations),
            "paint_fraction": outcome.paint_fraction, "elapsed_ms": outcome.elapsed_ms,
            "draw_ms": outcome.draw_ms, "wall_s": wall_s, "density": density,
            "png_size": pixels}


def render_all(seeds: list[int], size: int, densities: tuple[float, float],
               folders: dict[float, Path]) -> None:
    """Render the seeds missing from either folder, interleaved per sketch,
    one pool per density (each pool's browser stays warm on its own density)."""
    missing = {d: set(seeds) - done_seeds(folders[d]) for d in densities}
    todo = [s for s in seeds if any(s in missing[d] for d in densities)]
    print(f"{len(todo)} of {len(seeds)} sketches to render at {size} px, densities "
          f"{' and '.join(f'{d:g}' for d in densities)}, one browser each; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}", flush=True)
    if not todo:
        return
    config = RendererConfig(browsers=1)
    started = time.perf_counter()
    with RenderPool(config) as full, RenderPool(config) as low:
        pools = {densities[0]: full, densities[1]: low}
        for done, seed in enumerate(todo, 1):
            # Alternate which density goes first, so neither always renders
            # right after the other (caches, CPU frequency, the other pool).
            order = densities if seed % 2 == 0 else densities[::-1]
            for density in order:
                if seed not in missing[density]:
                    continue
                row = render_one(pools[density], seed, size, density, folders[density])
                with (folders[density] / MANIFEST).open("a") as manifest:
                    manifest.write(json.dumps(row) + "\n")
            if done % 25 == 0 or done == len(todo):
                rate = done / (time.perf_counter() - started)
                print(f"{done}/{len(todo)} sketches ({rate:.2f}/s)", flush=True)
    print(f"rendered in {time.perf_counter() - started:.0f} s", flush=True)


def manifest_rows(folder: Path, seeds: set[int]) -> dict[int, dict]:
    rows = {}
    for line in (folder / MANIFEST).read_text().splitlines():
        if line.strip():
            row = json.loads(line)
            if row["seed"] in seeds:
                rows[row["seed"]] = row
    return rows


def verdict(row: dict) -> str:
    violations = row.get("violations") or []
    return row["status"] + (f" ({', '.join(violations)})" if violations else "")


def print_speed(rows: dict[float, dict[int, dict]], densities: tuple[float, float]) -> None:
    full, low = densities
    seeds = sorted(set(rows[full]) & set(rows[low]))
    tiers = {s: rows[full][s]["meta"]["quality"] for s in seeds}
    print(f"\nRender wall time (render_text), {len(seeds)} sketches rendered at both densities")
    print(f"{'tier':>8} {'sketches':>9} {f'd={full:g} s':>10} {f'd={low:g} s':>10} "
          f"{'ratio':>7} {'speed-up':>9} {'median ratio':>13} {'verdict differs':>16}")
    for tier in (*TIERS, "all"):
        chosen = [s for s in seeds if tier in ("all", tiers[s])]
        if not chosen:
            continue
        a = np.array([rows[full][s]["wall_s"] for s in chosen])
        b = np.array([rows[low][s]["wall_s"] for s in chosen])
        differs = sum(verdict(rows[full][s]) != verdict(rows[low][s]) for s in chosen)
        print(f"{tier:>8} {len(chosen):>9} {a.sum():>10.1f} {b.sum():>10.1f} "
              f"{b.sum() / a.sum():>7.3f} {a.sum() / b.sum():>8.2f}x "
              f"{np.median(b / a):>13.3f} {differs:>16}")
    changes = Counter(f"{verdict(rows[full][s])} -> {verdict(rows[low][s])}" for s in seeds
                      if verdict(rows[full][s]) != verdict(rows[low][s]))
    for change, n in changes.most_common():
        print(f"  verdict d={full:g} -> d={low:g}: {change}: {n}")
    for density in densities:
        sizes = Counter("x".join(map(str, rows[density][s]["png_size"])) for s in seeds
                        if rows[density][s].get("png_size"))
        print(f"  PNG sizes at d={density:g}: {dict(sizes)}")


def ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 0, ties given their mean rank."""
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return (np.cumsum(counts) - (counts + 1) / 2.0)[inverse]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(ranks(a), ranks(b))[0, 1])


def bootstrap_difference(full: np.ndarray, low: np.ndarray, grades: np.ndarray,
                         groups: list[str], seed: int) -> tuple[float, float, float]:
    """95 % interval of accuracy(low) - accuracy(full), resampling sketches
    (groups) with replacement; also the share of resamples below zero."""
    members: dict[str, list[int]] = {}
    for index, group in enumerate(groups):
        members.setdefault(group, []).append(index)
    blocks = list(members.values())
    rng = np.random.default_rng(seed)
    differences = []
    for _ in range(BOOTSTRAP_SAMPLES):
        chosen = np.concatenate([blocks[i] for i in rng.integers(0, len(blocks), len(blocks))])
        difference = (pairwise_accuracy(low[chosen], grades[chosen])
                      - pairwise_accuracy(full[chosen], grades[chosen]))
        if not np.isnan(difference):
            differences.append(difference)
    if not differences:
        return float("nan"), float("nan"), float("nan")
    values = np.array(differences)
    low_end, high_end = np.percentile(values, [2.5, 97.5])
    return float(low_end), float(high_end), float((values < 0).mean())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=480)
    parser.add_argument("--size", type=int, default=400, help="the painter's canvas side")
    parser.add_argument("--density", type=float, default=0.64)
    parser.add_argument("--out", type=Path, default=None,
                        help="render folder (default: paintrl-density-eval-SIZEpx in the "
                             "temp dir)")
    parser.add_argument("--seed", type=int, default=0,
                        help="simulated grades' flips, the reward model's seed, the bootstrap")
    args = parser.parse_args()
    if not 0 < args.density < 1:
        parser.error(f"--density must be between 0 and 1 (exclusive), got {args.density}")
    out = args.out or Path(tempfile.gettempdir()) / f"paintrl-density-eval-{args.size}px"
    densities = (1.0, args.density)
    folders = {d: out / f"density-{d:g}" for d in densities}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    seeds = list(range(args.count))
    print(f"renders: {out}")
    render_all(seeds, args.size, densities, folders)
    rows = {d: manifest_rows(folders[d], set(seeds)) for d in densities}
    print_speed(rows, densities)

    # Grades and split: the density-1 folder is a reward corpus; both
    # folders grade alike (the key is the painter's code hash and seed).
    graded = {}
    for density in densities:
        graded_set, _ = corpus_graded_set(folders[density], seed=args.seed,
                                          flip_probability=FLIP_PROBABILITY)
        graded[density] = {item.key: item for item in graded_set.items
                           if int(item.key) in rows[density]}
    keys = sorted(set(graded[1.0]) & set(graded[args.density]), key=int)
    dropped = len(seeds) - len(keys)
    config = TrainConfig(seed=args.seed)
    full_set = GradedSet(items=tuple(graded[1.0][k] for k in keys), sources=("simulated",),
                         split_config=config.split_config())
    low_items = [graded[args.density][k] for k in keys]
    assert all(a.grade == b.grade and a.group == b.group
               for a, b in zip(full_set.items, low_items, strict=True))
    print(f"\ngrades: the SIMULATED curator (flip probability {FLIP_PROBABILITY}, seed "
          f"{args.seed}) on {len(keys)} sketches rendered ok at both densities "
          f"({dropped} left out); {dict(Counter(i.grade_name for i in full_set.items))}")
    try:
        parts = {name: np.array(ix) for name, ix in full_set.check_trainable().items()}
    except ValueError as exc:
        print(f"cannot evaluate the reward model: {exc}")
        sys.exit(1)
    print(f"split (production, by sketch): train {len(parts[TRAIN])}, validation "
          f"{len(parts[VALIDATION])}, test {len(parts[TEST])}")

    torch.set_num_threads(DEFAULT_THREADS)
    started = time.perf_counter()
    images = load_images([item.png for item in full_set.items], config.image_size)
    grades = torch.from_numpy(full_set.grades())
    scorer = new_scorer(config)
    result = fit(scorer, train_images=images[parts[TRAIN]], train_grades=grades[parts[TRAIN]],
                 validation_images=images[parts[VALIDATION]],
                 validation_grades=grades[parts[VALIDATION]], config=config)
    print(f"reward model (production defaults, {config.image_size} px) trained on the "
          f"density-1 train renders in {time.perf_counter() - started:.1f} s, best epoch "
          f"{result.best_epoch}/{result.epochs_run} ({result.stopped_by})")

    test = parts[TEST]
    test_grades = grades[test].numpy().astype(float)
    scores_full = scorer.score(images[test]).numpy().astype(float)
    scores_low = scorer.score(load_images([low_items[i].png for i in test],
                                          config.image_size)).numpy().astype(float)
    accuracy_full = pairwise_accuracy(scores_full, test_grades)
    accuracy_low = pairwise_accuracy(scores_low, test_grades)
    groups = [full_set.items[i].group for i in test]
    low_end, high_end, below = bootstrap_difference(scores_full, scores_low, test_grades,
                                                    groups, args.seed)
    shift = scores_low - scores_full
    print(f"\nHeld-out pairwise accuracy, the same model, {len(test)} test renders per density "
          f"({len(set(groups))} sketches), {len(ordered_pairs(test_grades))} pairs; 0.5 is "
          "chance")
    print(f"  density 1    {accuracy_full:.3f}")
    print(f"  density {args.density:<4g} {accuracy_low:.3f}")
    print(f"  difference (d={args.density:g} minus d=1) {accuracy_low - accuracy_full:+.3f}, "
          f"bootstrap 95 % interval [{low_end:+.3f}, {high_end:+.3f}] ({BOOTSTRAP_SAMPLES} "
          f"resamples of test sketches, seed {args.seed}; {below:.0%} below zero)")
    rho = spearman(scores_full, scores_low)
    print(f"  Spearman correlation of the two score vectors {rho:.3f}; "
          f"score shift (d={args.density:g} minus d=1) mean {shift.mean():+.3g}, "
          f"sd {shift.std():.3g} (score sd at d=1 {scores_full.std():.3g})")


if __name__ == "__main__":
    main()
