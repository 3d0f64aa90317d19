"""The render cost floor: what a light sketch costs, and where it goes.

Renders the 20 light sketches in benchmarks/light/ (one to a dozen strokes,
or one small wash, at 400 px) two ways in one run, each at full pool width
(the default number of browsers, one thread per browser, every core busy):

  today   RendererConfig(software_compositing=False, await_finish=False):
          the page composited through SwiftShader and the sketch's end polled
          every 10 ms, the renderer before these two changes;
  new     RendererConfig(): the defaults.

The ways take turns (--rounds rounds, the order swapped each round) so the
machine's noise falls on both alike. For each way it prints wall time and
throughput for the 20, the ratio new/today, and the CPU each render cost
by Chromium process (the GPU process, where SwiftShader compiles and draws;
the renderers, where p5, p5.brush and the sketch run; the browser), read from
/proc for this process's own descendants, so other work on the machine is
not counted. Then the pictures: the verdicts must match, and the mean
absolute difference per channel be at most 0.3 levels.

--heavy N adds N of the painter's good tier at --heavy-size px, rendered both
ways the same way, to show that heavy paintings are no slower.

    .venv/bin/python benchmarks/render_floor.py [--rounds 3] [--heavy 6]
        [--heavy-size 400] [--browsers N]

It asserts nothing: the PASS/MISS lines say whether the targets were met
(throughput at least 1 / 0.4 = 2.5x today's, pictures within 0.3 levels).
Figures depend on the machine; compare runs on the same machine only.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from sketches.painter import paint  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.renderer.config import DEFAULT_BROWSERS  # noqa: E402
from sketches.renderer.fidelity import MEAN_LEVELS_MAX, picture_difference  # noqa: E402
from sketches.rendering import render_text  # noqa: E402

LIGHT = Path(__file__).resolve().parent / "light"
TARGET_RATIO = 1 / 0.4
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# Chromium names each child process's kind in its command line.
KINDS = ("gpu-process", "renderer", "utility", "zygote")


def descendants_cpu() -> dict[tuple[int, str], float]:
    """CPU seconds so far of every process below this one, keyed by pid and
    Chromium process kind ("browser" for the browser itself, "other" for
    what is not Chromium: Playwright's driver, the sandbox launcher)."""
    parents, stats = {}, {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                # Chromium rewrites its children's titles with spaces.
                args = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        stats[pid] = ((int(fields[11]) + int(fields[12])) / CLOCK_TICKS, args)
    mine, frontier = set(), {os.getpid()}
    while frontier:
        frontier = {pid for pid, parent in parents.items() if parent in frontier} - mine
        mine |= frontier
    out = {}
    for pid in mine:
        cpu, args = stats[pid]
        kind = next((k for k in KINDS if f"--type={k}" in args), None)
        if kind is None:
            kind = "browser" if "chromium" in args.split(" ", 1)[0] else "other"
        out[(pid, kind)] = cpu
    return out


def cpu_spent(before: dict, after: dict) -> dict[str, float]:
    """CPU seconds by kind between two readings (a process that ended in
    between is lost: its last reading is unknown)."""
    spent: dict[str, float] = {}
    for key, cpu in after.items():
        spent[key[1]] = spent.get(key[1], 0.0) + cpu - before.get(key, 0.0)
    return spent


class Way:
    def __init__(self, name: str, config: RendererConfig) -> None:
        self.name = name
        self.config = config
        self.wall_s = 0.0
        self.renders = 0
        self.cpu: dict[str, float] = {}
        self.outcomes: dict[str, list] = {}

    def run(self, pool: RenderPool, threads: ThreadPoolExecutor,
            sketches: list[tuple[str, str]]) -> None:
        before = descendants_cpu()
        started = time.perf_counter()
        outcomes = list(threads.map(lambda item: render_text(pool, item[1], 0), sketches))
        self.wall_s += time.perf_counter() - started
        for kind, cpu in cpu_spent(before, descendants_cpu()).items():
            self.cpu[kind] = self.cpu.get(kind, 0.0) + cpu
        self.renders += len(sketches)
        for (name, _code), outcome in zip(sketches, outcomes, strict=True):
            self.outcomes.setdefault(name, []).append(outcome)

    def per_render_ms(self, kind: str) -> float:
        return 1000 * self.cpu.get(kind, 0.0) / self.renders


def compare(today: Way, new: Way) -> tuple[list[str], list[float]]:
    """Sketches whose verdicts differ, and each sketch's picture difference
    (its first render each way)."""
    differ, mads = [], []
    for name, olds in today.outcomes.items():
        news = new.outcomes[name]
        if {o.status for o in olds} != {o.status for o in news}:
            differ.append(f"{name}: {olds[0].status} -> {news[0].status}")
        if olds[0].png and news[0].png:
            mads.append(picture_difference(olds[0].png, news[0].png)[0])
    return differ, mads


def report(label: str, today: Way, new: Way, target: float | None) -> None:
    print(f"\n{label}: {today.renders // max(1, len(today.outcomes))} x {len(today.outcomes)} "
          f"renders each way")
    kinds = ("gpu-process", "renderer", "browser", "utility", "other")
    print(f"{'way':6} {'wall s':>7} {'r/s':>6} {'ms/r':>6}   CPU ms a render: "
          + " ".join(f"{k:>11}" for k in kinds) + f" {'total':>7}")
    for way in (today, new):
        total = sum(way.per_render_ms(k) for k in kinds)
        print(f"{way.name:6} {way.wall_s:7.2f} {way.renders / way.wall_s:6.2f} "
              f"{1000 * way.wall_s / way.renders:6.0f}   {'':17}"
              + " ".join(f"{way.per_render_ms(k):11.0f}" for k in kinds) + f" {total:7.0f}")
    ratio = (new.renders / new.wall_s) / (today.renders / today.wall_s)
    print(f"throughput new/today: {ratio:.2f}x (wall time {1 / ratio:.2f} of today's)")
    differ, mads = compare(today, new)
    print(f"verdicts that differ: {len(differ)}" + "".join(f"\n  {d}" for d in differ))
    mean_mad = float(np.mean(mads)) if mads else float("nan")
    print(f"picture difference: mean {mean_mad:.3f} levels, worst "
          f"{max(mads) if mads else float('nan'):.3f} ({len(mads)} pairs)")
    if target is not None:
        print(f"{'PASS' if ratio >= target else 'MISS'}  throughput {ratio:.2f}x today's "
              f"(target >= {target:.1f}x: wall time at most 0.4 of today's)")
    else:
        print(f"{'PASS' if ratio >= 0.95 else 'MISS'}  no slower (target >= 0.95x, "
              "the machine's noise)")
    print(f"{'PASS' if not differ and mean_mad <= MEAN_LEVELS_MAX else 'MISS'}  same verdicts, "
          f"pictures within {MEAN_LEVELS_MAX} levels")


def race(sketches: list[tuple[str, str]], rounds: int, browsers: int,
         deadline_s: float) -> tuple[Way, Way]:
    today = Way("today", RendererConfig(browsers=browsers, deadline_s=deadline_s,
                                        software_compositing=False, await_finish=False))
    new = Way("new", RendererConfig(browsers=browsers, deadline_s=deadline_s))
    with (RenderPool(today.config) as today_pool, RenderPool(new.config) as new_pool,
          ThreadPoolExecutor(max_workers=browsers) as threads):
        pools = {today: today_pool, new: new_pool}
        # Warm both: the first renders of a browser compile what later ones reuse.
        for way, pool in pools.items():
            list(threads.map(lambda item, p=pool: render_text(p, item[1], 0),
                             sketches[:2 * browsers]))
        for index in range(rounds):
            order = (today, new) if index % 2 == 0 else (new, today)
            for way in order:
                way.run(pools[way], threads, sketches)
            print(f"  round {index + 1}: today {today.wall_s:.2f} s, new {new.wall_s:.2f} s "
                  "so far", flush=True)
    return today, new


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--browsers", type=int, default=DEFAULT_BROWSERS)
    parser.add_argument("--heavy", type=int, default=6,
                        help="painter good-tier sketches to race too (0: none)")
    parser.add_argument("--heavy-size", type=int, default=400)
    args = parser.parse_args()
    light = [(path.name, path.read_text()) for path in sorted(LIGHT.glob("*.js"))]
    print(f"{len(light)} light sketches, {args.browsers} browsers a pool, "
          f"{args.rounds} rounds", flush=True)
    today, new = race(light, args.rounds, args.browsers, deadline_s=30.0)
    report("light sketches", today, new, TARGET_RATIO)
    if args.heavy:
        good = []
        seed = 0
        while len(good) < args.heavy:
            sketch = paint(seed, size=args.heavy_size)
            if sketch.meta["quality"] == "good":
                good.append((f"painter seed {seed}", sketch.code))
            seed += 1
        today, new = race(good, 1, args.browsers, deadline_s=60.0)
        report(f"heavy: the painter's good tier at {args.heavy_size} px", today, new, None)


if __name__ == "__main__":
    main()
