"""Render deadline benchmark: how long do honest heavy paintings take on the
renderer as it is configured, on this machine, under load?

Renders benchmarks/heavy/*.js (five layered petals with bleed and texture at
600 px) and the painter's good tier at --size px (the first --good seeds whose
tier is good), in one RenderPool at its default size with one thread per
browser, while --load processes spin on the CPU as the other workers would
(a policy build, a train step). Prints each render's wall time and the
page's own drawing time, the median, p95 and worst, and the worst against
the deadline (DEFAULT_DEADLINE_S in sketches/renderer/config.py) as a
margin. The deadline is a kill switch for runaway code; the worst honest
painting here should finish well inside it. It asserts nothing.

    .venv/bin/python benchmarks/render_deadline.py [--good 24] [--size 600] [--load 1]
"""
from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sketches.painter import paint  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.rendering import render_text  # noqa: E402

HEAVY = Path(__file__).resolve().parent / "heavy"
# Seeds scanned for good-tier sketches (about 35 % of seeds are good).
SEED_SCAN = 400
# Renders above the deadline are stopped there: measure with room to spare.
MEASURE_DEADLINE_S = 300.0


def spin(stop_at: float) -> None:
    while time.monotonic() < stop_at:
        pass


def good_sketches(count: int, size: int) -> dict[str, str]:
    found = {}
    for seed in range(SEED_SCAN):
        sketch = paint(seed, size=size)
        if sketch.meta["quality"] == "good":
            found[f"good seed {seed} {sketch.meta['subject']}"] = sketch.code
            if len(found) == count:
                break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--good", type=int, default=24, help="good-tier painter sketches")
    parser.add_argument("--size", type=int, default=600, help="painter canvas side")
    parser.add_argument("--load", type=int, default=1, help="CPU-spinning processes beside it")
    args = parser.parse_args()

    sketches = {f"heavy {p.stem}": p.read_text() for p in sorted(HEAVY.glob("*.js"))}
    sketches.update(good_sketches(args.good, args.size))
    deadline = RendererConfig().deadline_s
    config = RendererConfig(deadline_s=MEASURE_DEADLINE_S)
    print(f"machine: {os.cpu_count()} CPUs; pool of {config.browsers} browsers, one thread "
          f"each; {len(sketches)} sketches; {args.load} spinning process(es) beside it")

    with RenderPool(config) as pool:
        burners = [multiprocessing.Process(target=spin, args=(time.monotonic() + 3600,),
                                           daemon=True) for _ in range(args.load)]
        for burner in burners:
            burner.start()
        try:
            def one(item):
                name, code = item
                start = time.perf_counter()
                outcome = render_text(pool, code, 0)
                return name, time.perf_counter() - start, outcome

            with ThreadPoolExecutor(max_workers=config.browsers) as workers:
                rows = list(workers.map(one, sketches.items()))
        finally:
            for burner in burners:
                burner.terminate()

    for name, wall, outcome in rows:
        print(f"  {name:32} {outcome.status:9} wall {wall:6.2f} s  "
              f"draw {outcome.draw_ms / 1000:6.2f} s")
    walls = sorted(wall for _, wall, _ in rows)
    p95 = walls[max(0, -(-95 * len(walls) // 100) - 1)]
    worst_name, worst, _ = max(rows, key=lambda row: row[1])
    print(f"wall time: median {statistics.median(walls):.2f} s, p95 {p95:.2f} s, "
          f"worst {worst:.2f} s ({worst_name})")
    print(f"deadline {deadline:.0f} s: the worst honest painting here used "
          f"{100 * worst / deadline:.0f} % of it ({deadline / worst:.1f}x margin)")
    not_ok = [(name, o.status, o.violations) for name, _, o in rows if o.status != "ok"]
    print(f"not ok: {len(not_ok)}" + "".join(f"\n  {n}: {s} {v}" for n, s, v in not_ok))


if __name__ == "__main__":
    main()
