"""The body of a calibration's task on the train worker
(the "calibration" kind, run by jobs.runner): sample the policy on the prompt set
(each prompt at its own seed, as the probe samples), render the samples
(PAINTRL_RUN_RENDERS: the worker's browsers or the render fleet), compare
each member of the snapshot with the rendered rollouts (measure.py), store
the win rates and finish.

A cancel is read between prompts and between batches of comparisons. A
redelivered job (its worker died) measures again from the start: nothing it
stores is kept until the end, where the results replace any stored before."""
from __future__ import annotations

import logging
from collections import Counter

from jobs.lease import Lease
from jobs.runner import Ending, Running
from pool.band import BAND, rates_summary
from sketches.rendering import OK

from ..models import Calibration, Judge
from ..reward.judges import Picture, judge_backend
from ..sampling.config import SamplingConfig
from ..sampling.device import memory_release, policy_open
from ..sampling.renderers import run_renderer
from ..sampling.samples import Sampling, prompt_seed, samples_generate
from .config import CalibrationConfig
from .measure import CalibrationStopped, RolloutPicture, win_rates_measure
from .services import calibration_results_store, judge_problems

logger = logging.getLogger(__name__)
Status = Calibration.Status


class CalibrationFailed(RuntimeError):
    """Nothing honest to measure (the message says why)."""


def calibration_body(running: Running) -> Ending:
    """The kind's body (jobs.runner); CalibrationStopped (a JobStopped) when
    a cancel is read."""
    calibration = Calibration.objects.select_related("snapshot").get(pk=running.pk)
    return Ending(extra=_calibrate(calibration, running.lease))


def _calibrate(calibration: Calibration, lease: Lease) -> dict:

    config = CalibrationConfig.from_stored(calibration.config)
    judge_row = Judge.objects.filter(pk=config.judge["id"]).first()
    if judge_row is None:
        raise CalibrationFailed(f"judge {config.judge['name']!r} was deleted since the launch")
    if problems := judge_problems(judge_row):
        raise CalibrationFailed("; ".join(problems))
    judge = judge_backend(judge_row)
    members = list(calibration.snapshot.members.defer("code").order_by("pk"))
    writer, stopped = lease, lease.cancel_requested
    total = config.rollouts

    model, tokenizer, _ = policy_open(config.policy["path"])
    renderer = run_renderer(config.renders)
    outcomes = []
    try:
        for index, prompt in enumerate(config.prompts):
            if stopped():
                raise CalibrationStopped()
            seed = prompt_seed(config.seed, index)
            sampled = samples_generate(model, tokenizer, Sampling(
                prompts=[prompt], samples=config.samples_per_prompt, seeds=[seed],
                system=config.system_prompt["text"], config=SamplingConfig.of(config)))
            keys = [f"calibration:{calibration.pk}:{index}:{i}" for i in range(len(sampled))]
            batch = renderer([s.text for s in sampled], [seed] * len(sampled), keys).outcomes
            outcomes.extend(batch)
            writer.write(force=len(outcomes) == total, progress={
                "stage": "sampling", "rollouts": len(outcomes), "of": total,
                "percent": int(50 * len(outcomes) / total)})
    finally:
        del model
        memory_release()
    owners = [prompt for prompt in config.prompts for _ in range(config.samples_per_prompt)]
    rendered = [RolloutPicture(Picture(data=o.png), prompt)
                for o, prompt in zip(outcomes, owners, strict=True) if o.status == OK and o.png]
    if not rendered:
        raise CalibrationFailed(_nothing_rendered(outcomes))

    def progress(done: int, asked: int) -> None:
        writer.write(progress={"stage": "judging", "rollouts": len(outcomes), "of": total,
                               "rendered": len(rendered), "comparisons": done, "asked": asked,
                               "percent": 50 + int(50 * done / asked)})

    rates = win_rates_measure(members=members, rollouts=rendered, judge=judge,
                              per_member=config.per_member, seed=config.seed,
                              should_stop=stopped, progress=progress)
    calibration_results_store(calibration_id=calibration.pk, rates=rates)
    return {"rollouts": len(outcomes), "rendered": len(rendered),
            **rates_summary(rates, *BAND).progress(), "notices": list(judge.notices),
            "percent": 100}


def _nothing_rendered(outcomes) -> str:
    counts = Counter(v for o in outcomes for v in o.violations) or Counter(
        o.status for o in outcomes)
    found = ", ".join(f"{name} ({n})" for name, n in counts.most_common(5))
    return (f"none of the policy's {len(outcomes)} rollouts rendered ({found}): a rejected "
            "sketch scores 0 against any reference, so there is no win rate to measure")
