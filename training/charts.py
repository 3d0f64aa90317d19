"""Server-side SVG charts for the replay lab and the run pages, readable without hovering:
every number the reader needs is printed on the chart, so a screenshot or a printout says
everything. The drawing comes first (heatmap, bars, histogram, lines), then the run page's
per-step curves (run_charts).

Each chart is a plain <svg> string (a SafeString for templates) with role="img", a <title>
and an aria-label, sized by its viewBox to 100% of its container. Every text it prints passes
through escape(): signal and series names come from users.
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

if TYPE_CHECKING:
    from .models import TrainingStep
    from .reward.spec import SignalSpec

# Okabe-Ito colours (safe for colour-blind readers) without the yellow, which vanishes on white.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
INK = "#222222"
MUTED = "#666666"
GRID = "#dddddd"
MISSING = "#eeeeee"
NEGATIVE = (33, 102, 172)   # heatmap r = -1 (blue)
POSITIVE = (178, 24, 43)    # heatmap r = +1 (red)
FONT = 12
CHAR_W = 7  # rough width of a 12 px character, to size label margins
LABEL_CHARS = 24  # longer names are cut (the full name stays in a <title> tooltip)
DASH = "\u2013"  # printed where there is no value
# The run page's curves: the time split's phases and the trainer's metrics drawn, and the
# line beside the reward saying how much of the batch its mean left out.
STEP_TIMES = ("generate", "render", "judge", "update")
STEP_METRICS = ("loss", "kl", "entropy")
NO_TOTAL_LINE = "no total (share)"


def heatmap_svg(names: Sequence[str], matrix: Sequence[Sequence[float | None]], *,
                threshold: float = 0.85,
                title: str = "Correlation between signals") -> SafeString:
    """A correlation matrix: blue (-1) - white (0) - red (+1), r printed in each cell, the
    off-diagonal cells with |r| >= threshold outlined (the signals that measure one thing)."""
    if not names:
        return _no_data(title)
    cell = 52
    label_w = _label_width(names)
    left, top = label_w + 8, int(label_w * 0.8) + 16
    size = len(names) * cell
    width, height = left + size + int(label_w * 0.8) + 12, top + size + 30
    parts, outlines = [], []
    for i, name in enumerate(names):
        y, x = top + i * cell + cell / 2, left + i * cell + cell / 2
        parts.append(_text(left - 6, y, name, anchor="end", baseline="middle", cut=True))
        parts.append(_text(x, top - 6, name, anchor="start", cut=True,
                           transform=f"rotate(-45 {x:g} {top - 6:g})"))
    for i, row in enumerate(matrix):
        for j, r in enumerate(row):
            r = _finite(r)
            x, y = left + j * cell, top + i * cell
            parts.append(_rect(x, y, cell, cell, _diverging(r), stroke="#ffffff",
                               stroke_width=1))
            if i != j and r is not None and abs(r) >= threshold:
                # Drawn after every cell, so no neighbour paints over the outline.
                outlines.append(_rect(x + 1.5, y + 1.5, cell - 3, cell - 3, "none",
                                      stroke=INK, stroke_width=3))
            dark = r is not None and abs(r) > 0.6
            parts.append(_text(x + cell / 2, y + cell / 2, DASH if r is None else f"{r:.2f}",
                               anchor="middle", baseline="middle",
                               fill="#ffffff" if dark else INK))
    parts.extend(outlines)
    parts.append(_text(left, height - 10, f"outlined: |r| \u2265 {threshold:.2f}", fill=MUTED))
    return _svg(width, height, title, parts)


def bars_svg(labels: Sequence[str], series: Mapping[str, Sequence[float | None]], *,
             max_value: float | None = None, percent: bool = False,
             title: str = "Signals") -> SafeString:
    """Grouped horizontal bars, one group per label and one bar per series (e.g. nominal
    weight vs effective share), each value printed at its bar's end; a legend on top."""
    if not labels or not series:
        return _no_data(title)
    values = [_finite(v) for column in series.values() for v in column]
    known = [v for v in values if v is not None]
    high = max([max_value or 0.0, *known, 0.0]) or 1.0
    low = min([0.0, *known])
    bar, gap = 16, 12
    label_right = _label_width(labels) + 4
    left = label_right + 8 + (48 if low < 0 else 0)  # room for a negative value's text
    plot_w = 420
    width = left + plot_w + 70
    top = 34
    group_h = bar * len(series) + gap
    height = top + group_h * len(labels) + 8

    def x_of(v: float) -> float:
        return left + (v - low) / (high - low) * plot_w

    parts = _legend(list(series), left, 16)
    zero = x_of(0.0)
    parts.append(_line(zero, top - 4, zero, height - 6, MUTED))
    for i, label in enumerate(labels):
        y0 = top + i * group_h
        parts.append(_text(label_right, y0 + bar * len(series) / 2, label, anchor="end",
                           baseline="middle", cut=True))
        for k, (name, column) in enumerate(series.items()):
            v = _finite(column[i]) if i < len(column) else None
            y = y0 + k * bar
            text = DASH if v is None else _format(v, percent)
            if v is None:
                parts.append(_text(zero + 4, y + bar / 2, text, baseline="middle", fill=MUTED))
                continue
            end = x_of(v)
            parts.append(_rect(min(zero, end), y + 1, abs(end - zero), bar - 2,
                               PALETTE[k % len(PALETTE)], title=f"{name}: {text}"))
            ahead = 4 if v >= 0 else -4
            parts.append(_text(end + ahead, y + bar / 2, text, baseline="middle",
                               anchor="start" if v >= 0 else "end"))
    return _svg(width, height, title, parts)


def histogram_svg(edges: Sequence[float], counts: Sequence[int], *, x_label: str,
                  title: str = "Histogram") -> SafeString:
    """Bars between consecutive edges, each non-zero count printed above its bar, a few
    edges ticked on the x axis."""
    if not counts or len(edges) != len(counts) + 1 or not any(counts):
        return _no_data(title)
    left, right, top, plot_h = 16, 16, 20, 160
    bin_w = max(12, min(40, 560 // len(counts)))
    width = left + bin_w * len(counts) + right
    base = top + plot_h
    height = base + 46
    peak = max(counts)
    parts = []
    for i, count in enumerate(counts):
        h = count / peak * plot_h
        x = left + i * bin_w
        label = f"{_tick(edges[i])} to {_tick(edges[i + 1])}: {count}"
        parts.append(_rect(x + 1, base - h, bin_w - 2, h, PALETTE[0], title=label))
        if count:
            parts.append(_text(x + bin_w / 2, base - h - 4, str(count), anchor="middle",
                               size=10))
    parts.append(_line(left, base, left + bin_w * len(counts), base, MUTED))
    for i in spread_indices(len(edges), 6):
        x = left + i * bin_w
        parts.append(_line(x, base, x, base + 4, MUTED))
        parts.append(_text(x, base + 16, _tick(edges[i]), anchor="middle", size=10))
    parts.append(_text(width / 2, height - 6, x_label, anchor="middle", fill=MUTED))
    return _svg(width, height, title, parts)


def lines_svg(series: Mapping[str, Sequence[tuple[float, float | None]]], *, y_label: str,
              x_label: str, title: str = "Lines", whole_x: bool = False) -> SafeString:
    """One line per series (e.g. a signal's mean reward per step); a None breaks the line;
    each line is labelled at its right end with its name and last value. `whole_x`: the x
    values count something (steps), so ticks fall on whole numbers."""
    points = {name: [(float(x), _finite(y)) for x, y in pts] for name, pts in series.items()}
    known = [(x, y) for pts in points.values() for x, y in pts if y is not None]
    if not known:
        return _no_data(title)
    xs, ys = [x for x, _ in known], [y for _, y in known]
    x_ticks, y_ticks = _nice_ticks(min(xs), max(xs), whole=whole_x), _nice_ticks(min(ys), max(ys))
    left, top, plot_w, plot_h = 56, 14, 440, 220
    label_w = _label_width(points) + 6 * CHAR_W
    width, height = left + plot_w + label_w + 16, top + plot_h + 48

    def at(x: float, y: float) -> tuple[float, float]:
        return (left + _unit(x, x_ticks) * plot_w, top + plot_h - _unit(y, y_ticks) * plot_h)

    parts = _axes(x_ticks, y_ticks, at, left, top, plot_w, plot_h)
    ends = []
    for k, (name, pts) in enumerate(points.items()):
        colour = PALETTE[k % len(PALETTE)]
        parts.extend(_polyline([at(x, y) if y is not None else None for x, y in pts], colour))
        last = next(((x, y) for x, y in reversed(pts) if y is not None), None)
        if last is not None:
            ends.append([at(*last)[1], f"{_cut(name)} {_tick(last[1])}", colour])
    for y, text, colour in _spaced(ends, FONT + 2):
        parts.append(_text(left + plot_w + 8, y, text, baseline="middle", fill=colour))
    parts.append(_text(left + plot_w / 2, height - 6, x_label, anchor="middle", fill=MUTED))
    parts.append(_text(14, top + plot_h / 2, y_label, anchor="middle", fill=MUTED,
                       transform=f"rotate(-90 14 {top + plot_h / 2:g})"))
    return _svg(width, height, title, parts)


# --- the run page's curves --------------------------------------------------------------------

def run_charts(steps: Sequence[TrainingStep], specs: Sequence[SignalSpec], *,
               batch: int | None = None) -> list[dict]:
    """Per-step curves of a run: the reward and each signal's mean, beside them the share of
    the step's `batch` rollouts with no total, the gate and the hallucinated-API rate,
    completion lengths, the time split, and the trainer's loss, KL and entropy; each a
    {caption, svg}."""
    names = [spec.name for spec in specs]
    names += sorted({name for s in steps for name in s.signals} - set(names))

    def series(value) -> list[tuple[int, float | None]]:
        return [(s.step, value(s)) for s in steps]

    def per_step(lines: dict, *, y_label: str, title: str):
        return lines_svg(lines, y_label=y_label, x_label="step", whole_x=True, title=title)

    def signal_mean(name: str):
        return series(lambda s: (s.signals.get(name) or {}).get("mean"))

    def no_total_share(step: TrainingStep) -> float | None:
        return step.no_total / batch if step.no_total is not None and batch else None

    return [
        {"caption": "Mean reward per step: the total and each signal, and the share of "
                    "rollouts with no total (a weighted signal missing: left out of the "
                    "mean and of their group)",
         "svg": per_step({"total": series(lambda s: s.reward_mean),
                          **{name: signal_mean(name) for name in names},
                          NO_TOTAL_LINE: series(no_total_share)},
                          y_label="mean", title="Reward per step")},
        {"caption": "Gate passed, unknown brush methods called (the hallucinated-API rate), "
                    "and groups with zero spread (no advantage), as shares of the step",
         "svg": per_step({"gate pass": series(lambda s: s.gate_pass),
                          "unknown methods": series(lambda s: s.unknown_method_rate),
                          "zero-spread groups": series(lambda s: s.zero_spread_groups)},
                          y_label="share", title="Gate and unknown methods")},
        {"caption": "Completion length in tokens: mean, shortest and longest",
         "svg": per_step({k: series(lambda s, k=k: s.completion_tokens.get(k))
                          for k in ("mean", "min", "max")},
                          y_label="tokens", title="Completion tokens")},
        {"caption": "Seconds per step, by phase",
         "svg": per_step({k: series(lambda s, k=k: s.times.get(k)) for k in STEP_TIMES},
                          y_label="seconds", title="Step time split")},
        {"caption": "The trainer's loss, KL to the reference and entropy",
         "svg": per_step({k: series(lambda s, k=k: s.metrics.get(k)) for k in STEP_METRICS},
                          y_label="value", title="Trainer metrics")},
    ]


# --- pieces ----------------------------------------------------------------------------------

def _svg(width: float, height: float, title: str, parts: list[str]) -> SafeString:
    label = escape(title)
    return mark_safe(
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:g} {height:g}" '
        f'width="100%" style="max-width:{width:g}px;height:auto" role="img" '
        f'aria-label="{label}" font-family="system-ui, sans-serif" font-size="{FONT}">'
        f'<title>{label}</title>{"".join(parts)}</svg>')


def _no_data(title: str) -> SafeString:
    return _svg(240, 40, title, [_text(120, 20, "no data", anchor="middle",
                                       baseline="middle", fill=MUTED)])


def _text(x: float, y: float, text: str, *, anchor: str = "start", baseline: str = "auto",
          fill: str = INK, size: int = FONT, transform: str = "", cut: bool = False) -> str:
    """Escaped text; with cut, a long name is shortened and kept whole in a tooltip."""
    text = str(text)
    shown = _cut(text) if cut else text
    tip = f"<title>{escape(text)}</title>" if shown != text else ""
    extra = f' transform="{transform}"' if transform else ""
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" '
            f'dominant-baseline="{baseline}" fill="{fill}" font-size="{size}"{extra}>'
            f'{tip}{escape(shown)}</text>')


def _rect(x: float, y: float, w: float, h: float, fill: str, *, stroke: str = "none",
          stroke_width: float = 0, title: str = "") -> str:
    tip = f"<title>{escape(title)}</title>" if title else ""
    return (f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{stroke_width:g}">{tip}</rect>')


def _line(x1: float, y1: float, x2: float, y2: float, colour: str) -> str:
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{colour}" stroke-width="1"/>')


def _legend(names: list[str], x: float, y: float) -> list[str]:
    parts = []
    for k, name in enumerate(names):
        parts.append(_rect(x, y - 6, 12, 12, PALETTE[k % len(PALETTE)]))
        parts.append(_text(x + 16, y, name, baseline="middle", cut=True))
        x += 16 + min(len(name), LABEL_CHARS) * CHAR_W + 18
    return parts


def _polyline(points: list[tuple[float, float] | None], colour: str) -> list[str]:
    """Path segments between gaps; a point alone between gaps is drawn as a dot."""
    runs, run = [], []
    for point in [*points, None]:
        if point is None:
            if run:
                runs.append(run)
            run = []
        else:
            run.append(point)
    parts = []
    for run in runs:
        if len(run) == 1:
            parts.append(f'<circle cx="{run[0][0]:.1f}" cy="{run[0][1]:.1f}" r="2.5" '
                         f'fill="{colour}"/>')
            continue
        path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in enumerate(run))
        parts.append(f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
    return parts


def _axes(x_ticks: list[float], y_ticks: list[float], at, left: float, top: float,
          plot_w: float, plot_h: float) -> list[str]:
    parts = [_line(left, top + plot_h, left + plot_w, top + plot_h, MUTED),
             _line(left, top, left, top + plot_h, MUTED)]
    for value in y_ticks:
        _, y = at(x_ticks[0], value)
        parts.append(_line(left, y, left + plot_w, y, GRID))
        parts.append(_text(left - 6, y, _tick(value), anchor="end", baseline="middle", size=10))
    for value in x_ticks:
        x, _ = at(value, y_ticks[0])
        parts.append(_line(x, top + plot_h, x, top + plot_h + 4, MUTED))
        parts.append(_text(x, top + plot_h + 16, _tick(value), anchor="middle", size=10))
    return parts


def _spaced(ends: list[list], gap: float) -> list[list]:
    """End labels sorted by height and pushed apart so that none overlap."""
    ends = sorted(ends, key=lambda end: end[0])
    for previous, end in zip(ends, ends[1:], strict=False):
        end[0] = max(end[0], previous[0] + gap)
    return ends


# --- numbers ---------------------------------------------------------------------------------

def _cut(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[:LABEL_CHARS - 1] + "\u2026"


def _finite(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _diverging(r: float | None) -> str:
    """White at 0, towards red for +1 and blue for -1; grey where r is undefined."""
    if r is None:
        return MISSING
    end = POSITIVE if r > 0 else NEGATIVE
    t = min(abs(r), 1.0)
    red, green, blue = (round(255 + (c - 255) * t) for c in end)
    return f"#{red:02x}{green:02x}{blue:02x}"


def _format(value: float, percent: bool) -> str:
    if not percent:
        return f"{value:.2f}"
    return f"{value:.0%}" if abs(value) >= 0.1 or value == 0 else f"{value:.1%}"


def _tick(value: float) -> str:
    return f"{value:.3g}"


def _label_width(names) -> int:
    return min(max((len(str(name)) for name in names), default=0), LABEL_CHARS) * CHAR_W


def _nice_ticks(low: float, high: float, count: int = 5, whole: bool = False) -> list[float]:
    """Round tick values (1, 2 or 5 times a power of ten) that cover low..high; `whole`:
    steps of at least 1."""
    if high - low <= 1e-12:
        low, high = low - 0.5, high + 0.5
    raw = (high - low) / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    if whole:
        step = max(1.0, round(step))
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [round(i * step, 12) for i in range(first, last + 1)]


def _unit(value: float, ticks: list[float]) -> float:
    return (value - ticks[0]) / (ticks[-1] - ticks[0])


def spread_indices(size: int, count: int) -> list[int]:
    """About `count` indices spread evenly over range(size), both ends included."""
    if size <= count:
        return list(range(size))
    return sorted({round(i * (size - 1) / (count - 1)) for i in range(count)})
