"""Render benchmark, in two parts (both by default; --part picks one).

Part "masks": what does the fast path (CPU fill masks, harness 3, the lean
blend shader, one shared SwiftShader pipeline cache and a small viewport) buy
over the renderer before it, and does the picture stay? Paints --painter-seeds
seeds of the procedural painter (the seed picks the subject, so 48 seeds hold
every subject four times and every tier) at --size px and renders each twice,
the old way (RendererConfig(cpu_fill_masks=False, lean_blend=False,
shared_pipeline_cache=False, viewport_side=1200, js_turbofan=True): masks on
SwiftShader, p5.brush's own blend shader, a pipeline cache per WebGL context, a
viewport as large as the largest canvas, V8 with TurboFan, as before harness 3) and the
new way, in two pools of --browsers browsers (default 2, every browser busy, as
in a render worker) that live side by side and take turns on the same chunks
of sketches, so the machine's noise falls on both alike. Per tier and overall it prints
throughput (renders per second of wall time) and the ratio new/old, and beside
it the fidelity: mean absolute difference per channel (mean and worst sketch)
and the share of pixels off by more than 10 levels in any channel (pooled and
worst sketch). Targets: good tier >= 5x, overall >= 3x; fidelity <= 0.3
levels and <= 0.5 % of pixels.

Part "pool": what does the browser pool buy over a browser per sketch?
Renders every sketch in benchmarks/corpus/ (p5.brush sketches of mixed cost:
mostly strokes and hatches, some with one watercolour fill, two with several)
three ways, in one run:

  (a) naive       a fresh Chromium per sketch: launch, load page, render, close;
  (b) pool x1     one RenderPool with one browser, started before timing,
                  sketches rendered one after another;
  (c) pool xN     one RenderPool at its default size, started before timing,
                  sketches submitted from as many threads as it has browsers.

For each way it prints total wall time, throughput and the ratio to naive;
for (b) and (c) the median and p95 per-render overhead, i.e. the wall time of
the render_text() call minus the drawing time the page itself measured
(draw_ms). It ends with PASS/MISS lines for two targets: the default pool at
least 3x naive throughput, and a median overhead (sequential, (b)) of at most
100 ms. It asserts nothing; every non-ok render is counted and named.

Run from the repository root (no Django needed):

    .venv/bin/python benchmarks/render_bench.py [--part masks|pool|all]
        [--painter-seeds 48] [--size 400] [--limit N] [--seed S] [--verbose]

Figures depend on the machine (SwiftShader draws on the CPU) and on whatever
else it is running; compare runs on the same machine only.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from sketches.painter import paint  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool, fidelity  # noqa: E402
from sketches.renderer.config import DEFAULT_BROWSERS, DEFAULT_MAX_CANVAS_SIDE  # noqa: E402
from sketches.renderer.fidelity import picture_difference  # noqa: E402
from sketches.rendering import OK, render_text  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "corpus"
TARGET_SPEEDUP = 3.0
TARGET_MEDIAN_OVERHEAD_MS = 100.0
TIERS = ("good", "fair", "bad")
TARGET_MASK_SPEEDUP = {"good": 5.0, "overall": 3.0}
TARGET_MAD = fidelity.MEAN_LEVELS_MAX  # levels per channel
TARGET_OFF_SHARE = fidelity.OFF_SHARE_MAX  # pixels off by more than OFF_LEVELS
OFF_LEVELS = fidelity.OFF_LEVELS
# Old-way renders of the good tier drew for up to ~25 s at 400 px: give both
# ways room, so the comparison times paintings, not the deadline.
MASKS_DEADLINE_S = 120.0


@dataclass
class MaskPair:
    seed: int
    subject: str
    tier: str
    old_s: float
    new_s: float
    mad: float | None  # None: one of the two had no picture
    off_share: float | None
    statuses: tuple[str, str]


def compare_pictures(old_png: bytes | None,
                     new_png: bytes | None) -> tuple[float | None, float | None]:
    """sketches.renderer.fidelity's measure; None where there is nothing to compare."""
    if not old_png or not new_png:
        return None, None
    try:
        return picture_difference(old_png, new_png)
    except ValueError:  # different sizes
        return None, None


def run_masks(seeds: int, size: int, render_seed: int, browsers: int) -> list[MaskPair]:
    """Each way renders the same chunks of `browsers` sketches of one tier at
    once (one per browser, as a render worker's threads do), the two ways
    taking turns to go first; a sketch's time is its chunk's share."""
    pairs = []
    old_config = RendererConfig(browsers=browsers, cpu_fill_masks=False,
                                lean_blend=False, shared_pipeline_cache=False, js_turbofan=True,
                                viewport_side=DEFAULT_MAX_CANVAS_SIDE, deadline_s=MASKS_DEADLINE_S)
    new_config = RendererConfig(browsers=browsers, deadline_s=MASKS_DEADLINE_S)
    sketches = [(seed, paint(seed, size=size)) for seed in range(seeds)]
    chunks = []
    for tier in TIERS:
        of_tier = [(seed, s) for seed, s in sketches if s.meta["quality"] == tier]
        chunks += [of_tier[i:i + browsers] for i in range(0, len(of_tier), browsers)]
    with (RenderPool(old_config) as old_pool, RenderPool(new_config) as new_pool,
          ThreadPoolExecutor(max_workers=browsers) as threads):
        def chunk_render(pool, chunk):
            started = time.perf_counter()
            outcomes = list(threads.map(
                lambda item: render_text(pool, item[1].code, render_seed), chunk))
            return (time.perf_counter() - started) / len(chunk), outcomes

        for index, chunk in enumerate(chunks):
            if index % 2 == 0:
                old_s, olds = chunk_render(old_pool, chunk)
                new_s, news = chunk_render(new_pool, chunk)
            else:
                new_s, news = chunk_render(new_pool, chunk)
                old_s, olds = chunk_render(old_pool, chunk)
            for (seed, sketch), old, new in zip(chunk, olds, news, strict=True):
                mad, off = compare_pictures(old.png, new.png)
                pairs.append(MaskPair(seed, sketch.meta["subject"], sketch.meta["quality"],
                                      old_s, new_s, mad, off, (old.status, new.status)))
                print(f"  seed {seed:3d} {sketch.meta['quality']:4} {sketch.meta['subject']:14} "
                      f"old {old_s:6.2f} s  new {new_s:5.2f} s  "
                      f"mad {'-' if mad is None else f'{mad:.3f}'}", flush=True)
    return pairs


def report_masks(pairs: list[MaskPair]) -> None:
    print()
    print(f"{'tier':8} {'n':>3} {'old r/s':>8} {'new r/s':>8} {'new/old':>8} "
          f"{'mad mean':>8} {'mad max':>8} {'>10 pool':>8} {'>10 max':>8}")
    groups = {tier: [p for p in pairs if p.tier == tier] for tier in TIERS}
    groups["overall"] = pairs
    ratios = {}
    for name, group in groups.items():
        if not group:
            continue
        old_rate = len(group) / sum(p.old_s for p in group)
        new_rate = len(group) / sum(p.new_s for p in group)
        ratios[name] = new_rate / old_rate
        compared = [p for p in group if p.mad is not None]
        mads = [p.mad for p in compared]
        offs = [p.off_share for p in compared]
        print(f"{name:8} {len(group):3d} {old_rate:8.3f} {new_rate:8.3f} {ratios[name]:7.2f}x "
              f"{np.mean(mads):8.3f} {max(mads):8.3f} {100 * np.mean(offs):7.3f}% "
              f"{100 * max(offs):7.3f}%")
    mismatched = [p for p in pairs if p.statuses[0] != p.statuses[1]]
    uncompared = [p for p in pairs if p.mad is None]
    print(f"verdicts that differ between the ways: {len(mismatched)}"
          + "".join(f"\n  seed {p.seed}: {p.statuses[0]} -> {p.statuses[1]}" for p in mismatched))
    print(f"pairs without two pictures to compare: {len(uncompared)}")
    worst = sorted((p for p in pairs if p.mad is not None), key=lambda p: -p.mad)[:3]
    print("largest differences: " + ", ".join(
        f"seed {p.seed} ({p.subject}, {p.tier}) mad {p.mad:.3f} >10 {100 * p.off_share:.2f}%"
        for p in worst))
    for name, target in TARGET_MASK_SPEEDUP.items():
        if name in ratios:
            print(f"{'PASS' if ratios[name] >= target else 'MISS'}  {name} throughput "
                  f"{ratios[name]:.2f}x today's (target >= {target:.0f}x)")
    compared = [p for p in pairs if p.mad is not None]
    mean_mad = float(np.mean([p.mad for p in compared]))
    pooled_off = float(np.mean([p.off_share for p in compared]))
    over = [p.seed for p in compared if p.mad > TARGET_MAD or p.off_share > TARGET_OFF_SHARE]
    print(f"{'PASS' if mean_mad <= TARGET_MAD else 'MISS'}  corpus mean absolute difference "
          f"{mean_mad:.3f} levels (target <= {TARGET_MAD})")
    print(f"{'PASS' if pooled_off <= TARGET_OFF_SHARE else 'MISS'}  corpus share of pixels off "
          f"by > {OFF_LEVELS}: {100 * pooled_off:.3f} % (target <= {100 * TARGET_OFF_SHARE:.1f} %)")
    print(f"sketches over either bound on their own: {len(over)} of {len(compared)} {over}")


@dataclass
class Mode:
    name: str
    total_s: float = 0.0
    startup_s: float | None = None
    walls_ms: dict[str, float] = field(default_factory=dict)
    draws_ms: dict[str, int] = field(default_factory=dict)
    not_ok: dict[str, str] = field(default_factory=dict)

    def record(self, name: str, wall_s: float, outcome) -> None:
        self.walls_ms[name] = wall_s * 1000
        self.draws_ms[name] = outcome.draw_ms
        if outcome.status != OK:
            self.not_ok[name] = f"{outcome.status} {outcome.violations} {outcome.errors[:1]}"

    @property
    def overheads_ms(self) -> list[float]:
        return sorted(self.walls_ms[n] - self.draws_ms[n] for n in self.walls_ms)


def timed_render(pool: RenderPool, code: str, seed: int):
    start = time.perf_counter()
    outcome = render_text(pool, code, seed)
    return time.perf_counter() - start, outcome


def run_naive(sketches: dict[str, str], seed: int) -> Mode:
    mode = Mode("(a) naive: browser per sketch")
    start = time.perf_counter()
    for name, code in sketches.items():
        t0 = time.perf_counter()
        with RenderPool(RendererConfig(browsers=1)) as pool:
            _, outcome = timed_render(pool, code, seed)
        # The naive per-render cost includes launching and closing the browser.
        mode.record(name, time.perf_counter() - t0, outcome)
    mode.total_s = time.perf_counter() - start
    return mode


def run_sequential(sketches: dict[str, str], seed: int) -> Mode:
    mode = Mode("(b) pool, 1 browser, sequential")
    t0 = time.perf_counter()
    with RenderPool(RendererConfig(browsers=1)) as pool:
        mode.startup_s = time.perf_counter() - t0
        start = time.perf_counter()
        for name, code in sketches.items():
            mode.record(name, *timed_render(pool, code, seed))
        mode.total_s = time.perf_counter() - start
    return mode


def run_concurrent(sketches: dict[str, str], seed: int) -> Mode:
    config = RendererConfig()
    mode = Mode(f"(c) pool, {config.browsers} browsers, {config.browsers} threads")
    t0 = time.perf_counter()
    with RenderPool(config) as pool:
        mode.startup_s = time.perf_counter() - t0
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=config.browsers) as workers:
            futures = {name: workers.submit(timed_render, pool, code, seed)
                       for name, code in sketches.items()}
            for name, future in futures.items():
                mode.record(name, *future.result())
        mode.total_s = time.perf_counter() - start
    return mode


def p95(values: list[float]) -> float:
    """Nearest-rank 95th percentile of sorted values."""
    return values[max(0, -(-95 * len(values) // 100) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("masks", "pool", "all"), default="all")
    parser.add_argument("--painter-seeds", type=int, default=48,
                        help="painter seeds for the masks part (default 48)")
    parser.add_argument("--size", type=int, default=400,
                        help="painter canvas side for the masks part (default 400)")
    parser.add_argument("--browsers", type=int, default=DEFAULT_BROWSERS,
                        help="browsers per way in the masks part, each kept busy "
                             f"(default {DEFAULT_BROWSERS}: a render worker's pool)")
    parser.add_argument("--limit", type=int, default=None, help="use the first N sketches")
    parser.add_argument("--seed", type=int, default=0, help="render seed (default 0)")
    parser.add_argument("--verbose", action="store_true", help="also print per-sketch times")
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} CPUs (os.cpu_count())")
    if args.part in ("masks", "all"):
        print(f"masks: {args.painter_seeds} painter seeds at {args.size} px, render seed "
              f"{args.seed}, {args.browsers} browser(s) a way, the ways taking turns",
              flush=True)
        report_masks(run_masks(args.painter_seeds, args.size, args.seed, args.browsers))
    if args.part in ("pool", "all"):
        print()
        run_pool_part(args)


def run_pool_part(args: argparse.Namespace) -> None:
    files = sorted(CORPUS.glob("*.js"))[: args.limit]
    sketches = {f.stem: f.read_text() for f in files}
    n = len(sketches)
    print(f"pool: default pool size {RendererConfig().browsers} browsers; {n} sketches, "
          f"seed {args.seed}")

    modes = []
    for run in (run_naive, run_sequential, run_concurrent):
        print(f"running {run.__name__} ...", flush=True)
        modes.append(run(sketches, args.seed))
    naive, seq, conc = modes
    naive_rate = n / naive.total_s

    print()
    print(f"{'way':38} {'start-up s':>10} {'total s':>8} {'renders/s':>9} {'vs naive':>8} "
          f"{'ovh med ms':>10} {'ovh p95 ms':>10} {'not ok':>6}")
    for mode in modes:
        startup = f"{mode.startup_s:.2f}" if mode.startup_s is not None else "-"
        rate = n / mode.total_s
        if mode is naive:
            med = pct = "-"
        else:
            med = f"{statistics.median(mode.overheads_ms):.0f}"
            pct = f"{p95(mode.overheads_ms):.0f}"
        print(f"{mode.name:38} {startup:>10} {mode.total_s:8.2f} {rate:9.3f} "
              f"{rate / naive_rate:7.2f}x {med:>10} {pct:>10} {len(mode.not_ok):6d}")
    print(f"sum of in-page draw_ms (sequential run): {sum(seq.draws_ms.values()) / 1000:.2f} s")

    if args.verbose:
        print()
        print(f"{'sketch':28} {'naive ms':>9} {'seq ms':>8} {'seq draw':>8} {'conc ms':>8} "
              f"{'conc draw':>9}")
        for name in sketches:
            print(f"{name:28} {naive.walls_ms[name]:9.0f} {seq.walls_ms[name]:8.0f} "
                  f"{seq.draws_ms[name]:8d} {conc.walls_ms[name]:8.0f} {conc.draws_ms[name]:9d}")

    print()
    bad = sum(len(m.not_ok) for m in modes)
    print(f"non-ok renders: {bad} of {3 * n}")
    for mode in modes:
        for name, why in mode.not_ok.items():
            print(f"  {mode.name}: {name}: {why}")
    speedup = (n / conc.total_s) / naive_rate
    med_seq = statistics.median(seq.overheads_ms)
    med_conc = statistics.median(conc.overheads_ms)
    print(f"{'PASS' if speedup >= TARGET_SPEEDUP else 'MISS'}  default pool throughput "
          f"{speedup:.2f}x naive (target >= {TARGET_SPEEDUP:.0f}x)")
    print(f"{'PASS' if med_seq <= TARGET_MEDIAN_OVERHEAD_MS else 'MISS'}  median per-render "
          f"overhead, sequential (b): {med_seq:.0f} ms "
          f"(target <= {TARGET_MEDIAN_OVERHEAD_MS:.0f} ms)"
          f"; concurrent (c): {med_conc:.0f} ms, for information")


if __name__ == "__main__":
    main()
