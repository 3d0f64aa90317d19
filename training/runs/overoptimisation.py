"""The overoptimisation curve (Gao, Schulman and Hilton 2022): per step, the
reward the policy optimises (the proxy: the rubric's total, which the run's
judge answers) beside the yardstick's score of the same rollouts (with a
gold judge, the gold), and the policy's KL from its start where the trainer
measures it (beta > 0). Proxy up with gold up is taste learnt; proxy up with
gold flat or falling is the proxy's blind spots found, and the step where
gold stops rising is the number a user needs: train no longer than that.

Both curves are noisy (16 rollouts a step), so they are read smoothed by a
centred mean over SMOOTHING steps. "Stops rising" is said only with the
evidence for it: the smoothed gold peaks before the last STILL_RISING share
of the run, and from the peak on gold's least-squares slope is not positive
while the proxy's is. Otherwise the curve says gold was still rising (or
never rose) over the steps there are."""
from __future__ import annotations

from dataclasses import dataclass

from ..diagnostics import least_squares, smoothed
from ..models import TrainingRun, TrainingStep

# 9 steps: 144 rollouts a point at the default 2 x 8; a third of a 30-step run.
SMOOTHING = 9
# A peak inside the run's last fifth is the end of the curve, not a turn.
STILL_RISING = 0.2
# Fewer steps than this with a yardstick score say nothing about a turn.
MIN_STEPS = 12


@dataclass(frozen=True)
class CurvePoint:
    step: int
    proxy: float | None  # the step's mean reward
    gold: float | None  # the yardstick's mean score of its rollouts
    kl: float | None  # the trainer's KL from the reference policy (beta > 0 only)


def run_curve(run: TrainingRun) -> list[CurvePoint]:
    """Every step of the run that the yardstick scored, in order."""
    rows = (TrainingStep.objects.filter(run=run, yardstick_mean__isnull=False)
            .order_by("step").values_list("step", "reward_mean", "yardstick_mean", "metrics"))
    return [CurvePoint(step=step, proxy=proxy, gold=gold, kl=(metrics or {}).get("kl"))
            for step, proxy, gold, metrics in rows]


def curve_summary(points: list[CurvePoint], window: int = SMOOTHING) -> dict | None:
    """The curve smoothed, where smoothed gold peaks, and whether it stopped
    rising there (module docstring); None for fewer than MIN_STEPS points
    with both values."""
    points = [p for p in points if p.proxy is not None and p.gold is not None]
    if len(points) < MIN_STEPS:
        return None
    steps = [p.step for p in points]
    gold = smoothed([p.gold for p in points], window)
    proxy = smoothed([p.proxy for p in points], window)
    peak = max(range(len(gold)), key=gold.__getitem__)
    after = slice(peak, None)
    turned = False
    if len(points) - peak >= max(3, int(STILL_RISING * len(points))):
        gold_after = least_squares(steps[after], [p.gold for p in points[after]])
        proxy_after = least_squares(steps[after], [p.proxy for p in points[after]])
        turned = gold_after["slope"] <= 0 < proxy_after["slope"]
    else:
        gold_after = proxy_after = None
    return {
        "steps": steps, "gold": gold, "proxy": proxy, "window": window,
        "kl": [p.kl for p in points] if any(p.kl is not None for p in points) else None,
        "gold_trend": least_squares(steps, [p.gold for p in points]),
        "proxy_trend": least_squares(steps, [p.proxy for p in points]),
        "peak_step": steps[peak], "peak_gold": gold[peak],
        "start_gold": gold[0], "end_gold": gold[-1],
        "start_proxy": proxy[0], "peak_proxy": proxy[peak], "end_proxy": proxy[-1],
        "gold_after_peak": gold_after, "proxy_after_peak": proxy_after,
        "stopped_rising": turned,
    }


def curve_verdict(summary: dict) -> str:
    """One sentence on what the curve shows."""
    gold_t = summary["gold_trend"]["t"]
    t_text = "undefined" if gold_t is None else f"{gold_t:.2f}"
    if summary["stopped_rising"]:
        after = summary["gold_after_peak"]
        return (f"gold stopped rising at step {summary['peak_step']} (smoothed "
                f"{summary['start_gold']:.3f} -> {summary['peak_gold']:.3f}) while the proxy "
                f"went on ({summary['peak_proxy']:.3f} -> {summary['end_proxy']:.3f}); after "
                f"it gold's slope is {after['slope']:+.4f} a step")
    direction = "rose" if summary["gold_trend"]["slope"] > 0 else "did not rise"
    return (f"gold {direction} over the run (smoothed {summary['start_gold']:.3f} -> "
            f"{summary['end_gold']:.3f}, slope t = {t_text}; proxy "
            f"{summary['start_proxy']:.3f} -> {summary['end_proxy']:.3f}), with no turn "
            "before the run's end")
