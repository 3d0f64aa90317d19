"""What the run pages and the admin show, shaped for the templates: a run's
progress in words, its settings in one line, its page (state, curves, the
replay lab's diagnostics on its own rollouts, the hacking watch, the probe,
the rollouts of one step, best and worst of each group), and the built-in
policy's state.
The reads are in selectors.py, the curves in training/charts.py."""
from __future__ import annotations

import json
from dataclasses import fields

from django.conf import settings
from django.template.defaultfilters import pluralize

from jobs.registry import JobProgress
from sketches.gate import UNKNOWN_BRUSH_METHOD

from ..charts import run_charts
from ..config_base import declared_field, label
from ..diagnostics import rubric_diagnostics
from ..lab.selectors import diagnostics_column
from ..models import Rollout, TrainingRun
from ..policy import builtin_policy_dir
from ..policy.build import policy_exists, policy_record
from ..policy.selectors import policy_build_latest
from ..reward.spec import RubricError, SignalSpec
from . import selectors
from .config import RunConfig
from .probe.presenters import run_overoptimisation, run_probe
from .watch import TABLE_STEPS, run_watch

# --- progress --------------------------------------------------------------------------------

def run_progress(run: TrainingRun, last_step: int | None = None) -> dict:
    """Where the run has got to, from the worker's progress {step, max_steps, eta_s,
    last_step_s} (or, before the worker has written any, the steps stored)."""
    progress = run.progress or {}
    max_steps = progress.get("max_steps") or run.max_steps or 1
    step = progress.get("step")
    if step is None:
        step = last_step if last_step is not None else getattr(run, "last_step", None) or 0
    fraction = 1.0 if run.status == TrainingRun.Status.DONE else min(step / max_steps, 1.0)
    eta_s = None if run.is_finished else progress.get("eta_s")
    return {"step": step, "max_steps": max_steps, "fraction": fraction,
            "percent": round(fraction * 100), "eta": duration_text(eta_s),
            # Running, but too few steps yet to measure their pace (jobs.estimates).
            "estimating": run.status == TrainingRun.Status.RUNNING and eta_s is None,
            "last_step": duration_text(progress.get("last_step_s")),
            "stage": "" if run.is_finished else progress.get("stage", ""),
            "notices": progress.get("notices") or []}


def run_job_progress(run: TrainingRun) -> JobProgress:
    """The run kind's progress on the jobs page (jobs.registry): steps, and
    the time left its worker measured from its steps' pace."""
    state = run_progress(run)
    eta_s = None if run.is_finished else (run.progress or {}).get("eta_s")
    return JobProgress(state["step"], state["max_steps"], eta_s=eta_s, paced=True)


def duration_text(seconds: float | None) -> str:
    """45 -> "45 s", 200 -> "3 min 20 s", 3900 -> "1 h 5 min"; None -> ""."""
    if seconds is None:
        return ""
    seconds = max(0, round(float(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"


def runs_list(limit: int = selectors.RECENT) -> list[TrainingRun]:
    """The recent runs, each with its progress as `state`."""
    runs = selectors.runs_recent(limit)
    for run in runs:
        run.state = run_progress(run)
    return runs


def builtin_policy_state() -> dict:
    """The built-in policy for the runs page: ready (with what its build
    measured), being built (share done, ETA, phase), or missing, failed or
    stopped (with the command that builds it)."""
    path = builtin_policy_dir()
    state = {"path": path, "ready": policy_exists(path), "build": policy_build_latest(path)}
    if state["ready"]:
        record = policy_record(path)
        state["parameters"] = record.get("parameters")
        state["evaluation"] = record.get("evaluation") or {}
    elif state["build"] is not None:
        state["eta"] = duration_text(state["build"].eta_s)
        state["percent"] = round(state["build"].done * 100)
    return state


# --- the run page's header -------------------------------------------------------------------

def run_policy(run: TrainingRun) -> str:
    return run.base_model or f"built-in tiny policy ({settings.PAINTRL_POLICY_DIR})"


# The settings the summary's sentence phrases itself; every other setting is
# said by its label where it differs from a new run's default (settings_changed).
PHRASED = ("num_generations", "prompts_per_step", "max_steps", "learning_rate", "lr_schedule",
           "warmup_steps", "max_completion_length", "temperature", "scale_rewards", "beta",
           "lora", "lora_rank", "seed", "device", "save_steps")


def run_settings_summary(run: TrainingRun) -> str:
    """The settings in one line, as a reader compares two runs: the GRPO
    settings phrased, then each other setting that differs from a new run's."""
    lora = f"LoRA rank {run.lora_rank}" if run.lora else "all weights"
    warmup = f", warmup {run.warmup_steps}" if run.warmup_steps else ""
    return (f"{run.num_generations} generation{pluralize(run.num_generations)} × "
            f"{run.prompts_per_step} prompt{pluralize(run.prompts_per_step)} per step, "
            f"{run.max_steps} step"
            f"{pluralize(run.max_steps)}; lr {run.learning_rate:g} {run.get_lr_schedule_display()}"
            f"{warmup}; at most {run.max_completion_length} tokens at temperature "
            f"{run.temperature:g}; rewards scaled {run.get_scale_rewards_display()}; "
            f"beta {run.beta:g}; {lora}; seed {run.seed}; device {run.device}; "
            + ("a checkpoint every step" if run.save_steps == 1
               else f"a checkpoint every {run.save_steps} steps")
            + "".join(f"; {title} {shown}" for title, shown in settings_changed(run)))


def settings_changed(run: TrainingRun) -> list[tuple[str, str]]:
    """(label, value shown) of each setting outside PHRASED that differs
    from its declared default, in RunConfig's order."""
    return [(label(f), setting_shown(run, f.name)) for f in fields(RunConfig)
            if f.name not in PHRASED
            and getattr(run, f.name) != declared_field(f).get_default()]


def setting_shown(run: TrainingRun, name: str) -> str:
    """A run's field as the pages show it: a choice's label, yes or no, a
    number without trailing zeros, a JSON object as JSON."""
    value = getattr(run, name)
    display = getattr(run, f"get_{name}_display", None)
    if display is not None:
        return display()
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict | list):
        return json.dumps(value)
    return "–" if value is None else str(value)


# --- the run page's body ---------------------------------------------------------------------

def run_page(run: TrainingRun, *, step: str | None = None) -> dict:
    """Everything the run page shows below its header, for one chosen gallery step."""
    steps = list(run.steps.all())
    try:
        specs, rubric_error = selectors.run_specs(run), ""
    except RubricError as error:
        specs, rubric_error = [], str(error)
    gallery_steps = selectors.run_gallery_steps(run)
    chosen = _chosen_step(step, gallery_steps)
    batch = run.num_generations * run.prompts_per_step
    return {
        # Rollouts a step: what the Gate column (and each share) counts.
        "batch": batch,
        "one_rollout_points": 100 / batch if batch else None,
        "state": run_progress(run, steps[-1].step if steps else None),
        "specs": specs,
        "dropped": run.dropped_signals,
        "charts": run_charts(steps, specs, batch=batch),
        "step_rows": [step_row(s) for s in steps[::-1][:TABLE_STEPS]],
        "column": run_diagnostics(run, specs) if specs else None,
        "watch": run_watch(run),
        "rubric_error": rubric_error,
        "gallery_steps": gallery_steps,
        "gallery_step": chosen,
        "step_asked": step if chosen is not None and step else "",
        "gallery": run_gallery(run, chosen, specs) if chosen is not None else [],
        "probe": run_probe(run),
        "overoptimisation": run_overoptimisation(run),
    }


def step_row(step):
    """A step for the latest-steps table, with the share of its time spent
    rendering (`render_share`, None when unmeasured) and who rendered it
    (`rendered_by`: "name × count" per render worker, "" for steps stored
    before it was recorded)."""
    times = step.times or {}
    total = times.get("total") or 0
    step.render_share = times["render"] / total if total > 0 and "render" in times else None
    step.rendered_by = ", ".join(f"{name} × {count}"
                                 for name, count in sorted((step.render_workers or {}).items()))
    return step


def _chosen_step(asked: str | None, available: list[int]) -> int | None:
    """?step=N if it is a number, else the latest step with rollouts (None: none yet)."""
    if asked not in (None, ""):
        try:
            return int(asked)
        except ValueError:
            pass
    return available[-1] if available else None


def run_diagnostics(run: TrainingRun, specs: list[SignalSpec]) -> dict | None:
    """The replay lab's diagnosis of the rubric on every rollout of the run, a group being
    one prompt of one step (what GRPO compared)."""
    rows = selectors.run_rollout_values(run)
    if not rows:
        return None
    diagnostics = rubric_diagnostics(specs, [values or {} for _, _, values in rows],
                                     [f"{step}:{group}" for step, group, _ in rows],
                                     scale_rewards=run.scale_rewards)
    steps = sorted({step for step, _, _ in rows})
    label = f"{selectors.run_rubric_label(run)} on steps {steps[0]}–{steps[-1]}"
    return diagnostics_column(label, diagnostics)


def run_gallery(run: TrainingRun, step: int, specs: list[SignalSpec]) -> list[dict]:
    """The step's groups: each prompt with its rollouts from the highest total to the lowest
    (no total last), the best and worst marked; a group whose totals are all equal is flat
    (GRPO learns nothing from it)."""
    groups: dict[int, list[Rollout]] = {}
    for rollout in selectors.run_step_rollouts(run, step):
        groups.setdefault(rollout.group, []).append(rollout)
    out = []
    for group, rollouts in sorted(groups.items()):
        rollouts.sort(key=lambda r: (r.total is None, -(r.total or 0.0), r.index))
        totals = [r.total for r in rollouts if r.total is not None]
        flat = len(totals) > 1 and max(totals) - min(totals) < 1e-9
        items = []
        for position, rollout in enumerate(rollouts):
            mark = ""
            if totals and not flat and rollout.total is not None:
                if position == 0:
                    mark = "best"
                elif position == len(totals) - 1:
                    mark = "worst"
            items.append({"rollout": rollout, "mark": mark,
                          "signals": [(spec.name, (rollout.values or {}).get(spec.key))
                                      for spec in specs],
                          "unknown": unknown_calls(rollout.render),
                          "gate": gate_report(rollout.render)})
        out.append({"group": group, "prompt": rollouts[0].prompt, "items": items, "flat": flat,
                    "spread": max(totals) - min(totals) if totals else None})
    return out


# The gate's verdict on a rollout's render, in the gallery's words.
GATE_VERDICTS = {"ok": "passed the gate", "rejected": "rejected", "unavailable": "no verdict",
                 "pending": "not rendered yet"}


def gate_report(render) -> dict | None:
    """What the gate said of a rollout's render: its verdict, the violations and
    the flags (painted words it did not reject: Render.flags) as (name, detail), and
    the page's JavaScript errors (for an unavailable render, why the browser gave no
    verdict). None without a render."""
    if render is None:
        return None
    details = render.violation_details or {}
    violations = [(name, str(details.get(name) or "")) for name in render.violations or []]
    return {"status": render.status,
            "verdict": GATE_VERDICTS.get(render.status, render.status),
            "violations": violations,
            "flags": list(render.flags.items()),
            "errors": [str(error) for error in render.js_errors or []]}


def unknown_calls(render) -> list[str]:
    """Brush methods the sketch called that p5.brush does not have: found by the gate in
    the code, or caught while the page ran."""
    if render is None:
        return []
    found = set(render.unknown_calls or [])
    detail = (render.violation_details or {}).get(UNKNOWN_BRUSH_METHOD) or ""
    found.update(name.strip() for name in str(detail).split(",") if name.strip())
    return sorted(found)
