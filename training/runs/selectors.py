"""Reads behind the run pages and the admin: recent runs with their last
reward, what a run's totals are made of and the text it was launched with,
its steps with rollouts and a step's rollouts, and the choices a new run
starts from. presenters.py shapes them for the templates."""
from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery

from pool.models import PoolSnapshot
from pool.reward.selectors import gold_newest, reward_model_active, yardstick_newest

from ..models import Judge, PromptSet, Rollout, Rubric, SystemPrompt, TrainingRun, TrainingStep
from ..presets import LOCAL_JUDGE, PROMPT_SET_NAME, SYSTEM_PROMPT_NAME
from ..reward.rubric import rubric_specs
from ..reward.spec import SignalSpec

RECENT = 30
DEFAULT_RUBRIC = "v2"  # the article's second rubric: it kept climbing where v1 stalled


# --- new runs --------------------------------------------------------------------------------

def run_defaults() -> dict:
    """A new run's initial choices: rubric v2, the allow-list system prompt, the painter
    prompts, the local judge as judge and scorer, the newest pool snapshot (the installed
    presets before any edited copy of the same name), and as the probe's yardstick the
    newest gold judge, else the newest finished yardstick disjoint from the active reward
    model (the local judge's), where there is one."""
    chosen = {
        "rubric": Rubric.objects.filter(name=DEFAULT_RUBRIC).order_by("-preset", "-version"),
        "system_prompt": SystemPrompt.objects.filter(name=SYSTEM_PROMPT_NAME).order_by(
            "-preset", "-version"),
        "prompt_set": PromptSet.objects.filter(name=PROMPT_SET_NAME),
        "judge": Judge.objects.filter(name=LOCAL_JUDGE),
        "scorer": Judge.objects.filter(name=LOCAL_JUDGE),
        "snapshot": PoolSnapshot.objects.order_by("-created", "-pk"),
    }
    found = {field: row.pk for field, query in chosen.items() if (row := query.first())}
    active = reward_model_active()
    if active is not None and (yardstick := gold_newest() or yardstick_newest(active)):
        found["yardstick"] = yardstick.pk
    return found


# --- lists -----------------------------------------------------------------------------------

def runs_with_last_step(runs: QuerySet) -> QuerySet:
    """Runs annotated with their latest stored step and its mean reward."""
    last = TrainingStep.objects.filter(run=OuterRef("pk")).order_by("-step")
    return runs.annotate(last_step=Subquery(last.values("step")[:1]),
                         last_reward=Subquery(last.values("reward_mean")[:1]))


def runs_recent(limit: int = RECENT) -> list[TrainingRun]:
    runs = runs_with_last_step(TrainingRun.objects.select_related("rubric", "created_by"))
    return list(runs[:limit])


# --- one run ---------------------------------------------------------------------------------

def run_specs(run: TrainingRun) -> list[SignalSpec]:
    """What the run's totals are made of: the rubric it was launched with (copied at launch,
    else its rubric as it is now) without the signals dropped at launch."""
    launched = (run.launched_config or {}).get("rubric")
    if isinstance(launched, dict) and launched.get("signals"):
        return rubric_specs(launched["signals"], run.dropped_signals)
    return rubric_specs(run.rubric.signals, run.dropped_signals)


def run_rubric_label(run: TrainingRun) -> str:
    """The rubric's name as launched (its row may have been edited since)."""
    launched = (run.launched_config or {}).get("rubric")
    label = launched.get("label") if isinstance(launched, dict) else None
    return label or str(run.rubric)


def run_system_prompt_text(run: TrainingRun) -> str:
    """The system prompt's text as launched (its row may have been edited since)."""
    launched = (run.launched_config or {}).get("system_prompt")
    if isinstance(launched, dict):
        launched = launched.get("text")
    return launched if isinstance(launched, str) and launched else run.system_prompt.text


def run_gallery_steps(run: TrainingRun) -> list[int]:
    """The steps with stored rollouts, in order."""
    return list(run.rollouts.order_by("step").values_list("step", flat=True).distinct())


def run_step_rollouts(run: TrainingRun, step: int) -> list[Rollout]:
    """One step's rollouts with their render and sketch."""
    return list(run.rollouts.filter(step=step).select_related("render", "sketch"))


def run_rollout_values(run: TrainingRun) -> list[tuple[int, int, dict | None]]:
    """(step, group, signal values) of every rollout of the run."""
    return list(run.rollouts.order_by().values_list("step", "group", "values"))
