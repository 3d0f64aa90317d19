"""Does painting from the recorded calls (RendererConfig.paint_by_replay) keep
honest paintings' verdicts and pictures, and at what cost in wall time?

Renders each sketch twice, taking turns, once by the renderer that paints in
the sketch's own page and once by paint by construction (record, check,
replay), one browser each, and prints per group: verdicts that agree, the
largest mean difference between the two pictures (levels per channel; the
fidelity bound is 0.3), and the ratio of the wall times (new / old).
Groups: the painter's first seeds, tests/sketches/good, benchmarks/outside's
p5.brush 2.x and 1.x sketches (each rendered with its own version), and the
heavy paintings of benchmarks/heavy (1x_*.js with p5.brush 1.x). `--rounds N`
renders each case N times each way (a heavy group of few paintings needs
several).

    .venv/bin/python benchmarks/paint_by_construction.py --seeds 24
    .venv/bin/python benchmarks/paint_by_construction.py --groups heavy --rounds 4

`--against brush-blend` compares today's renderer with the same one painting
with p5.brush's own blend shader (RendererConfig.lean_blend=False) instead:

    .venv/bin/python benchmarks/paint_by_construction.py --groups "outside 1.x" \
        --against brush-blend

`--against gpu-canvases-1x` compares it with p5.brush 1.x's blend mask left on
the GPU canvas (RendererConfig.cpu_canvases_1x=False), as before harness 10:

    .venv/bin/python benchmarks/paint_by_construction.py --groups "outside 1.x" \
        --against gpu-canvases-1x

`--against whole-blends-1x` compares it with p5.brush 1.x's blend passes
drawn over the whole canvas (RendererConfig.blend_bounds_1x=False), as they
were before:

    .venv/bin/python benchmarks/paint_by_construction.py --groups heavy "outside 1.x" \
        --against whole-blends-1x
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sketches.painter import paint  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.renderer.fidelity import picture_difference  # noqa: E402
from sketches.rendering import render_text  # noqa: E402


def groups(seeds: int) -> dict[str, list[tuple[str, str, int, str]]]:
    files = sorted((ROOT / "tests" / "sketches" / "good").glob("*.js"))
    outside = ROOT / "benchmarks" / "outside"
    return {
        "painter": [(f"seed {s}", paint(s).code, s, "2") for s in range(seeds)],
        "good": [(p.name, p.read_text(), 11, "2") for p in files],
        "outside 2.x": [(p.name, p.read_text(), 11, "2") for p in sorted(outside.glob("2x_*.js"))],
        "outside 1.x": [(p.name, p.read_text(), 11, "1") for p in sorted(outside.glob("1x_*.js"))],
        "heavy": [(p.name, p.read_text(), 11, "1" if p.name.startswith("1x_") else "2")
                  for p in sorted((ROOT / "benchmarks" / "heavy").glob("*.js"))],
    }


# --against: the RendererConfig fields that make the old way.
OLD_WAYS = {
    "page-paint": {"paint_by_replay": False},
    "brush-blend": {"lean_blend": False},
    "gpu-canvases-1x": {"cpu_canvases_1x": False},
    "whole-blends-1x": {"blend_bounds_1x": False},
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=24, help="painter seeds (from 0)")
    parser.add_argument("--groups", nargs="*", help="only these groups (by name)")
    parser.add_argument("--rounds", type=int, default=1, help="renders of each case each way")
    parser.add_argument("--against", choices=tuple(OLD_WAYS), default="page-paint",
                        help="the old way: painting in the sketch's page, p5.brush's own "
                             "blend shader, p5.brush 1.x's blend mask on the GPU canvas, or "
                             "1.x's blend passes over the whole canvas")
    args = parser.parse_args()
    old_way = OLD_WAYS[args.against]
    old = RenderPool(RendererConfig(browsers=1, **old_way))
    new = RenderPool(RendererConfig(browsers=1, paint_by_replay=True))
    try:
        for group, cases in groups(args.seeds).items():
            if args.groups and group not in args.groups:
                continue
            same = 0
            worst = 0.0
            times = {"old": 0.0, "new": 0.0}
            for i, (name, code, seed, brush) in enumerate(cases * args.rounds):
                # Taking turns at going first, so neither way always runs warm.
                order = (("old", old), ("new", new)) if i % 2 == 0 else (("new", new), ("old", old))
                outcome = {}
                for way, pool in order:
                    started = time.monotonic()
                    outcome[way] = render_text(pool, code, seed=seed, brush=brush)
                    times[way] += time.monotonic() - started
                a, b = outcome["old"], outcome["new"]
                if (a.status, a.violations) == (b.status, b.violations):
                    same += 1
                else:
                    print(f"  {group} {name}: {a.status} {a.violations} -> {b.status} "
                          f"{b.violations} {b.errors[:1]}")
                if a.png and b.png:
                    worst = max(worst, picture_difference(a.png, b.png)[0])
            print(f"{group}: verdicts the same {same}/{len(cases) * args.rounds}; pictures "
                  f"differ by at most {worst:.4f} levels; wall time new/old "
                  f"{times['new'] / times['old']:.2f} "
                  f"({times['new']:.1f} s against {times['old']:.1f} s)", flush=True)
    finally:
        old.close()
        new.close()


if __name__ == "__main__":
    main()
