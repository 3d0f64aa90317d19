"""Training runs for tests, without a test module importing another:
runs to launch on a real train worker (make_run and the worker around it),
and a run's rows as the worker stores them (run_create, steps_create) for
the pages that read them."""
from __future__ import annotations

import random

from tests.reward_data import toy_render
from tests.workers import run_worker
from training.models import (
    Judge,
    PromptSet,
    Rollout,
    Rubric,
    SystemPrompt,
    TrainingRun,
    TrainingStep,
)
from training.policy import run_dir
from training.presets import SYSTEM_PROMPT
from training.reward.advantages import grpo_advantages
from training.reward.rubric import rubric_total

Status = TrainingRun.Status

# --- runs to launch ----------------------------------------------------------

# A gate and a length ramp (different lengths, different totals): signals no
# judge is needed for.
RUBRIC = [{"name": "gate", "kind": "gate", "weight": 0.3},
          {"name": "length", "kind": "length", "weight": 0.4,
           "params": {"mode": "ramp", "target_tokens": 64}}]
TINY = {"num_generations": 2, "prompts_per_step": 1, "max_completion_length": 48,
        "learning_rate": 1e-4, "save_steps": 100}

# One browser: the machine's two cores are busy enough with the trainer.
WORKER_ENV = {"PAINTRL_RENDER_BROWSERS": "1", "PAINTRL_RENDER_DEADLINE_S": "8"}


def make_run(policy, *, signals=RUBRIC, rubric: Rubric | None = None, **settings) -> TrainingRun:
    judge = Judge.objects.get_or_create(name="local (test)", defaults={"backend": "local"})[0]
    return TrainingRun.objects.create(
        name="tiny", base_model=str(policy),
        prompt_set=PromptSet.objects.get_or_create(
            name="three", defaults={"prompts": ["a red barn", "a blue lake", "a green hill"]})[0],
        system_prompt=SystemPrompt.objects.create(name="allow-list (test)", text=SYSTEM_PROMPT),
        rubric=rubric or Rubric.objects.create(name="ramp", signals=signals),
        judge=judge, scorer=judge, **{**TINY, **settings})


def fresh(run: TrainingRun) -> TrainingRun:
    return TrainingRun.objects.get(pk=run.pk)


def steps_of(run: TrainingRun) -> list[int]:
    return list(TrainingStep.objects.filter(run=run).values_list("step", flat=True))


def cancelled_at_a_boundary(run: TrainingRun, *, max_steps: int) -> list[int]:
    """The steps of a run cancelled before `max_steps`, after checking it
    stopped at a step boundary: steps 1..n each once, a checkpoint at n."""
    assert run.status == Status.CANCELLED, run.error
    done = steps_of(run)
    assert done == list(range(1, len(done) + 1)) and len(done) < max_steps
    assert run.checkpoint_step == done[-1]
    assert (run_dir(run.pk) / f"checkpoint-{done[-1]}" / "trainer_state.json").is_file()
    return done


def train_worker_start(media_root, settings, **env):
    """A train worker as tests/train_worker.py starts one, with WORKER_ENV
    (and `env`); returns the process and the generator that stops it."""
    worker = run_worker("train", media_root, settings, env={**WORKER_ENV, **env})
    return next(worker), worker


def worker_stop(worker) -> None:
    next(worker, None)


# --- a run's rows as the worker stores them -------------------------------

GENERATIONS = 4
GROUPS = 2
STEPS = 2
# Rubric v2's signals: gate and length the same for every rollout (dead), the
# preference and pairwise judges varying, except in one flat group.
PREFERENCE = (0.2, 0.5, 0.8, 0.4)
PAIRWISE = (0.0, 0.5, 1.0, 0.5)


def run_create(*, status: str = "running", name: str = "hibiscus run", **fields) -> TrainingRun:
    local = Judge.objects.get(name="local")
    return TrainingRun.objects.create(
        name=name, prompt_set=PromptSet.objects.get(name="painter subjects"),
        system_prompt=SystemPrompt.objects.get(name="allow-list", version=2),
        rubric=Rubric.objects.get(name="v2"), judge=local, scorer=local, status=status,
        num_generations=GENERATIONS, prompts_per_step=GROUPS, max_steps=4, **fields)


def steps_create(run: TrainingRun) -> None:
    """Two steps of two groups of four rollouts, each with its render, stored
    as the worker stores them; in step 2 group 1 every rollout scores the same
    and rollout 0 of step 2 group 0 calls a brush method that does not exist."""
    specs = run.rubric.specs()
    rng = random.Random(3)
    for step in range(1, STEPS + 1):
        rows = []
        for group in range(GROUPS):
            flat = step == 2 and group == 1
            for index in range(GENERATIONS):
                render = toy_render(grade="love", rng=rng, index=100 * step + 10 * group + index)
                if step == 2 and group == 0 and index == 0:
                    render.unknown_calls = ["splatter"]
                    render.save()
                values = dict(zip([s.key for s in specs],
                                  (1.0, 1.0, 0.6 if flat else PREFERENCE[index],
                                   0.5 if flat else PAIRWISE[index]), strict=True))
                rows.append(Rollout(run=run, step=step, group=group, index=index,
                                    prompt=f"a peach hibiscus, prompt {group}",
                                    sketch=render.sketch, render=render, values=values,
                                    total=rubric_total(values, specs), tokens=120 + index))
        advantages = grpo_advantages([r.total for r in rows], [r.group for r in rows])
        for rollout, advantage in zip(rows, advantages, strict=True):
            rollout.advantage = advantage
        Rollout.objects.bulk_create(rows)
        totals = [r.total for r in rows]
        TrainingStep.objects.create(
            run=run, step=step, reward_mean=sum(totals) / len(totals), reward_std=0.1,
            zero_spread_groups=0.5 if step == 2 else 0.0,
            signals={s.name: {"mean": 0.5 + 0.1 * step, "std": 0.1, "missing": 0}
                     for s in specs},
            completion_tokens={"mean": 121.5, "min": 120, "max": 123}, gate_pass=1.0,
            unknown_method_rate=0.125 if step == 2 else 0.0,
            metrics={"loss": 0.01, "kl": 0.0, "entropy": 1.2},
            times={"generate": 3.0, "render": 2.0, "judge": 1.0, "update": 0.5, "total": 6.5})
