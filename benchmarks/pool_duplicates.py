"""Near-duplicate calibration: where should PAINTRL_POOL_DUPLICATE_DISTANCE
and PAINTRL_POOL_DUPLICATE_COLOUR_DISTANCE lie?

Reads every PNG under the given folders (painter renders, e.g. the output of
benchmarks/reward_corpus.py; files with the same name are counted once) and
prints:

  * distinct pairs: the percentiles of their hash distances, and every pair
    the thresholds flag (the false alarms, unless they are real copies);
  * altered copies of each picture (resized, blurred, JPEG, noise, brighter,
    cropped, a dot painted on): how far they move, and how many the
    thresholds flag;
  * how long fingerprinting and the pairwise search take.

    .venv/bin/python benchmarks/pool_duplicates.py /tmp/reward-corpus [--bits 8] [--colour 10]

It prints figures and asserts nothing. pool/phash.py records the last run.
"""
from __future__ import annotations

import argparse
import io
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")

import django  # noqa: E402

django.setup()

from PIL import Image, ImageDraw, ImageEnhance, ImageFilter  # noqa: E402

from pool.phash import (  # noqa: E402
    Fingerprint,
    fingerprint_image,
    hamming,
    layout_distance,
    near_duplicate_pairs,
)


def altered(image: Image.Image, how: str) -> Image.Image:
    w, h = image.size
    if how == "resized":
        return image.resize((w * 3 // 4, h * 3 // 4)).resize(image.size)
    if how == "blurred":
        return image.filter(ImageFilter.GaussianBlur(1))
    if how == "jpeg q70":
        buffer = io.BytesIO()
        image.save(buffer, "JPEG", quality=70)
        return Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    if how == "noise +-12":
        pixels = np.asarray(image).astype(int)
        noise = np.random.default_rng(0).integers(-12, 13, size=pixels.shape)
        return Image.fromarray(np.clip(pixels + noise, 0, 255).astype(np.uint8))
    if how == "brighter 8%":
        return ImageEnhance.Brightness(image).enhance(1.08)
    if how == "cropped 2.5%":
        return image.crop((w // 40, h // 40, w - w // 40, h - h // 40)).resize(image.size)
    if how == "dot":
        image = image.copy()
        ImageDraw.Draw(image).ellipse((5, 5, 5 + w // 12, 5 + w // 12), fill=(200, 40, 40))
        return image
    raise ValueError(how)


KINDS = ["resized", "blurred", "jpeg q70", "noise +-12", "brighter 8%", "cropped 2.5%", "dot"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--bits", type=int, default=8)
    parser.add_argument("--colour", type=float, default=10.0)
    args = parser.parse_args()

    paths: dict[str, Path] = {}
    for folder in args.folders:
        for path in sorted(folder.rglob("*.png")):
            paths.setdefault(path.name, path)
    names = list(paths)
    images = [Image.open(paths[n]).convert("RGB") for n in names]
    if len(images) < 2:
        parser.error("need at least two PNGs")

    start = time.perf_counter()
    prints = {i: fingerprint_image(image) for i, image in enumerate(images)}
    per_image = (time.perf_counter() - start) / len(images) * 1000
    distances = [hamming(prints[i].phash, prints[j].phash)
                 for i in range(len(names)) for j in range(i + 1, len(names))]
    pairs = near_duplicate_pairs(prints, max_distance=args.bits,
                                 max_colour_distance=args.colour)
    print(f"{len(names)} distinct PNGs, {len(distances)} pairs; "
          f"fingerprint {per_image:.2f} ms each (decoded)")
    print("hash distance percentiles 0/1/5/50:",
          np.percentile(distances, [0, 1, 5, 50]).astype(int).tolist())
    print(f"flagged at <= {args.bits} bits and <= {args.colour} colour units: {len(pairs)}")
    for pair in pairs:
        print(f"  {pair.distance:2d} bits {pair.colour_distance:5.1f}  "
              f"{names[pair.a]}  {names[pair.b]}")

    print(f"\n{'altered copy':14s} {'bits max':>8s} {'mean':>5s} {'colour max':>10s} "
          f"{'mean':>5s} {'flagged':>9s}")
    for kind in KINDS:
        moved = []
        for i, image in enumerate(images):
            copy = fingerprint_image(altered(image, kind))
            moved.append((hamming(prints[i].phash, copy.phash), layout_distance(prints[i], copy)))
        bits = [b for b, _ in moved]
        shades = [c for _, c in moved]
        flagged = sum(b <= args.bits and c <= args.colour for b, c in moved)
        print(f"{kind:14s} {max(bits):8d} {np.mean(bits):5.1f} {max(shades):10.1f} "
              f"{np.mean(shades):5.1f} {flagged:4d}/{len(moved)}")

    rng = np.random.default_rng(0)
    for n in (1664, 5000):
        synthetic = {i: Fingerprint(int(rng.integers(0, 2**63)),
                                    rng.integers(0, 256, 48, dtype=np.uint8).tobytes())
                     for i in range(n)}
        start = time.perf_counter()
        near_duplicate_pairs(synthetic, max_distance=args.bits, max_colour_distance=args.colour)
        print(f"pairwise search over {n} fingerprints: {time.perf_counter() - start:.2f} s")


if __name__ == "__main__":
    main()
