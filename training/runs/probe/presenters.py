"""What the pages show of the probe: on the run page, the mean yardstick
score per probe (and per prompt) and, per prompt, a film strip of its
samples' renders across the probes, the first and the last side by side; on
the compare page, each run's mean as one line."""
from __future__ import annotations

from django.utils.safestring import SafeString

from ...charts import lines_svg, spread_indices
from ...models import TrainingRun
from ..overoptimisation import CurvePoint, curve_summary, curve_verdict, run_curve
from .selectors import probe_means, probe_prompt_means, probe_samples

# Probes a film strip shows: the first, the last and evenly between. A long
# run probes hundreds of times; eight frames of two samples fit a wide row.
STRIP_FRAMES = 8
Y_LABEL = "yardstick score"


def run_probe(run: TrainingRun) -> dict | None:
    """The run page's probe section: its plan as launched, the chart (None
    before the first probe) and a strip per prompt; None for a run launched
    without a probe."""
    plan = (run.launched_config or {}).get("probe")
    if not plan:
        return None
    means = probe_means(run)
    steps = [m.step for m in means]
    per_prompt = probe_prompt_means(run)
    chart = None
    if means:
        chart = lines_svg({"mean": [(m.step, m.mean) for m in means],
                           **{f"{i + 1}. {prompt}": per_prompt.get(i, [])
                              for i, prompt in enumerate(plan["prompts"])}},
                          y_label=Y_LABEL, x_label="step", title="Probe", whole_x=True)
    spread = spread_indices(len(steps), STRIP_FRAMES)
    shown = [steps[i] for i in spread]
    samples = probe_samples(run, shown)
    strips = []
    for i, prompt in enumerate(plan["prompts"]):
        frames = [{"step": step, "samples": [s for s in samples
                                             if s.prompt_index == i and s.probe.step == step]}
                  for step in shown]
        strips.append({"number": i + 1, "prompt": prompt, "frames": frames,
                       "ends": [frames[0], frames[-1]] if len(frames) > 1 else frames})
    # The table beside the chart: the probes the strips show, each mean with
    # its standard error, so a change can be told from the probe's own noise.
    table = [means[i] for i in spread]
    return {"plan": plan, "chart": chart, "strips": strips, "table": table,
            "yardstick": yardstick_name(plan)}


def yardstick_name(plan: dict) -> str:
    """How the pages name a run's yardstick: the gold judge, or a yardstick."""
    yardstick = plan["yardstick"]
    if yardstick.get("role") == "gold":
        accuracy = (yardstick.get("gold") or {}).get("heldout_pairwise_accuracy")
        shown = f", {accuracy:.3f} held-out accuracy on the painter's tiers" if accuracy else ""
        return f"gold judge v{yardstick['version']}{shown}"
    return f"yardstick v{yardstick['version']}"


def run_overoptimisation(run: TrainingRun) -> dict | None:
    """The run page's overoptimisation section; None for a run launched
    without a probe."""
    plan = (run.launched_config or {}).get("probe")
    if not plan:
        return None
    return overoptimisation_section(run_curve(run), yardstick=plan["yardstick"])


def overoptimisation_section(points: list[CurvePoint], *, yardstick: dict,
                             x_label: str = "step") -> dict:
    """A page's overoptimisation section (overoptimisation.py), for a run's
    steps or an external run's client steps: gold (the yardstick on each
    step's rollouts) and proxy per step, gold against proxy (and against KL
    where the trainer measured it), and the verdict. `yardstick` is what was
    frozen of it (plan.yardstick_launched)."""
    summary = curve_summary(points)
    gold = "gold" if yardstick.get("role") == "gold" else "yardstick"
    section = {"name": yardstick_name({"yardstick": yardstick}), "gold": gold,
               "points": len(points), "summary": summary,
               "verdict": curve_verdict(summary) if summary else None, "charts": []}
    if not points:
        return section
    section["charts"].append(lines_svg(
        {"proxy (reward)": [(p.step, p.proxy) for p in points],
         f"{gold} (rollouts)": [(p.step, p.gold) for p in points],
         **({f"{gold}, smoothed": list(zip(summary["steps"], summary["gold"], strict=True)),
             "proxy, smoothed": list(zip(summary["steps"], summary["proxy"], strict=True))}
            if summary else {})},
        y_label="score", x_label=x_label, title="Gold and proxy per step", whole_x=True))
    if summary:
        section["charts"].append(lines_svg(
            {gold: list(zip(summary["proxy"], summary["gold"], strict=True))},
            y_label=f"{gold} (smoothed)", x_label="proxy reward (smoothed)",
            title="Gold against proxy"))
        if summary["kl"]:
            section["charts"].append(lines_svg(
                {gold: [(kl, g) for kl, g in zip(summary["kl"], summary["gold"], strict=True)
                        if kl is not None]},
                y_label=f"{gold} (smoothed)", x_label="KL from the start policy",
                title="Gold against KL"))
    return section


def gold_compare_chart(runs: dict[str, TrainingRun]) -> SafeString:
    """Each run's yardstick on its rollouts per step, smoothed (overoptimisation.py)."""
    series = {}
    for label, run in runs.items():
        summary = curve_summary(run_curve(run))
        if summary:
            series[label] = list(zip(summary["steps"], summary["gold"], strict=True))
    return lines_svg(series, y_label="score (smoothed)", x_label="step", whole_x=True,
                     title="Gold (the yardstick on each step's rollouts)")


def probe_compare_chart(runs: dict[str, TrainingRun]) -> SafeString:
    """Each run's mean yardstick score per probe, a line a run (keyed by its label)."""
    return lines_svg({label: [(m.step, m.mean) for m in probe_means(run)]
                      for label, run in runs.items()},
                     y_label=Y_LABEL, x_label="step", whole_x=True,
                     title="Probe: mean yardstick score")
