"""The gold judge: a reward model the policy never optimises, trained on a
large painter corpus labelled by the painter's own tiers, without the
simulated curator's noise. It stands in for a panel of people in the local
world (Gao, Schulman and Hilton 2022, "Scaling laws for reward model
overoptimization"): the proxy (a run's judge) learns from the simulated
curator's noisy grades of a small world, the policy optimises the proxy, and
the gold judge scores the policy's samples. Gold rising with the proxy is
taste learnt; the proxy rising while gold stays flat is the proxy's blind
spots found.

Built once, like the built-in policy, into a folder (PAINTRL_GOLD_DIR):
    gold.pt             the scorer (model.Scorer.to_bytes)
    paintrl_gold.json   what it learnt from and how it did (GOLD_RECORD)
    corpus.npz          the decoded renders, tiers and sketch codes, so a
                        retrain (`--retrain`) skips the renders
Its sketches come from painter seeds no other corpus uses (GOLD_SEED), and
services.reward_model_gold_register refuses a gold judge whose sketch codes
any stored sketch shares: disjoint by code from everything the proxy, the
policy and the runs ever saw.

No database here: services.py registers a built folder as a RewardModel.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from sketches.models import code_hash
from sketches.painter import paint
from sketches.renderer import RendererConfig, RenderPool
from sketches.rendering import OK, render_text

from .config import TrainConfig
from .data import SPLITS, TEST, split_of
from .metrics import json_safe, split_metrics

# Bump when the corpus, the labels or the training change: runs record it.
GOLD_RECIPE = 1
# Painter seeds: past the policy's corpus (0 onwards, 20,000 by default), its
# held-out prompts (1,000,000 onwards) and the benchmarks' worlds (100,000).
GOLD_SEED = 3_000_000
# 2,400 renders: the reward model reached 0.91 held-out pairwise accuracy on
# 617 renders of noisy grades (config.py); the gold judge's target is 0.9 on
# the clean tiers, with a test split (a fifth) big enough to say so.
GOLD_COUNT = 2400
GOLD_SIZE = 256  # px: the benchmarks' worlds render at 256, and the scorer reads 64
TIER_ORDINALS = {"bad": 0.0, "fair": 1.0, "good": 2.0}
# The proxy's recipe, with a split seed of its own and more patience: the
# clean labels keep improving the validation accuracy for longer.
GOLD_TRAIN = TrainConfig(split_seed=7, patience=12, max_epochs=60)
GOLD_RECORD = "paintrl_gold.json"
GOLD_WEIGHTS = "gold.pt"
GOLD_CORPUS = "corpus.npz"
ACCURACY_TARGET = 0.9  # the held-out pairwise accuracy a gold judge should reach


def gold_exists(folder: Path) -> bool:
    return (folder / GOLD_RECORD).exists() and (folder / GOLD_WEIGHTS).exists()


def gold_record(folder: Path) -> dict:
    """The folder's record; FileNotFoundError with the way out when it has none."""
    path = Path(folder) / GOLD_RECORD
    if not path.exists():
        raise FileNotFoundError(f"no gold judge in {folder}: run `python manage.py "
                                "bootstrap_gold` to build it")
    return json.loads(path.read_text())


def gold_build(folder: Path, *, count: int = GOLD_COUNT, seed: int = GOLD_SEED,
               size: int = GOLD_SIZE, retrain: bool = False, renderer=None,
               log: Callable[[str], None] = print) -> dict:
    """Paint `count` sketches from painter seed `seed`, render them (with
    `renderer`, a RendererConfig; default the renderer's settings), train the
    gold scorer on their tiers and save it in `folder`; the record. With
    `retrain`, the folder's corpus is trained on again instead of rendered."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    if retrain:
        corpus = dict(np.load(folder / GOLD_CORPUS))
        seed, count = int(corpus["seeds"][0]), int(corpus["count"])
        log(f"retraining on the {len(corpus['grades'])} renders of {folder / GOLD_CORPUS}")
    else:
        corpus = _corpus_render(count=count, seed=seed, size=size, renderer=renderer, log=log)
        np.savez_compressed(folder / GOLD_CORPUS, **corpus)
    rendered_s = time.monotonic() - started
    scorer, metrics, split = _train(corpus, log=log)
    weights = scorer.to_bytes()
    (folder / GOLD_WEIGHTS).write_bytes(weights)
    codes = [str(code) for code in corpus["codes"]]
    record = {
        "recipe": GOLD_RECIPE,
        "painter": {"seeds": [seed, seed + count - 1], "size": size, "sketches": count},
        "renders": len(codes),
        "not_rendered": int(corpus["failed"]),
        "tiers": dict(Counter(_tier_names(corpus["grades"]))),
        "split": {name: len(indices) for name, indices in split.items()},
        "train": GOLD_TRAIN.to_dict(),
        "metrics": metrics,
        "weights_sha256": hashlib.sha256(weights).hexdigest(),
        "codes_sha256": hashlib.sha256("\n".join(sorted(codes)).encode()).hexdigest(),
        "seconds": {"render": round(rendered_s), "total": round(time.monotonic() - started)},
    }
    (folder / GOLD_RECORD).write_text(json.dumps(record, indent=2) + "\n")
    accuracy = metrics["heldout_pairwise_accuracy"]
    short = "" if accuracy >= ACCURACY_TARGET else f", below the {ACCURACY_TARGET} target"
    log(f"gold judge: held-out pairwise accuracy {accuracy:.3f} on the painter's tiers "
        f"({split[TEST].size} test renders){short}")
    return record


def gold_codes(folder: Path) -> list[str]:
    """The sketch code hashes the gold judge learnt from (sorted)."""
    with np.load(Path(folder) / GOLD_CORPUS) as corpus:
        return sorted(str(code) for code in corpus["codes"])


def _corpus_render(*, count: int, seed: int, size: int, renderer,
                   log: Callable[[str], None]) -> dict:
    """Render the painter's sketches for seeds seed..seed+count-1 in one pool;
    the finished ones decoded at the scorer's size with their tier ordinals."""
    from .features import decode  # torch: loaded only when a gold judge is built

    config = renderer or RendererConfig()
    painted = [paint(s, size=size) for s in range(seed, seed + count)]
    images, grades, codes, failed = [], [], [], 0
    done, clock = 0, time.monotonic()

    def one(sketch):
        return sketch, render_text(pool, sketch.code, sketch.meta["seed"])

    log(f"rendering {count} painter sketches (seeds {seed}..{seed + count - 1}, {size} px) "
        f"with {config.browsers} browsers")
    with RenderPool(config) as pool, ThreadPoolExecutor(max_workers=config.browsers) as workers:
        for sketch, outcome in workers.map(one, painted):
            done += 1
            tier = TIER_ORDINALS.get(sketch.meta.get("quality"))
            if outcome.status == OK and outcome.png and tier is not None:
                images.append(decode(outcome.png, GOLD_TRAIN.image_size))
                grades.append(tier)
                codes.append(code_hash(sketch.code))
            else:
                failed += 1
            if done % 100 == 0 or done == count:
                rate = done / max(time.monotonic() - clock, 1e-6)
                log(f"  {done} of {count} rendered ({failed} not ok), {rate * 60:.0f} a "
                    f"minute, about {(count - done) / rate / 60:.0f} min left")
    return {"images": np.stack(images), "grades": np.array(grades, dtype=np.float32),
            "codes": np.array(codes), "seeds": np.array([seed]), "count": np.array(count),
            "failed": np.array(failed)}


def _train(corpus: dict, *, log: Callable[[str], None]):
    """Fit GOLD_TRAIN on the corpus, split by sketch code; (scorer, metrics, split)."""
    import torch

    from .train import fit, new_scorer  # torch: loaded only when a gold judge trains

    config = GOLD_TRAIN
    split_config = config.split_config()
    names = [split_of(str(code), split_config) for code in corpus["codes"]]
    split = {name: np.array([i for i, n in enumerate(names) if n == name], dtype=np.int64)
             for name in SPLITS}
    images = torch.from_numpy(corpus["images"])
    grades = torch.from_numpy(corpus["grades"])
    scorer = new_scorer(config)

    def on_epoch(report) -> None:
        log(f"  epoch {report.epoch}: loss {report.train_loss:.3f}, validation accuracy "
            f"{report.validation_accuracy:.3f} (best {report.best_accuracy:.3f} at "
            f"{report.best_epoch}), {report.elapsed_s:.0f} s")

    result = fit(scorer, train_images=images[split["train"]],
                 train_grades=grades[split["train"]],
                 validation_images=images[split["validation"]],
                 validation_grades=grades[split["validation"]], config=config,
                 on_epoch=on_epoch)
    scores = scorer.score(images).numpy()
    metrics = {**split_metrics(scores, corpus["grades"], split),
               "best_epoch": result.best_epoch, "epochs_run": result.epochs_run,
               "stopped_by": result.stopped_by, "train_seconds": round(result.seconds, 1),
               "labels": "painter tiers (good 2, fair 1, bad 0), no noise"}
    return scorer, json_safe(metrics), split


def _tier_names(grades) -> list[str]:
    names = {value: name for name, value in TIER_ORDINALS.items()}
    return [names[float(g)] for g in grades]

