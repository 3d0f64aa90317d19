"""What the run pages show: recent runs with their last reward; a run's facts,
progress and curves per step; the replay lab's diagnostics on the run's own
rollouts; its rollouts per step, best and worst of each group. Also the
presets a new run starts from in the admin."""
from __future__ import annotations

import json

from django.conf import settings
from django.db.models import OuterRef, QuerySet, Subquery

from pool.models import PoolSnapshot
from sketches.gate import UNKNOWN_BRUSH_METHOD

from ..charts import lines_svg
from ..diagnostics import rubric_diagnostics
from ..lab.selectors import diagnostics_column
from ..models import Judge, PromptSet, Rubric, SystemPrompt, TrainingRun, TrainingStep
from ..policy import builtin_policy_dir
from ..policy.build import POLICY_RECORD, policy_exists
from ..policy.build_status import build_status
from ..presets import LOCAL_JUDGE, PROMPT_SET_NAME, SYSTEM_PROMPT_NAME
from ..rubrics import RubricError, SignalSpec, rubric_specs
from .watch import run_watch

RECENT = 30
DEFAULT_RUBRIC = "v2"  # the article's second rubric: it kept climbing where v1 stalled
TABLE_STEPS = 10  # the step table shows this many of the latest steps
TIMES = ("generate", "render", "judge", "update")
NO_TOTAL_LINE = "no total (share)"  # beside the reward: how much of the batch its mean left out
METRICS = ("loss", "kl", "entropy")


# --- new runs --------------------------------------------------------------------------------

def run_defaults() -> dict:
    """A new run's initial choices: rubric v2, the allow-list system prompt, the painter
    prompts, the local judge as judge and scorer, and the newest pool snapshot (the installed
    presets before any edited copy of the same name)."""
    chosen = {
        "rubric": Rubric.objects.filter(name=DEFAULT_RUBRIC).order_by("-preset", "-version"),
        "system_prompt": SystemPrompt.objects.filter(name=SYSTEM_PROMPT_NAME).order_by(
            "-preset", "-version"),
        "prompt_set": PromptSet.objects.filter(name=PROMPT_SET_NAME),
        "judge": Judge.objects.filter(name=LOCAL_JUDGE),
        "scorer": Judge.objects.filter(name=LOCAL_JUDGE),
        "snapshot": PoolSnapshot.objects.order_by("-created", "-pk"),
    }
    return {field: row.pk for field, query in chosen.items() if (row := query.first())}


# --- lists -----------------------------------------------------------------------------------

def runs_with_last_step(runs: QuerySet) -> QuerySet:
    """Runs annotated with their latest stored step and its mean reward."""
    last = TrainingStep.objects.filter(run=OuterRef("pk")).order_by("-step")
    return runs.annotate(last_step=Subquery(last.values("step")[:1]),
                         last_reward=Subquery(last.values("reward_mean")[:1]))


def runs_recent(limit: int = RECENT) -> list[TrainingRun]:
    runs = runs_with_last_step(TrainingRun.objects.select_related("rubric", "created_by"))
    return [_with_progress(run) for run in runs[:limit]]


def _with_progress(run: TrainingRun) -> TrainingRun:
    run.state = run_progress(run)
    return run


# --- one run ---------------------------------------------------------------------------------

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
            "last_step": duration_text(progress.get("last_step_s")),
            "stage": "" if run.is_finished else progress.get("stage", ""),
            "notices": progress.get("notices") or []}


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


def run_specs(run: TrainingRun) -> list[SignalSpec]:
    """What the run's totals are made of: the rubric it was launched with (copied at launch,
    else its rubric as it is now) without the signals dropped at launch."""
    launched = (run.launched_config or {}).get("rubric")
    if isinstance(launched, dict) and launched.get("signals"):
        return rubric_specs(launched["signals"], run.dropped_signals)
    return rubric_specs(run.rubric.signals, run.dropped_signals)


def run_system_prompt_text(run: TrainingRun) -> str:
    """The system prompt's text as launched (its row may have been edited since)."""
    launched = (run.launched_config or {}).get("system_prompt")
    if isinstance(launched, dict):
        launched = launched.get("text")
    return launched if isinstance(launched, str) and launched else run.system_prompt.text


def builtin_policy_state() -> dict:
    """The built-in policy for the runs page: ready (with what its build
    measured), being built (share done, ETA, phase), or missing, failed or
    stopped (with the command that builds it)."""
    path = builtin_policy_dir()
    state = {"path": path, "ready": policy_exists(path), "build": build_status(path)}
    if state["ready"]:
        try:
            record = json.loads((path / POLICY_RECORD).read_text())
        except (OSError, ValueError):
            record = {}
        state["parameters"] = record.get("parameters")
        state["evaluation"] = record.get("evaluation") or {}
    elif state["build"] is not None:
        state["eta"] = duration_text(state["build"].eta_s)
        state["percent"] = round(state["build"].done * 100)
    return state


def run_policy(run: TrainingRun) -> str:
    return run.base_model or f"built-in tiny policy ({settings.PAINTRL_POLICY_DIR})"


def run_settings_summary(run: TrainingRun) -> str:
    """The GRPO settings in one line, as a reader compares two runs."""
    lora = f"LoRA rank {run.lora_rank}" if run.lora else "all weights"
    warmup = f", warmup {run.warmup_steps}" if run.warmup_steps else ""
    return (f"{run.num_generations} generations × {run.prompts_per_step} prompt(s) per step, "
            f"{run.max_steps} steps; lr {run.learning_rate:g} {run.get_lr_schedule_display()}"
            f"{warmup}; at most {run.max_completion_length} tokens at temperature "
            f"{run.temperature:g}; rewards scaled {run.get_scale_rewards_display()}; "
            f"beta {run.beta:g}; {lora}; seed {run.seed}; device {run.device}; "
            f"checkpoint every {run.save_steps} steps")


def run_page(run: TrainingRun, *, step: str | None = None) -> dict:
    """Everything the run page shows below its header, for one chosen gallery step."""
    steps = list(run.steps.all())
    try:
        specs, rubric_error = run_specs(run), ""
    except RubricError as error:
        specs, rubric_error = [], str(error)
    gallery_steps = list(run.rollouts.order_by("step").values_list("step", flat=True).distinct())
    chosen = _chosen_step(step, gallery_steps)
    return {
        "state": run_progress(run, steps[-1].step if steps else None),
        "specs": specs,
        "dropped": run.dropped_signals,
        "charts": run_charts(steps, specs, batch=run.num_generations * run.prompts_per_step),
        "step_rows": steps[::-1][:TABLE_STEPS],
        "column": run_diagnostics(run, specs) if specs else None,
        "watch": run_watch(run),
        "rubric_error": rubric_error,
        "gallery_steps": gallery_steps,
        "gallery_step": chosen,
        "step_asked": step if chosen is not None and step else "",
        "gallery": run_gallery(run, chosen, specs) if chosen is not None else [],
    }


def _chosen_step(asked: str | None, available: list[int]) -> int | None:
    """?step=N if it is a number, else the latest step with rollouts (None: none yet)."""
    if asked not in (None, ""):
        try:
            return int(asked)
        except ValueError:
            pass
    return available[-1] if available else None


# --- charts ----------------------------------------------------------------------------------

def run_charts(steps: list[TrainingStep], specs: list[SignalSpec], *,
               batch: int | None = None) -> list[dict]:
    """Per-step curves: the reward and each signal's mean, beside them the share of the step's
    `batch` rollouts with no total, the gate and the hallucinated-API rate, completion
    lengths, the time split, and the trainer's loss, KL and entropy."""
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
         "svg": per_step({k: series(lambda s, k=k: s.times.get(k)) for k in TIMES},
                          y_label="seconds", title="Step time split")},
        {"caption": "The trainer's loss, KL to the reference and entropy",
         "svg": per_step({k: series(lambda s, k=k: s.metrics.get(k)) for k in METRICS},
                          y_label="value", title="Trainer metrics")},
    ]


# --- diagnostics -----------------------------------------------------------------------------

def run_diagnostics(run: TrainingRun, specs: list[SignalSpec]) -> dict | None:
    """The replay lab's diagnosis of the rubric on every rollout of the run, a group being
    one prompt of one step (what GRPO compared)."""
    rows = list(run.rollouts.order_by().values_list("step", "group", "values"))
    if not rows:
        return None
    d = rubric_diagnostics(specs, [values or {} for _, _, values in rows],
                           [f"{step}:{group}" for step, group, _ in rows],
                           scale_rewards=run.scale_rewards)
    steps = sorted({step for step, _, _ in rows})
    launched = (run.launched_config or {}).get("rubric")
    rubric = launched.get("label") if isinstance(launched, dict) else None
    label = f"{rubric or run.rubric} on steps {steps[0]}–{steps[-1]}"
    return diagnostics_column(label, d)


# --- gallery ---------------------------------------------------------------------------------

def run_gallery(run: TrainingRun, step: int, specs: list[SignalSpec]) -> list[dict]:
    """The step's groups: each prompt with its rollouts from the highest total to the lowest
    (no total last), the best and worst marked; a group whose totals are all equal is flat
    (GRPO learns nothing from it)."""
    groups: dict[int, list] = {}
    for rollout in run.rollouts.filter(step=step).select_related("render", "sketch"):
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
                          "unknown": unknown_calls(rollout.render)})
        out.append({"group": group, "prompt": rollouts[0].prompt, "items": items, "flat": flat,
                    "spread": max(totals) - min(totals) if totals else None})
    return out


def unknown_calls(render) -> list[str]:
    """Brush methods the sketch called that p5.brush does not have: found by the gate in
    the code, or caught while the page ran."""
    if render is None:
        return []
    found = set(render.unknown_calls or [])
    detail = (render.violation_details or {}).get(UNKNOWN_BRUSH_METHOD) or ""
    found.update(name.strip() for name in str(detail).split(",") if name.strip())
    return sorted(found)
