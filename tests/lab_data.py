"""A small world for the rubric, judge and replay-lab tests: toy renders
graded by one curator (tests/reward_data.py: red love, green okay, blue
nope), in prompt groups of four, a tiny reward model trained on them and
active, a pool snapshot of loved renders, and one rejected and one
unavailable render."""
from __future__ import annotations

import random
from dataclasses import dataclass

from jobs.runner import job_run_here
from pool.models import PoolMember, PoolSnapshot, RewardModel
from pool.reward import services as reward_services
from sketches.models import Render
from tests.reward_data import SMALL_CONFIG, toy_graded_renders, toy_render

GROUP_SIZE = 4


def presets_ensure() -> None:
    """The presets the data migrations install: a test on a flushed database
    (after a transactional test) installs them again."""
    from training.models import Judge, PromptSet, Rubric, SystemPrompt
    from training.presets import presets_install, training_presets_install

    presets_install(Rubric, Judge)
    training_presets_install(SystemPrompt, PromptSet)


@dataclass
class LabWorld:
    renders: list[Render]
    rejected: Render
    unavailable: Render
    snapshot: PoolSnapshot
    reward_model: object


def lab_world(*, count: int = 48, train: bool = True) -> LabWorld:
    presets_ensure()
    renders = toy_graded_renders(count)
    for index, render in enumerate(renders):
        sketch = render.sketch
        sketch.prompt = f"a toy painting, group {index // GROUP_SIZE}"
        sketch.code = _sketch_code(index)
        sketch.save()
    rng = random.Random(9)
    rejected = toy_render(grade="nope", rng=rng, index=900, status="rejected")
    rejected.violations = ["syntax_error"]
    rejected.save()
    unavailable = toy_render(grade="nope", rng=rng, index=901, status="unavailable")
    for extra in (rejected, unavailable):
        extra.sketch.prompt = "a toy painting, group 0"
        extra.sketch.save()
    reward_model = None
    if train:
        job = reward_services.reward_model_create(config={**SMALL_CONFIG, "max_epochs": 12},
                                                  queue=False)
        reward_model = job_run_here(kind="reward_model", pk=job.pk)
        assert reward_model.status == "done", reward_model.error
        reward_services.reward_model_activate(reward_model=reward_model, score=False)
    snapshot = PoolSnapshot.objects.create(name="lab pool", rule={}, counts={})
    loved = [r for r in renders if r.grades.filter(value="love").exists()][:6]
    PoolMember.objects.bulk_create(
        PoolMember(snapshot=snapshot, render=r, tier="love", subject="other",
                   prompt=r.sketch.prompt, code=r.sketch.code, png=r.png.name) for r in loved)
    return LabWorld(renders, rejected, unavailable, snapshot, reward_model)


def _sketch_code(index: int) -> str:
    """Sketches of different lengths, so the length signals vary."""
    strokes = "\n".join(f"  brush.line({i}, 0, {i}, 40);" for i in range(1 + index % 7))
    return f"// toy {index}\nfunction setup() {{\n  createCanvas(40, 40, WEBGL);\n{strokes}\n}}\n"


# 120 toy renders: the judge holds out about 42, enough for the yardstick's
# own three splits to hold two grades each.
WORLD_RENDERS = 120


def yardstick_world():
    """lab_world's active reward model and snapshot, and a yardstick of that model."""
    world = lab_world(count=WORLD_RENDERS)
    job = reward_services.reward_model_yardstick_create(reward_model=world.reward_model,
                                                        queue=False)
    yardstick = job_run_here(kind="reward_model", pk=job.pk)
    assert yardstick.status == RewardModel.Status.DONE, yardstick.error
    return world, yardstick
