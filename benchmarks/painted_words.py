"""Painted words: does the OCR check (sketches/painted_words.py) catch words
laid with brush strokes, leave honest paintings alone, and cost little next to
a render?

Renders, through the real gate (render_text, words rejected: the default):
the painted-word corpus (benchmarks/painted_words_corpus.py), the letter-like
honest paintings (tests/sketches/letterlike/), the 303 honest sketches of
benchmarks/gate_false_rejects.py (the painter's 300 test seeds and
tests/sketches/good) and a sample of the painter's sketches from seeds of its
own. Prints the share of word sketches caught (target at least 95 %), the
share of honest sketches flagged (target at most 1 %) with what was read in
each, and the OCR's time against the render's, side by side in this run
(target: the median OCR at most 10 % of the median render).

    flock /tmp/paintrl-tests.lock .venv/bin/python benchmarks/painted_words.py \
        [--seeds 300] [--sample 100] [--sample-start 1000] [--words N] [--browsers 2]

A short run: --seeds 20 --sample 10 --words 10.
"""
from __future__ import annotations

import argparse
import statistics
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from painted_words_corpus import letterlike_sketches, word_sketches  # noqa: E402
from render_floor import cpu_spent, descendants_cpu  # noqa: E402

from sketches import gate  # noqa: E402
from sketches.painted_words import DETECT_MAX_SIDE, OCR_MAX_SIDE  # noqa: E402
from sketches.painter import paint  # noqa: E402
from sketches.renderer import RendererConfig, RenderPool  # noqa: E402
from sketches.rendering import render_text  # noqa: E402

SKETCHES = ROOT / "tests" / "sketches"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=300, help="the painter's test seeds")
    parser.add_argument("--sample", type=int, default=100, help="painter sample size")
    parser.add_argument("--sample-start", type=int, default=1000,
                        help="the sample's first seed (clear of the test seeds)")
    parser.add_argument("--words", type=int, default=None, help="only the first N word sketches")
    parser.add_argument("--browsers", type=int, default=2)
    args = parser.parse_args()
    groups = {
        "words": [(c.name, c.code, 0) for c in word_sketches()[:args.words]],
        "letter-like": [(name, code, 0) for name, code in letterlike_sketches()],
        "honest": [(f"painter seed {s}", paint(s).code, s) for s in range(args.seeds)]
        + [(f"good/{p.name}", p.read_text(), 0) for p in sorted((SKETCHES / "good").glob("*.js"))],
        "painter sample": [(f"painter seed {s}", paint(s).code, s)
                           for s in range(args.sample_start, args.sample_start + args.sample)],
    }
    cases = [(group, *case) for group, members in groups.items() for case in members]
    with RenderPool(RendererConfig(browsers=args.browsers)) as pool:
        before = descendants_cpu()
        with ThreadPoolExecutor(max_workers=args.browsers) as workers:
            outcomes = list(workers.map(
                lambda case: render_text(pool, case[2], case[3], brush="auto"), cases))
        browser_cpu = sum(cpu_spent(before, descendants_cpu()).values())
    results: dict[str, list] = {group: [] for group in groups}
    for (group, name, *_), outcome in zip(cases, outcomes, strict=True):
        results[group].append((name, outcome))
    print(f"OCR: detector at most {DETECT_MAX_SIDE} px a side, recogniser {OCR_MAX_SIDE} px; "
          f"{args.browsers} browsers")
    report_words(results["words"])
    for group in ("letter-like", "honest", "painter sample"):
        report_honest(group, results[group])
    for group, members in results.items():
        report_time(group, [o for _, o in members])
    report_time("all", outcomes)
    # CPU against CPU: the load of a busy machine inflates both wall times.
    ocr_cpu = sum(o.ocr_cpu_ms for o in outcomes) / len(outcomes)
    print(f"CPU a render, all {len(outcomes)}: Chromium {1000 * browser_cpu / len(outcomes):.0f} ms"
          f" (its processes under this one, read from /proc; one that ended is lost), OCR "
          f"{ocr_cpu:.0f} ms (median over those read "
          f"{statistics.median(o.ocr_cpu_ms for o in outcomes if o.ocr_ms):.0f} ms)")


def report_words(results: list) -> None:
    caught = [(n, o) for n, o in results if gate.PAINTED_WORDS in o.violations]
    print(f"word sketches: {len(results)}, caught: {len(caught)} "
          f"({share(len(caught), len(results))})")
    for name, outcome in results:
        if gate.PAINTED_WORDS not in outcome.violations:
            print(f"  missed {name}: {outcome.status} {outcome.violations} {outcome.errors[:1]}")


def report_honest(group: str, results: list) -> None:
    flagged = [(n, o) for n, o in results if gate.PAINTED_WORDS in o.violations]
    other = [(n, o) for n, o in results if o.status != "ok" and (n, o) not in flagged]
    print(f"{group}: {len(results)}, flagged: {len(flagged)} ({share(len(flagged), len(results))})"
          f", rejected otherwise or unavailable: {len(other)}")
    for name, outcome in flagged:
        print(f"  {name}: {outcome.details[gate.PAINTED_WORDS]}")
    for name, outcome in other:
        print(f"  {name}: {outcome.status} {outcome.violations} {outcome.errors[:1]}")


def report_time(group: str, outcomes: list) -> None:
    """The OCR against the render, over the renders the OCR read."""
    read = [o for o in outcomes if o.ocr_ms]
    if not read:
        return
    ocr = sorted(o.ocr_ms for o in read)
    render = statistics.median(o.elapsed_ms for o in read)
    print(f"time, {group} ({len(read)} read): render median {render:.0f} ms; OCR median "
          f"{statistics.median(ocr):.0f} ms, p90 {ocr[int(len(ocr) * 0.9)]:.0f} ms, max "
          f"{ocr[-1]:.0f} ms; median OCR / median render {statistics.median(ocr) / render:.1%}")


def share(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "-"


if __name__ == "__main__":
    main()
