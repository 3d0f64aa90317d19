"""A run's probe at launch: what it needs (probe_problems), what it will do,
frozen into launched_config["probe"] (probe_launched), and what a new run
proposes (probe_initial). Nothing here loads torch.

Every number the probe uses is fixed here, once: the same prompts, seeds and
references at every probe of the run and of its resumes, so two points of
its curve differ by the policy's weights alone."""
from __future__ import annotations

import random

from pool.models import RewardModel
from pool.reward.selectors import disjoint_from, gold_shared, reward_model_active

from ...models import TrainingRun
from ...reward.judges import JudgeUnavailable
from ...reward.judges.local import LocalRewardModelJudge
from ...reward.judges.registry import backend_class
from ...sampling.samples import SEED_RANGE

# Prompts a probe samples. The painter prompt set lists two prompts per
# subject in a row, so they are spread over the list (six subjects there),
# not its first six.
PROBE_PROMPTS = 6
# Samples per prompt. 6 x 3 = 18 samples, so one sample the gate rejects
# (scored 0) moves the probe's mean by its score / 18, at most 0.056: at
# 4 x 2 = 8 it moved it by up to 0.125. A probe costs about 2.25 default
# steps' generation and renders (8 a step), without their updates.
PROBE_SAMPLES = 3
# Pool references each sample is compared with. The yardstick scores a
# picture once (the local judge remembers it), so more references cost a
# decode each and nothing per probe; 16 keep the score from hanging on a few.
PROBE_REFERENCES = 16
# What a new run proposes when a yardstick exists: every 5 steps adds about
# 45 % to a default run's generation and renders (18 samples against 5 x 8),
# and gives a default 30-step run 7 points (steps 0, 5, ..., 30). A run's own default is 0 (off):
# a probe needs a yardstick, which a fresh installation has not trained, and
# a default that asked for one would refuse every first run.
PROBE_EVERY = 5
# Seeds: (run seed + prompt) is rewards.render_seed at step 0, which training
# never uses (its steps count from 1), so no training render shares a probe's.
HOW_TO_TRAIN = ('in the admin, Reward models, select the judge\'s model and run "Train a '
                'yardstick disjoint from the selected model"')


def probe_problems(run: TrainingRun) -> list[str]:
    """What stops the run's probe, each said with the way out; [] when the
    run has no probe (probe_every 0) or it can run."""
    if not run.probe_every:
        return []
    yardstick = run.yardstick
    if yardstick is None:
        return [f"probe_every is {run.probe_every} and no yardstick is chosen: choose a "
                f"finished reward model trained disjoint from the judge's ({HOW_TO_TRAIN}), "
                "or set probe_every to 0"]
    return yardstick_problems(run)


def yardstick_problems(owner) -> list[str]:
    """What stops `owner`'s yardstick (a run's, an external run's: anything
    with a yardstick, judge, scorer and snapshot) from scoring: not trained,
    sharing the judge's data, or no pool references to score against."""
    yardstick = owner.yardstick
    problems = []
    if yardstick.status != RewardModel.Status.DONE or not yardstick.weights:
        problems.append(f"the yardstick, reward model v{yardstick.version}, is "
                        f"{yardstick.status}: wait until it has trained, or choose a finished one")
    judged_by = judge_reward_model(owner)
    if yardstick.role == RewardModel.Role.GOLD:
        if judged_by is not None and (shared := gold_shared(yardstick, judged_by)):
            problems.append(
                f"the gold judge v{yardstick.version} learnt from {shared} sketches the "
                f"judge's reward model v{judged_by.version} trained on: a gold judge must "
                "never have seen what the proxy learnt from; build it from other painter "
                "seeds (bootstrap_gold --seed)")
    elif judged_by is not None and disjoint_from(yardstick) != judged_by.version:
        problems.append(
            f"the yardstick v{yardstick.version} was not trained disjoint from v"
            f"{judged_by.version}, the reward model the run's local judge uses, so it would "
            f"share the judge's blind spots: choose a yardstick of v{judged_by.version} "
            f"({HOW_TO_TRAIN})")
    if owner.snapshot is None or not owner.snapshot.members.exists():
        problems.append("the yardstick scores each picture against references from the pool "
                        "snapshot: choose a snapshot that has members")
    return problems


def judge_reward_model(run) -> RewardModel | None:
    """The reward model the run's judge or scorer answers with: the active one
    where either is the local reward model; else None."""
    for row in (run.judge, run.scorer):
        try:
            local = issubclass(backend_class(row.backend), LocalRewardModelJudge)
        except JudgeUnavailable:  # a backend no longer configured answers nothing
            local = False
        if local:
            return reward_model_active()
    return None


def probe_launched(run: TrainingRun) -> dict | None:
    """What the probe will do, for launched_config["probe"]: its cadence,
    yardstick, prompts, samples, seeds (one a prompt, for sampling and
    rendering) and references (pool members, drawn once from the run's
    snapshot by its seed); None without a probe."""
    if not run.probe_every:
        return None
    judged_by = judge_reward_model(run)
    prompts = probe_prompts(list(run.prompt_set.prompts))
    return {
        "every": run.probe_every,
        "yardstick": yardstick_launched(run.yardstick),
        "judge_reward_model": judged_by.version if judged_by else None,
        "prompts": prompts,
        "samples": PROBE_SAMPLES,
        "seeds": [(run.seed + i) % SEED_RANGE for i in range(len(prompts))],
        "references": [{"member": pk, "render": render_id}
                       for pk, render_id in references_drawn(run)],
    }


def yardstick_launched(yardstick: RewardModel) -> dict:
    """What a run records of its yardstick: for a gold judge, also the
    recipe, corpus, weights and held-out accuracy it was built with."""
    record = {"id": yardstick.pk, "version": yardstick.version, "role": yardstick.role}
    gold = (yardstick.training_data or {}).get("gold")
    if yardstick.role == RewardModel.Role.GOLD and gold:
        record["gold"] = {"recipe": gold["recipe"], "painter": gold["painter"],
                          "renders": gold["renders"], "weights_sha256": gold["weights_sha256"],
                          "heldout_pairwise_accuracy":
                              gold["metrics"]["heldout_pairwise_accuracy"]}
    return record


def probe_prompts(prompts: list[str]) -> list[str]:
    """PROBE_PROMPTS prompts spread evenly over the list, first included (all of a shorter one)."""
    if len(prompts) <= PROBE_PROMPTS:
        return list(prompts)
    return [prompts[i * len(prompts) // PROBE_PROMPTS] for i in range(PROBE_PROMPTS)]


def references_drawn(run) -> list[tuple[int, int | None]]:
    """(member id, render id) of PROBE_REFERENCES members of the run's (or
    external run's) snapshot, drawn by its seed (all of a smaller snapshot)."""
    members = list(run.snapshot.members.order_by("pk").values_list("pk", "render_id"))
    rng = random.Random(f"probe-references:{run.snapshot_id}:{run.seed}")
    return sorted(rng.sample(members, min(PROBE_REFERENCES, len(members))))


def probe_initial(defaults: dict) -> dict:
    """A new run's probe settings beside run_defaults(): probe every
    PROBE_EVERY steps when they found a yardstick, else nothing (off)."""
    return {"probe_every": PROBE_EVERY} if defaults.get("yardstick") else {}
