"""Noise inside a GRPO group: every rollout of a group renders at the same
seed and faces the same pairwise references, so identical code in a group
gets an identical reward; the seed and the references still change from
group to group and from step to step. With the real render pool, the local
reward-model judge and rubric v2."""
from __future__ import annotations

import hashlib
from dataclasses import replace

import pytest

from sketches.models import Render
from tests.lab_data import lab_world
from tests.sketch_files import read_sketch
from training.models import Judge, PromptSet, Rollout, Rubric, SystemPrompt, TrainingRun
from training.reward.rubric import PRESETS, signal_specs

LINES = read_sketch("good/lines.js")  # its strokes are placed by random(): the seed shows
GENERATIONS = 2
SEED = 7


def run_create() -> TrainingRun:
    local = Judge.objects.get(name="local")
    return TrainingRun.objects.create(
        name="groups", prompt_set=PromptSet.objects.get(name="painter subjects"),
        system_prompt=SystemPrompt.objects.get(name="allow-list", version=2),
        rubric=Rubric.objects.get(name="v2"), judge=local, scorer=local,
        status=TrainingRun.Status.RUNNING, worker="here", num_generations=GENERATIONS,
        prompts_per_step=2, max_steps=8, seed=SEED)


def png_digest(render: Render) -> str:
    return hashlib.sha256(render.png.read()).hexdigest()


@pytest.mark.django_db
class TestOneSeedAndOneDrawOfReferencesPerGroup:
    @pytest.fixture
    def rubric_reward(self, media, browser_pool):
        from training.reward.inputs import SignalContext
        from training.reward.judges.local import LocalRewardModelJudge
        from training.runs.callbacks import RunLease, StepBook
        from training.runs.rewards import RubricReward
        from training.sampling.renderers import ProcessRenderer

        world = lab_world()
        run = run_create()
        judge = LocalRewardModelJudge()
        book = StepBook()
        book.clock.start()
        reward = RubricReward(
            run_id=run.pk, specs=signal_specs(PRESETS["v2"]["signals"]),
            context=SignalContext(judge=judge, scorer=judge, snapshot=world.snapshot,
                                  seed=SEED),
            num_generations=GENERATIONS, scale_rewards="group", seed=SEED,
            renderer=ProcessRenderer(browser_pool), lease=RunLease(run.pk, "here"), book=book)
        return reward, run

    @staticmethod
    def step(reward, global_step: int, prompts: list[str]) -> list[float | None]:
        from transformers import TrainerState

        from training.policy.chat import assistant_text

        text = assistant_text(LINES)
        return reward(prompts=[[{"role": "user", "content": p}] for p in prompts],
                      completions=[[{"role": "assistant", "content": text}] for _ in prompts],
                      completion_ids=[[1] * 40] * len(prompts),
                      trainer_state=TrainerState(global_step=global_step),
                      prompt_text=prompts)

    def test_identical_code_in_a_group_gets_an_identical_total(self, rubric_reward):
        from training.runs.rewards import render_seed

        reward, run = rubric_reward
        prompts = ["a toy painting, group 0"] * GENERATIONS + ["a toy painting, group 1"] * 2
        totals = self.step(reward, 4, prompts)
        assert None not in totals, totals
        assert totals[0] == totals[1] and totals[2] == totals[3], totals
        rollouts = list(Rollout.objects.filter(run=run, step=5)
                        .select_related("render").order_by("group", "index"))
        assert [r.render.seed for r in rollouts] == [render_seed(SEED, 5, 0)] * 2 + [
            render_seed(SEED, 5, 1)] * 2
        pictures = [png_digest(r.render) for r in rollouts]
        assert pictures[0] == pictures[1] and pictures[2] == pictures[3]
        # The seed is the group's, not one for the whole step: the groups' pictures differ.
        assert pictures[0] != pictures[2]
        # Every signal the same inside a group, pairwise (the references) included.
        assert rollouts[0].values == rollouts[1].values
        assert rollouts[2].values == rollouts[3].values

    def test_the_seed_and_the_references_change_from_step_to_step(self, rubric_reward):
        from training.runs.rewards import group_key

        reward, run = rubric_reward
        prompts = ["a toy painting, group 0"] * GENERATIONS
        self.step(reward, 4, prompts)
        self.step(reward, 5, prompts)
        seeds = {r.step: r.render.seed for r in Rollout.objects.filter(run=run)
                 .select_related("render")}
        assert seeds[5] != seeds[6]
        assert group_key(run.pk, 5, 0) != group_key(run.pk, 6, 0)
        by_step = {step: {png_digest(r.render) for r in Rollout.objects.filter(
            run=run, step=step).select_related("render")} for step in (5, 6)}
        assert len(by_step[5]) == len(by_step[6]) == 1 and by_step[5] != by_step[6]


@pytest.mark.django_db
def test_rollouts_of_one_group_draw_the_same_references_whatever_their_keys(media):
    """Pairwise against references drawn by the group, not the rollout: the
    same picture in one group wins the same fraction, under any key."""
    from training.reward.inputs import SignalContext, rollout_from_render
    from training.reward.judges.local import LocalRewardModelJudge
    from training.reward.scoring import signals_compute

    world = lab_world()
    judge = LocalRewardModelJudge()
    specs = signal_specs([{"name": "pairwise", "kind": "pairwise", "weight": 1,
                           "params": {"k": 1}}])
    base = rollout_from_render(world.renders[1])
    group = [replace(base, key=f"run:1:5:{i}", group="run:1:5:group:0") for i in range(8)]
    context = SignalContext(judge=judge, scorer=judge, snapshot=world.snapshot, seed=3)
    values = [row[specs[0].key] for row in signals_compute(specs, group, context)]
    assert len(set(values)) == 1, values
    # Without the group each key draws its own reference: the picture's one
    # comparison then wins different fractions against the six loved renders.
    alone = [replace(base, key=f"run:1:5:{i}") for i in range(8)]
    values = [row[specs[0].key] for row in signals_compute(specs, alone, context)]
    assert len(set(values)) > 1, values
