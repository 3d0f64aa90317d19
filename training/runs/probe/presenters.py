"""What the pages show of the probe: on the run page, the mean yardstick
score per probe (and per prompt) and, per prompt, a film strip of its
samples' renders across the probes, the first and the last side by side; on
the compare page, each run's mean as one line."""
from __future__ import annotations

from django.utils.safestring import SafeString

from ...charts import lines_svg, spread_indices
from ...models import TrainingRun
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
    return {"plan": plan, "chart": chart, "strips": strips, "table": table}


def probe_compare_chart(runs: dict[str, TrainingRun]) -> SafeString:
    """Each run's mean yardstick score per probe, a line a run (keyed by its label)."""
    return lines_svg({label: [(m.step, m.mean) for m in probe_means(run)]
                      for label, run in runs.items()},
                     y_label=Y_LABEL, x_label="step", whole_x=True,
                     title="Probe: mean yardstick score")
