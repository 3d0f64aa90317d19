"""Is this tree's renderer as fast as another checkout's (today's main)? Starts
one render process in each tree (a pool of one browser each, started before
timing), sends both the same sketches (benchmarks/corpus/ and --painter-seeds
seeds of the painter at --size px), one render at a time, alternating which
tree goes first, and prints per tree the total and median wall time of
render_text() and the page's own drawing time, the ratio this/other, and any
verdict that differs between the trees.

    .venv/bin/python benchmarks/render_versus.py /work/base-renderer [--painter-seeds 24]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sketches.painter import paint  # noqa: E402

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from sketches.renderer import RendererConfig, RenderPool
from sketches.rendering import render_text
with RenderPool(RendererConfig(browsers=1)) as pool:
    print("ready", flush=True)
    for line in sys.stdin:
        code, seed = json.loads(line)
        started = time.monotonic()
        o = render_text(pool, code, seed)
        print(json.dumps([o.status, o.violations, (time.monotonic() - started) * 1000, o.draw_ms]),
              flush=True)
"""


def start(tree: Path) -> subprocess.Popen:
    child = subprocess.Popen([str(tree / ".venv" / "bin" / "python"), "-c", CHILD, str(tree)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=tree)
    assert child.stdout.readline().strip() == "ready"
    return child


def ask(child: subprocess.Popen, code: str, seed: int) -> list:
    child.stdin.write(json.dumps([code, seed]) + "\n")
    child.stdin.flush()
    return json.loads(child.stdout.readline())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("other", type=Path, help="the other checkout (with .venv and node_modules)")
    parser.add_argument("--painter-seeds", type=int, default=24)
    parser.add_argument("--size", type=int, default=400)
    args = parser.parse_args()
    corpus = sorted((ROOT / "benchmarks" / "corpus").glob("*.js"))
    sketches = [(p.name, p.read_text(), 0) for p in corpus]
    sketches += [(f"painter {s}", paint(s, size=args.size).code, s)
                 for s in range(args.painter_seeds)]
    trees = {"this": ROOT, "other": args.other.resolve()}
    children = {name: start(tree) for name, tree in trees.items()}
    wall = {name: [] for name in trees}
    draw = {name: [] for name in trees}
    differ = []
    for i, (label, code, seed) in enumerate(sketches):
        order = list(trees) if i % 2 == 0 else list(reversed(list(trees)))
        got = {}
        for name in order:
            status, violations, wall_ms, draw_ms = ask(children[name], code, seed)
            got[name] = (status, violations)
            wall[name].append(wall_ms)
            draw[name].append(draw_ms)
        if got["this"] != got["other"]:
            differ.append(f"{label}: this {got['this']} other {got['other']}")
    for child in children.values():
        child.stdin.close()
        child.wait(timeout=60)
    print(f"{len(sketches)} sketches, one render at a time, alternating which tree goes first")
    for name in trees:
        print(f"  {name:5} ({trees[name]}): wall {sum(wall[name]) / 1000:.1f} s, median "
              f"{statistics.median(wall[name]):.0f} ms; drawing {sum(draw[name]) / 1000:.1f} s, "
              f"median {statistics.median(draw[name]):.0f} ms")
    print(f"  this/other: wall {sum(wall['this']) / sum(wall['other']):.3f}, "
          f"drawing {sum(draw['this']) / max(1, sum(draw['other'])):.3f}")
    print(f"verdicts that differ: {len(differ)}")
    for line in differ:
        print("  " + line)


if __name__ == "__main__":
    main()
