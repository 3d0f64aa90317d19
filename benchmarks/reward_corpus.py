"""Reward corpus: a folder of painter renders (PNG + metadata) that the reward
benchmarks read, so the slow part (rendering, ~1-3 s a sketch on 2 cores) is
paid once and not on every evaluation run.

Paints seeds START..START+COUNT-1 with the procedural painter, renders each in
one RenderPool and writes, per seed, `DIR/<seed>.png` and a line in
`DIR/manifest.jsonl` ({"seed", "png", "prompt", "meta", "paint_fraction",
"status"}). Resumable: seeds already in the manifest are skipped, so a run can
be stopped and continued. No Django, no database.

    .venv/bin/python benchmarks/reward_corpus.py --out /tmp/reward-corpus \
        [--count 1664] [--start 0] [--size 160] [--browsers 1]

The painter's canvas size is a parameter: 160 px keeps watercolour fills cheap
while staying above the 64-96 px the reward model reads.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import Lock

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sketches.painter import paint  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.rendering import OK, render_text  # noqa: E402

MANIFEST = "manifest.jsonl"


def done_seeds(out: Path) -> set[int]:
    path = out / MANIFEST
    if not path.exists():
        return set()
    return {json.loads(line)["seed"] for line in path.read_text().splitlines() if line.strip()}


def render_seed(pool: RenderPool, seed: int, size: int, out: Path) -> dict:
    sketch = paint(seed, size=size)
    outcome = render_text(pool, sketch.code, seed)
    png = ""
    if outcome.status == OK and outcome.png:
        png = f"{seed:05d}.png"
        (out / png).write_bytes(outcome.png)
    return {"seed": seed, "png": png, "prompt": sketch.prompt, "meta": sketch.meta,
            "status": outcome.status, "paint_fraction": outcome.paint_fraction,
            "elapsed_ms": outcome.elapsed_ms}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--count", type=int, default=1664)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--size", type=int, default=160)
    parser.add_argument("--browsers", type=int, default=1,
                        help="browsers in the pool (default 1: leave a core to others)")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    seeds = [s for s in range(args.start, args.start + args.count)
             if s not in done_seeds(args.out)]
    print(f"{len(seeds)} seeds to render into {args.out} at {args.size} px "
          f"with {args.browsers} browser(s); {os.cpu_count()} CPUs", flush=True)
    lock = Lock()
    started = time.perf_counter()
    finished = 0

    def one(seed: int) -> None:
        nonlocal finished
        row = render_seed(pool, seed, args.size, args.out)
        with lock, (args.out / MANIFEST).open("a") as manifest:
            manifest.write(json.dumps(row) + "\n")
            finished += 1
            if finished % 25 == 0:
                rate = finished / (time.perf_counter() - started)
                print(f"{finished}/{len(seeds)} ({rate:.2f}/s)", flush=True)

    with RenderPool(RendererConfig(browsers=args.browsers)) as pool, \
            ThreadPoolExecutor(max_workers=args.browsers) as workers:
        list(workers.map(one, seeds))
    print(f"done in {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
