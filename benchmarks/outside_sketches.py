"""How do sketches written in the styles people publish fare? Renders each of
benchmarks/outside/*.js (written here in the styles found in public p5.brush
sketches: the library's README and examples, personal sketchbooks) through the
real gate, the p5.brush version detected from its calls, and prints each
verdict and the count that render ok. docs/outside-sketches.md reports the
figures and says what each sketch stands for. `--folder` renders another
folder's sketches the same way (a collection studied, kept outside the
repository).

    flock /tmp/paintrl-tests.lock .venv/bin/python benchmarks/outside_sketches.py
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.rendering import AUTO_BRUSH, BRUSHES, render_text  # noqa: E402

OUTSIDE = ROOT / "benchmarks" / "outside"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--brush", choices=BRUSHES, default=AUTO_BRUSH)
    parser.add_argument("--deadline", type=float, default=30.0)
    parser.add_argument("--folder", type=Path, default=OUTSIDE,
                        help="the sketches (*.js) to render (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    paths = sorted(args.folder.glob("*.js"))
    if not paths:
        parser.error(f"no *.js sketches in {args.folder}")
    ok = 0
    with RenderPool(RendererConfig(browsers=1, deadline_s=args.deadline)) as pool:
        for path in paths:
            outcome = render_text(pool, path.read_text(errors="replace"), seed=args.seed,
                                  brush=args.brush)
            ok += outcome.status == "ok"
            libs = " ".join(f"{k} {v}" for k, v in sorted(outcome.libraries.items()))
            print(f"{path.name}: {outcome.status} {outcome.violations} ({libs}, "
                  f"{outcome.width}x{outcome.height} at density {outcome.pixel_density:g}, "
                  f"{outcome.elapsed_ms} ms) {outcome.details or ''}")
    print(f"ok: {ok} of {len(paths)}")


if __name__ == "__main__":
    main()
