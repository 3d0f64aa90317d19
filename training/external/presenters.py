"""What an external run's page shows: its steps and their curves, and with
a yardstick the overoptimisation curve over the client's steps."""
from __future__ import annotations

from ..charts import lines_svg
from ..models import ExternalRun
from ..runs.overoptimisation import CurvePoint
from ..runs.probe.presenters import overoptimisation_section
from .selectors import external_steps


def external_run_page(run: ExternalRun) -> dict:
    steps = external_steps(run)
    numbered = [s for s in steps if s.step is not None]
    names = sorted({name for s in numbered for name in s.signals})
    return {
        "steps": steps,
        "reward_chart": lines_svg(
            {"mean total": [(s.step, s.reward_mean) for s in numbered],
             "gate pass": [(s.step, s.gate_pass) for s in numbered]},
            y_label="share / reward", x_label="client step", title="Reward and gate pass",
            whole_x=True),
        "signals_chart": lines_svg(
            {name: [(s.step, s.signal_means().get(name)) for s in numbered] for name in names},
            y_label="mean value", x_label="client step", title="Signals", whole_x=True),
        "batches": run.batches.count(),
        "overoptimisation": (None if not run.yardstick_plan else overoptimisation_section(
            [CurvePoint(step=s.step, proxy=s.reward_mean, gold=s.yardstick_mean, kl=None)
             for s in numbered if s.yardstick_mean is not None],
            yardstick=run.yardstick_plan["yardstick"], x_label="client step")),
    }
