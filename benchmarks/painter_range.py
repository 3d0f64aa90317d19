"""Painter range benchmark: what does the procedural painter's output look like
to the renderer, tier by tier and subject by subject, and what does it cost?

Paints seeds START..START+COUNT-1 (the seed picks the subject), renders them
in one RenderPool (default size, one thread per browser) and prints, per
quality tier and per subject: gate pass rate, paint fraction, brush calls,
distinct colours (sketches.painter.measure) and render time (elapsed_ms,
median and p90), plus watercolour fills per sketch. It asserts nothing.

Run from the repository root (no Django needed):

    .venv/bin/python benchmarks/painter_range.py [--count 40] [--size 400] [--start 0]
        [--browsers N] [--out DIR]

Render times depend on the machine and on whatever else it is running
(SwiftShader draws on the CPU): compare runs on the same machine only.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sketches.painter import paint  # noqa: E402
from sketches.painter.measure import distinct_colours  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.rendering import OK, render_text  # noqa: E402

TIERS = ("good", "fair", "bad")


@dataclass
class Row:
    seed: int
    subject: str
    tier: str
    fills: int
    ok: bool
    paint: float
    calls: int
    colours: int
    ms: int
    why: str


def render_one(pool: RenderPool, seed: int, size: int, out: Path | None) -> Row:
    sketch = paint(seed, size=size)
    outcome = render_text(pool, sketch.code, seed)
    meta = sketch.meta
    if out is not None:
        stem = out / f"{seed:04d}_{meta['subject']}_{meta['quality']}"
        stem.with_suffix(".js").write_text(sketch.code)
        if outcome.png:
            stem.with_suffix(".png").write_bytes(outcome.png)
    return Row(
        seed=seed, subject=meta["subject"], tier=meta["quality"], fills=meta["fills"],
        ok=outcome.status == OK and not outcome.unknown_calls,
        paint=outcome.paint_fraction or 0.0, calls=outcome.brush_calls,
        colours=distinct_colours(outcome.png) if outcome.png else 0, ms=outcome.elapsed_ms,
        why="" if outcome.status == OK else f"{outcome.status} {outcome.violations}",
    )


def p90(values: list[float]) -> float:
    """Nearest-rank 90th percentile."""
    ordered = sorted(values)
    return ordered[max(0, -(-90 * len(ordered) // 100) - 1)]


def table(title: str, groups: dict[str, list[Row]]) -> None:
    print(f"\n{title:16} {'n':>3} {'pass':>5} {'fills':>5} {'paint':>6} {'calls':>6} "
          f"{'colours':>7} {'ms med':>7} {'ms p90':>7}")
    for name, rows in groups.items():
        if not rows:
            continue

        def med(attr: str, rows: list[Row] = rows) -> float:
            return statistics.median(getattr(r, attr) for r in rows)
        passed = sum(r.ok for r in rows) / len(rows)
        print(f"{name:16} {len(rows):3d} {passed:5.0%} {med('fills'):5.1f} {med('paint'):6.3f} "
              f"{med('calls'):6.0f} {med('colours'):7.0f} {med('ms'):7.0f} "
              f"{p90([r.ms for r in rows]):7.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40, help="how many seeds (default 40)")
    parser.add_argument("--size", type=int, default=400, help="canvas side in px (default 400)")
    parser.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    parser.add_argument("--browsers", type=int, default=None,
                        help="pool size (default: the renderer's default)")
    parser.add_argument("--out", type=Path, default=None, help="write each .js and .png here")
    args = parser.parse_args()
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)

    config = RendererConfig() if args.browsers is None else RendererConfig(browsers=args.browsers)
    seeds = range(args.start, args.start + args.count)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}; "
          f"{config.browsers} browsers; {len(seeds)} seeds from {args.start}, {args.size} px")
    started = time.perf_counter()
    with RenderPool(config) as pool, ThreadPoolExecutor(max_workers=config.browsers) as workers:
        rows = list(workers.map(lambda s: render_one(pool, s, args.size, args.out), seeds))
    wall = time.perf_counter() - started
    print(f"rendered in {wall:.1f} s wall ({len(rows) / wall:.2f} renders/s); "
          f"load average now {os.getloadavg()[0]:.1f}")

    table("tier", {t: [r for r in rows if r.tier == t] for t in TIERS} | {"all": rows})
    by_subject: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_subject[row.subject].append(row)
    table("subject", dict(sorted(by_subject.items())))
    failed = [r for r in rows if not r.ok]
    print(f"\nnot passing the gate: {len(failed)} of {len(rows)}")
    for r in failed:
        print(f"  seed {r.seed} {r.subject} ({r.tier}): {r.why}")


if __name__ == "__main__":
    main()
