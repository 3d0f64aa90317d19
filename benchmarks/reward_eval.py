"""Reward-model evaluation: on a graded set, is the small CNN a better judge
of taste than simple baselines, and how does it grow with the number of
grades?

Held-out pairwise accuracy (of two test renders with different grades, how
often the better one scores higher; 0.5 is chance) for:
- paint fraction alone (its sign chosen on the training renders);
- a pairwise logistic regression (Bradley-Terry, linear) on colour and edge
  statistics (mean/spread of RGB and saturation, colourfulness, distinct
  colours, edge density and strength, paint coverage);
- the reward model (pool.reward, the production defaults);
and a learning curve over the number of training grades (100, 200, 400, 800,
all). The split is the production one (by sketch; test 20 %, validation
15 %, used only for the CNN's early stopping); every method is scored on the
same test renders.

Grades:
- `--source simulated` (default): the procedural corpus in `--corpus DIR`
  (made by benchmarks/reward_corpus.py) graded by the simulated curator's
  rule (pool/reward/simulated.py: painter tier -> grade, 10 % flipped one
  step). Its "tier ceiling" row is the accuracy of the painter tier itself
  against those flipped grades: what a perfect tier detector would reach.
- `--source human`: people's grades from the database (DATABASE_URL), the
  renders' PNGs under MEDIA_ROOT.

    .venv/bin/python benchmarks/reward_eval.py --corpus /tmp/paintrl-reward-corpus
    .venv/bin/python benchmarks/reward_eval.py --source human
"""
# ruff: noqa: E402  (Django is set up before the project's imports)
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")

import django

django.setup()

import numpy as np
import torch

from pool.reward.config import TrainConfig
from pool.reward.data import TEST, TRAIN, VALIDATION, GradedItem, GradedSet, graded_set_from_db
from pool.reward.features import load_images
from pool.reward.metrics import calibration, grade_distributions, pairwise_accuracy
from pool.reward.simulated import TIER_GRADES, simulated_grade
from pool.reward.train import fit, new_scorer
from sketches.models import code_hash
from sketches.painter import paint

ORDINAL = {"nope": 0, "okay": 1, "love": 2}
# Statistics are computed at this side: enough for edges of brush strokes,
# cheap to decode (the corpus renders at 128-400 px).
STATS_SIZE = 128


def corpus_graded_set(corpus: Path, *, seed: int, flip_probability: float):
    """The corpus graded by the simulated curator, and each render's tier ordinal."""
    rows = [json.loads(line) for line in (corpus / "manifest.jsonl").read_text().splitlines()
            if line.strip()]
    items, tiers = [], []
    for row in sorted(rows, key=lambda r: r["seed"]):
        if row["status"] != "ok" or not row["png"]:
            continue
        meta = row["meta"]
        # The same key the database's simulated grades use: code hash and render seed.
        sha = code_hash(paint(meta["seed"], size=meta["size"]).code)
        grade = simulated_grade(meta, key=f"{sha}:{row['seed']}", seed=seed,
                                flip_probability=flip_probability)
        items.append(GradedItem(key=str(row["seed"]), group=sha,
                                png=str(corpus / row["png"]), grade=ORDINAL[grade],
                                paint_fraction=row["paint_fraction"]))
        tiers.append(ORDINAL[TIER_GRADES[meta["quality"]]])
    return GradedSet(items=tuple(items), sources=("simulated",)), np.array(tiers, float)


def image_statistics(images: torch.Tensor) -> np.ndarray:
    """Colour and edge statistics per image (N, 3, S, S uint8) -> (N, F)."""
    x = images.float() / 255.0
    r, g, b = x[:, 0], x[:, 1], x[:, 2]
    top, bottom = x.amax(1), x.amin(1)
    saturation = (top - bottom) / top.clamp_min(1e-3)
    rg, yb = r - g, 0.5 * (r + g) - b
    colourfulness = (torch.sqrt(rg.flatten(1).std(1) ** 2 + yb.flatten(1).std(1) ** 2)
                     + 0.3 * torch.sqrt(rg.flatten(1).mean(1) ** 2 + yb.flatten(1).mean(1) ** 2))
    grey = x.mean(1)
    dx = (grey[:, :, 1:] - grey[:, :, :-1]).abs()
    dy = (grey[:, 1:, :] - grey[:, :-1, :]).abs()
    edges = torch.cat([dx.flatten(1), dy.flatten(1)], 1)
    paper = grey.flatten(1).quantile(0.9, dim=1, keepdim=True)
    painted = ((paper - grey.flatten(1)) > 0.08).float().mean(1)
    quantised = (images // 32).long()
    codes = (quantised[:, 0] * 64 + quantised[:, 1] * 8 + quantised[:, 2]).flatten(1)
    distinct = torch.tensor([float(len(torch.unique(c))) for c in codes])
    columns = [x.mean((2, 3)), x.std((2, 3)), saturation.flatten(1).mean(1, keepdim=True),
               saturation.flatten(1).std(1, keepdim=True), colourfulness[:, None],
               distinct[:, None] / 64.0, edges.mean(1, keepdim=True),
               (edges > 0.1).float().mean(1, keepdim=True),
               edges.quantile(0.99, dim=1, keepdim=True), painted[:, None]]
    return torch.cat(columns, 1).numpy()


def fit_pairwise_logistic(features: np.ndarray, grades: np.ndarray,
                          l2: float = 1e-2) -> np.ndarray:
    """Weights w of P(a beats b) = sigmoid(w . (x_a - x_b)), fitted by L-BFGS
    on every pair with different grades (standardised features)."""
    x = torch.tensor(features, dtype=torch.float64)
    y = torch.tensor(grades)
    better = y[:, None] > y[None, :]
    weights = torch.zeros(x.shape[1], dtype=torch.float64, requires_grad=True)
    optimiser = torch.optim.LBFGS([weights], max_iter=200, line_search_fn="strong_wolfe")

    def closure():
        optimiser.zero_grad()
        scores = x @ weights
        margins = (scores[:, None] - scores[None, :])[better]
        loss = torch.nn.functional.softplus(-margins).mean() + l2 * (weights ** 2).sum()
        loss.backward()
        return loss

    optimiser.step(closure)
    return weights.detach().numpy()


def evaluate_at(n: int | None, order: np.ndarray, parts: dict, data: dict,
                config: TrainConfig) -> dict:
    """Every method trained on the first `n` training renders (None: all)."""
    train = order if n is None else order[:n]
    test, validation = parts[TEST], parts[VALIDATION]
    grades = data["grades"]
    out = {"n": len(train)}
    # Paint fraction, its direction read from the training renders.
    paint_scores = data["paint"]
    sign = 1.0 if pairwise_accuracy(paint_scores[train], grades[train]) >= 0.5 else -1.0
    out["paint fraction"] = pairwise_accuracy(sign * paint_scores[test], grades[test])
    # Logistic regression on statistics, standardised on the training renders.
    stats = data["stats"]
    mean, std = stats[train].mean(0), stats[train].std(0) + 1e-6
    weights = fit_pairwise_logistic((stats[train] - mean) / std, grades[train])
    out["logistic regression"] = pairwise_accuracy(((stats[test] - mean) / std) @ weights,
                                                   grades[test])
    # The reward model.
    images, tensor_grades = data["images"], torch.tensor(grades, dtype=torch.float32)
    started = time.perf_counter()
    scorer = new_scorer(config)
    result = fit(scorer, train_images=images[train], train_grades=tensor_grades[train],
                 validation_images=images[validation],
                 validation_grades=tensor_grades[validation], config=config)
    scores = scorer.score(images[test]).numpy()
    out["reward model"] = pairwise_accuracy(scores, grades[test])
    out["cnn_seconds"] = time.perf_counter() - started
    out["cnn_epochs"] = f"{result.best_epoch}/{result.epochs_run}"
    out["cnn_scores"] = scores
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", choices=("simulated", "human"), default="simulated")
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/paintrl-reward-corpus"),
                        help="folder from benchmarks/reward_corpus.py (simulated source)")
    parser.add_argument("--flip-probability", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sizes", default="100,200,400,800,all",
                        help="training grades per learning-curve point")
    parser.add_argument("--image-size", type=int, default=TrainConfig.image_size)
    parser.add_argument("--max-epochs", type=int, default=TrainConfig.max_epochs)
    parser.add_argument("--repeats", type=int, default=1,
                        help="repeat each point with other subsets and seeds")
    args = parser.parse_args()
    config = TrainConfig(image_size=args.image_size, max_epochs=args.max_epochs, seed=args.seed)
    torch.set_num_threads(1)  # see pool/reward/train.py, DEFAULT_THREADS

    tiers = None
    if args.source == "simulated":
        graded, tiers = corpus_graded_set(args.corpus, seed=args.seed,
                                          flip_probability=args.flip_probability)
        origin = (f"procedural corpus {args.corpus} graded by the SIMULATED curator "
                  f"(flip probability {args.flip_probability})")
    else:
        graded = graded_set_from_db(sources="human", split_config=config.split_config())
        origin = "human grades from the database"
    parts = {name: np.array(ix) for name, ix in graded.check_trainable().items()}
    grades = graded.grades().astype(float)
    print(f"grades: {origin}")
    print(f"renders: {len(graded.items)}; train {len(parts[TRAIN])}, validation "
          f"{len(parts[VALIDATION])}, test {len(parts[TEST])} (split by sketch); "
          f"grades {dict(Counter(item.grade_name for item in graded.items))}")
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")

    started = time.perf_counter()
    paths = [item.png for item in graded.items]
    data = {"grades": grades,
            "paint": np.array([item.paint_fraction or 0.0 for item in graded.items]),
            "images": load_images(paths, config.image_size),
            "stats": image_statistics(load_images(paths, STATS_SIZE))}
    print(f"decoded and measured in {time.perf_counter() - started:.1f} s\n")

    sizes = [None if s == "all" else int(s) for s in args.sizes.split(",")]
    sizes = [s for s in sizes if s is None or s < len(parts[TRAIN])]
    # Each repeat draws its own subsets (nested: 100 of the 200...) and CNN seed.
    runs = []
    for repeat in range(args.repeats):
        order = np.random.default_rng(args.seed + repeat).permutation(parts[TRAIN])
        seeded = TrainConfig(**{**config.to_dict(), "seed": args.seed + repeat})
        runs.append([evaluate_at(n, order, parts, data, seeded) for n in sizes])
        print(f"repeat {repeat + 1}/{args.repeats} done", flush=True)

    methods = ["paint fraction", "logistic regression", "reward model"]
    test = parts[TEST]
    print(f"\nHeld-out pairwise accuracy ({len(test)} test renders, "
          f"{int((grades[test][:, None] > grades[test][None, :]).sum())} pairs); 0.5 is chance; "
          f"mean of {args.repeats} repeat(s)" + (" [min-max]" if args.repeats > 1 else ""))
    print(f"{'training grades':>16} " + " ".join(f"{m:>22}" for m in methods)
          + f" {'cnn s':>7} {'epochs':>7}")
    for point in zip(*runs, strict=True):
        cells = []
        for method in methods:
            values = [row[method] for row in point]
            spread = f" [{min(values):.3f}-{max(values):.3f}]" if len(values) > 1 else ""
            cells.append(f"{np.mean(values):.3f}{spread}")
        seconds = np.mean([row["cnn_seconds"] for row in point])
        print(f"{point[0]['n']:>16} " + " ".join(f"{c:>22}" for c in cells)
              + f" {seconds:>7.1f} {point[0]['cnn_epochs']:>7}")
    if tiers is not None:
        print(f"{'tier ceiling':>16} {pairwise_accuracy(tiers[test], grades[test]):>22.3f}"
              "  (the painter tier itself as the score)")

    last = runs[0][-1]
    print("\nReward model (first repeat), all training grades: scores per grade on the test "
          "split")
    for name, row in grade_distributions(last["cnn_scores"], grades[test]).items():
        print(f"  {name:5} n={row['n']:4d} mean {row['mean']:+.2f}  q10 {row['q10']:+.2f}  "
              f"median {row['median']:+.2f}  q90 {row['q90']:+.2f}")
    result = calibration(last["cnn_scores"], grades[test], bins=5)
    print(f"calibration (P(a beats b) = sigmoid(score difference)), ECE {result['ece']:.3f}:")
    for b in result["bins"]:
        print(f"  predicted {b['from']:.1f}-{b['to']:.1f}: {b['pairs']:6d} pairs, "
              f"mean {b['predicted']:.3f}, observed {b['observed']:.3f}")


if __name__ == "__main__":
    main()
