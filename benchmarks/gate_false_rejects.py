"""Does the gate's plain-painting rule (sketches/gate.py, PLAIN_PAINT_SHARE and
PLAIN_PAINT_COVER) reject honest paintings? And does it reject every hybrid?

Renders the painter's 300 test seeds (tests/test_painter.py, STATIC_SEEDS, at
the painter's default size), tests/sketches/good and the hostile hybrids
(tests/sketches/hostile/hybrid_*.js) through the real gate, and prints how
many honest sketches were rejected (and why), how many hybrids passed, and the
paint ledger's plain share and cover at the extremes of each group, so the
constants can be set between them.

    flock /tmp/paintrl-tests.lock .venv/bin/python benchmarks/gate_false_rejects.py
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sketches import gate  # noqa: E402
from sketches.code_text import extract_code  # noqa: E402
from sketches.painter import paint  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.rendering import render_text  # noqa: E402

SKETCHES = ROOT / "tests" / "sketches"


class RecordingPool:
    """The pool, keeping each render's page account for the ledger figures."""

    def __init__(self, pool: RenderPool) -> None:
        self._pool = pool
        self.snapshots: dict[tuple[str, int], dict] = {}

    def render(self, code: str, seed: int, brush: str = "2", deadline_s: float | None = None):
        run = self._pool.render(code, seed, brush, deadline_s=deadline_s)
        self.snapshots[(code, seed)] = run.snapshot
        return run

    def __getattr__(self, name):
        return getattr(self._pool, name)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=300)
    parser.add_argument("--browsers", type=int, default=2)
    args = parser.parse_args()
    honest = [(f"painter seed {s}", paint(s).code, s) for s in range(args.seeds)]
    honest += [(f"good/{p.name}", p.read_text(), 0)
               for p in sorted((SKETCHES / "good").glob("*.js"))]
    hybrids = [(f"hostile/{p.name}", p.read_text(), 0)
               for pattern in ("hybrid_*.js", "callback_*.js")
               for p in sorted((SKETCHES / "hostile").glob(pattern))]
    with RenderPool(RendererConfig(browsers=args.browsers)) as real:
        pool = RecordingPool(real)
        with ThreadPoolExecutor(max_workers=args.browsers) as workers:
            def render(case):
                name, code, seed = case
                outcome = render_text(pool, code, seed, brush="auto")
                share, cover = gate.plain_paint(pool.snapshots.get((extract_code(code), seed), {}))
                return name, outcome, share, cover
            results = list(workers.map(render, honest + hybrids))
    honest_results, hybrid_results = results[:len(honest)], results[len(honest):]
    rejected = [(n, o) for n, o, _, _ in honest_results if o.status != "ok"]
    why = Counter(v for _, o in rejected for v in o.violations)
    print(f"honest sketches: {len(honest_results)}, rejected: {len(rejected)} {dict(why)}")
    for name, outcome in rejected:
        print(f"  {name}: {outcome.status} {outcome.details}")
    passed = [n for n, o, _, _ in hybrid_results if gate.PLAIN_PAINTING not in o.violations]
    print(f"hybrids: {len(hybrid_results)}, not plain_painting: {len(passed)} {passed}")
    top = sorted(honest_results, key=lambda r: r[2], reverse=True)[:5]
    print("honest, highest plain share: " + ", ".join(
        f"{n} {s:.3f} (cover {c:.4f})" for n, _, s, c in top))
    print(f"honest, highest plain cover: {max(c for *_, c in honest_results):.4f}")
    print("hybrids: " + ", ".join(f"{n} {s:.3f} (cover {c:.4f})" for n, _, s, c in hybrid_results))


if __name__ == "__main__":
    main()
