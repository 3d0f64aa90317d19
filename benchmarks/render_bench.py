"""Render benchmark: what does the browser pool buy over a browser per sketch?

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

    .venv/bin/python benchmarks/render_bench.py [--limit N] [--seed S] [--verbose]

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

from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.rendering import OK, render_text  # noqa: E402

CORPUS = Path(__file__).resolve().parent / "corpus"
TARGET_SPEEDUP = 3.0
TARGET_MEDIAN_OVERHEAD_MS = 100.0


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
    parser.add_argument("--limit", type=int, default=None, help="use the first N sketches")
    parser.add_argument("--seed", type=int, default=0, help="render seed (default 0)")
    parser.add_argument("--verbose", action="store_true", help="also print per-sketch times")
    args = parser.parse_args()

    files = sorted(CORPUS.glob("*.js"))[: args.limit]
    sketches = {f.stem: f.read_text() for f in files}
    n = len(sketches)
    print(f"machine: {os.cpu_count()} CPUs (os.cpu_count()); default pool size "
          f"{RendererConfig().browsers} browsers; {n} sketches, seed {args.seed}")

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
