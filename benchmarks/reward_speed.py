"""Reward-model speed: how long does training on 1,664 graded renders take,
and how many renders per second does batched scoring reach, against the
targets (<= 120 s; >= 100 renders/s) on this machine?

Training: the production defaults (pool.reward.config.TrainConfig) on N
renders split as in production, timed from cold PNG files (decoding
included). Two figures: every one of max_epochs epochs run (early stopping
off: the worst case) and, where the grades carry signal (a corpus), the
real run with early stopping.
Scoring: decode + score in batches of SCORE_BATCH from cold files (no decode
cache), as pool.reward.scoring does; the database write (one bulk update per
batch) is not included.

Images: `--corpus DIR` (benchmarks/reward_corpus.py) when it holds N renders,
graded by the simulated curator; otherwise N synthetic PNGs at the real
render size (PAINTRL_PAINTER_SIZE, 400 px) with random grades, which are
good for timing only (the output says which was used).

    .venv/bin/python benchmarks/reward_speed.py [--corpus DIR] [--count 1664]
"""
# ruff: noqa: E402  (Django is set up before the project's imports)
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")

import django

django.setup()

import numpy as np
import torch
from django.conf import settings
from PIL import Image, ImageDraw

from pool.reward import features
from pool.reward.config import TrainConfig
from pool.reward.data import TEST, TRAIN, VALIDATION, GradedItem, GradedSet
from pool.reward.scoring import SCORE_BATCH
from pool.reward.train import DEFAULT_THREADS, fit, new_scorer

TRAIN_TARGET_S = 120.0
SCORE_TARGET_PER_S = 100.0


def synthetic_pngs(folder: Path, count: int, size: int) -> list[GradedItem]:
    """Painting-like PNGs (washes and strokes on paper) at the render size."""
    rng = random.Random(0)
    items = []
    for index in range(count):
        image = Image.new("RGB", (size, size), (248, 244, 236))
        draw = ImageDraw.Draw(image)
        for _ in range(rng.randint(5, 40)):
            colour = tuple(rng.randint(0, 255) for _ in range(3))
            x, y = rng.randint(0, size), rng.randint(0, size)
            if rng.random() < 0.5:
                r = rng.randint(5, size // 4)
                draw.ellipse([x - r, y - r, x + r, y + r], fill=colour)
            else:
                draw.line([x, y, rng.randint(0, size), rng.randint(0, size)], fill=colour,
                          width=rng.randint(1, 6))
        pixels = np.asarray(image, dtype=np.int16)
        noise = np.random.default_rng(index).integers(-6, 7, pixels.shape)
        path = folder / f"{index:05d}.png"
        Image.fromarray(np.clip(pixels + noise, 0, 255).astype(np.uint8)).save(path)
        items.append(GradedItem(key=str(index), group=f"synthetic-{index}",
                                png=str(path), grade=float(rng.randint(0, 2))))
    return items


def corpus_items(corpus: Path, count: int) -> list[GradedItem] | None:
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from reward_eval import corpus_graded_set

    if not (corpus / "manifest.jsonl").exists():
        return None
    graded, _ = corpus_graded_set(corpus, seed=0, flip_probability=0.1)
    return list(graded.items[:count]) if len(graded.items) >= count else None


def time_training(graded: GradedSet, config: TrainConfig) -> tuple[float, float, object]:
    """(decode seconds, training seconds, FitResult), decoding from cold files."""
    features.clear_memory_cache()
    parts = {name: torch.tensor(ix) for name, ix in graded.split().items()}
    started = time.perf_counter()
    images = features.load_images([item.png for item in graded.items], config.image_size)
    decoded = time.perf_counter() - started
    grades = torch.from_numpy(graded.grades())
    scorer = new_scorer(config)
    result = fit(scorer, train_images=images[parts[TRAIN]], train_grades=grades[parts[TRAIN]],
                 validation_images=images[parts[VALIDATION]],
                 validation_grades=grades[parts[VALIDATION]], config=config)
    return decoded, time.perf_counter() - started - decoded, result


def time_scoring(paths: list[str], config: TrainConfig) -> float:
    """Renders per second: cold decode in threads + batched scoring."""
    features.clear_memory_cache()
    scorer = new_scorer(config)
    scorer.module.eval()
    started = time.perf_counter()
    for start in range(0, len(paths), SCORE_BATCH):
        images = features.load_images(paths[start:start + SCORE_BATCH], config.image_size)
        scorer.score(images)
    return len(paths) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("/tmp/paintrl-reward-corpus"))
    parser.add_argument("--count", type=int, default=1664)
    parser.add_argument("--size", type=int, default=settings.PAINTRL_PAINTER_SIZE,
                        help="side of synthetic PNGs (default PAINTRL_PAINTER_SIZE)")
    args = parser.parse_args()
    torch.set_num_threads(DEFAULT_THREADS)
    config = TrainConfig()

    with tempfile.TemporaryDirectory() as tmp:
        items = corpus_items(args.corpus, args.count)
        if items is not None:
            origin = (f"{args.count} rendered painter sketches from {args.corpus} "
                      "(simulated-curator grades)")
        else:
            items = synthetic_pngs(Path(tmp), args.count, args.size)
            origin = (f"{args.count} SYNTHETIC PNGs at {args.size} px with random grades "
                      "(timing only: the corpus folder has too few renders)")
        side = Image.open(items[0].png).size
        graded = GradedSet(items=tuple(items))
        parts = graded.split()
        print(f"images: {origin}; {side[0]}x{side[1]} px")
        print(f"machine: {os.cpu_count()} CPUs, torch threads {torch.get_num_threads()}, "
              f"load average {os.getloadavg()[0]:.1f}")
        print(f"config: {config.image_size} px, width {config.width}, batch "
              f"{config.batch_size}, max {config.max_epochs} epochs, patience "
              f"{config.patience}; train {len(parts[TRAIN])}, validation "
              f"{len(parts[VALIDATION])}, test {len(parts[TEST])}\n")

        rows = []
        full = TrainConfig(patience=0)
        print("timing training (every epoch)...", flush=True)
        decoded, trained, result = time_training(graded, full)
        rows.append((f"training, all {full.max_epochs} epochs (worst case), s",
                     decoded + trained, "<=", TRAIN_TARGET_S,
                     f"decode {decoded:.1f} s + train {trained:.1f} s"))
        if "SYNTHETIC" not in origin:
            print("timing training (early stopping)...", flush=True)
            decoded, trained, result = time_training(graded, config)
            rows.append(("training, early stopping (production), s", decoded + trained,
                         "<=", TRAIN_TARGET_S,
                         f"decode {decoded:.1f} s + train {trained:.1f} s, "
                         f"{result.epochs_run} epochs"))
        print("timing scoring...", flush=True)
        per_s = time_scoring([item.png for item in items], config)
        rows.append(("scoring, cold decode + model, renders/s", per_s, ">=",
                     SCORE_TARGET_PER_S, f"batches of {SCORE_BATCH}"))

        print(f"{'measure':44} {'measured':>10} {'target':>10} {'ratio':>7}  detail")
        for name, value, sense, goal, detail in rows:
            ratio = goal / value if sense == "<=" else value / goal
            print(f"{name:44} {value:10.1f} {sense:>4} {goal:5.0f} {ratio:6.2f}x  {detail}")
        print("\nratio > 1 means the target is met (target / measured for times, "
              "measured / target for rates)")


if __name__ == "__main__":
    main()
