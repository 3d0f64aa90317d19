"""Runs side by side (/training/runs/compare/?run=1&run=2...): their reward,
gate pass, completion-length and probe curves on one chart each, a run a line, and
a table of what differs between them and how each reward moved (first third,
last third, slope and its t), the first thing a user of TensorBoard or W&B
does with two runs."""
from __future__ import annotations

from dataclasses import fields

from ..charts import PALETTE, lines_svg
from ..config_base import label
from ..diagnostics import reward_trend
from ..models import TrainingRun, TrainingStep
from . import presenters
from .config import RunConfig
from .probe.presenters import gold_compare_chart, probe_compare_chart

# One colour a run: more lines than the palette has colours would repeat one.
MOST_RUNS = len(PALETTE)
# What a reader asks first of two runs, in the settings table's order: the
# run's choices, then every setting RunConfig declares, by its label (a row
# only where the runs differ; the rest is listed once, as shared).
CHOICES = (("rubric", "rubric"), ("policy", None), ("prompt set", "prompt_set"),
           ("system prompt", "system_prompt"), ("snapshot", "snapshot"), ("judge", "judge"),
           ("scorer", "scorer"), ("probe every", "probe_every"),
           # Probe scores from different yardsticks are on different scales.
           ("yardstick", "yardstick"))
COMPARED = (*CHOICES, *((label(f), f.name) for f in fields(RunConfig)))


class CompareError(ValueError):
    """The runs asked for cannot be compared; the message says why."""


def runs_chosen(ids: list[str]) -> list[TrainingRun]:
    """The runs named by `ids`, in the order given, each once."""
    wanted = []
    for raw in ids:
        try:
            pk = int(raw)
        except ValueError:
            raise CompareError(f"{raw!r} is not a run id") from None
        if pk not in wanted:
            wanted.append(pk)
    if len(wanted) < 2:
        raise CompareError("choose at least two runs to compare")
    if len(wanted) > MOST_RUNS:
        raise CompareError(f"compare at most {MOST_RUNS} runs at once (one colour each); "
                           f"{len(wanted)} were chosen")
    found = TrainingRun.objects.select_related(
        "rubric", "prompt_set", "system_prompt", "snapshot", "judge", "scorer", "yardstick"
    ).in_bulk(wanted)
    missing = [pk for pk in wanted if pk not in found]
    if missing:
        raise CompareError(f"no run {', '.join(map(str, missing))}")
    return [found[pk] for pk in wanted]


def runs_compare(runs: list[TrainingRun]) -> dict:
    """The comparison page's charts and tables."""
    steps = {run.pk: list(TrainingStep.objects.filter(run=run).order_by("step"))
             for run in runs}
    label = {run.pk: f"{run} (#{run.pk})" for run in runs}

    def chart(value, *, y_label: str, title: str):
        series = {label[run.pk]: [(row.step, value(row)) for row in steps[run.pk]]
                  for run in runs}
        return lines_svg(series, y_label=y_label, x_label="step", title=title, whole_x=True)

    charts = [
        chart(lambda row: row.reward_mean, y_label="mean reward", title="Reward"),
        chart(lambda row: row.gate_pass, y_label="share", title="Gate pass"),
        chart(lambda row: (row.completion_tokens or {}).get("mean"), y_label="tokens",
              title="Completion length (mean tokens)"),
        probe_compare_chart({label[run.pk]: run for run in runs}),
        gold_compare_chart({label[run.pk]: run for run in runs}),
    ]
    differing, shared = settings_table(runs)
    rows = []
    for i, run in enumerate(runs):
        rewards = [row.reward_mean for row in steps[run.pk] if row.reward_mean is not None]
        rows.append({"run": run, "colour": PALETTE[i], "steps": len(steps[run.pk]),
                     "trend": reward_trend(rewards), "progress": presenters.run_progress(run),
                     "settings": [setting["values"][i] for setting in differing]})
    return {"runs": runs, "charts": charts, "rows": rows, "differing": differing,
            "shared": shared}


def settings_table(runs: list[TrainingRun]) -> tuple[list[dict], list[tuple[str, str]]]:
    """The settings that differ (a row each, a value a run) and those all share."""
    differing, shared = [], []
    for title, field in COMPARED:
        values = [presenters.run_policy(run) if field is None
                  else presenters.setting_shown(run, field) for run in runs]
        if len(set(values)) > 1:
            differing.append({"setting": title, "values": values})
        else:
            shared.append((title, values[0]))
    return differing, shared

