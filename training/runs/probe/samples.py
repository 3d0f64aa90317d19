"""One probe on the train worker: sample the policy on the probe's prompts at
its seeds, render each sample at its prompt's seed, score it with the
yardstick against the fixed references (training.reward.yardstick: a
rejected sketch 0, an unavailable render None), and store it (a Sketch and
Render as a rollout's are, a ProbeSample with its score). callback.py says
when.

The probe must leave training as it found it: sampling does
(training.sampling.samples), and the yardstick (the local judge) gives back
the thread count it scores with (pool.reward.conf.torch_threads)."""
from __future__ import annotations

import time
from dataclasses import dataclass

from django.db import transaction

from sketches.rendering import RenderOutcome

from ...models import Probe, ProbeSample
from ...reward.yardstick import Yardstick
from ...sampling.config import SamplingConfig
from ...sampling.samples import Sample, Sampling, samples_generate
from ...sampling.stored import completion_store
from ..config import RunConfig


@dataclass(frozen=True)
class ProbePlan(Sampling):
    """launched_config["probe"] (plan.probe_launched) with the sampling settings it runs with."""

    every: int
    yardstick_id: int
    member_ids: list[int]

    @classmethod
    def from_launched(cls, config: dict) -> ProbePlan | None:
        probe = config.get("probe")
        if not probe:
            return None
        grpo = RunConfig.from_launched(config)
        return cls(every=probe["every"], yardstick_id=probe["yardstick"]["id"],
                   prompts=probe["prompts"], samples=probe["samples"], seeds=probe["seeds"],
                   member_ids=[ref["member"] for ref in probe["references"]],
                   system=config["system_prompt"]["text"], config=SamplingConfig.of(grpo))


class Prober:
    """Takes a run's probes: the yardstick and the reference pictures are
    loaded once, for every probe of the run."""

    def __init__(self, *, run_id: int, plan: ProbePlan, renderer):
        self.run_id, self.plan, self.renderer = run_id, plan, renderer
        self.yardstick = Yardstick(yardstick_id=plan.yardstick_id, member_ids=plan.member_ids)

    def probe(self, *, model, tokenizer, step: int, beat) -> Probe:
        """Sample, render, score and store the probe at `step`; `beat()` between phases
        keeps the run's heartbeat fresh."""
        plan, times = self.plan, {}
        started = clock = time.perf_counter()
        samples = samples_generate(model, tokenizer, plan)
        times["generate"], clock = time.perf_counter() - clock, time.perf_counter()
        beat()
        seeds = [seed for seed in plan.seeds for _ in range(plan.samples)]
        keys = [f"run:{self.run_id}:probe:{step}:{i}" for i in range(len(samples))]
        outcomes = self.renderer([s.text for s in samples], seeds, keys).outcomes
        times["render"], clock = time.perf_counter() - clock, time.perf_counter()
        beat()
        scores = self.yardstick.scores(outcomes)
        times["score"], clock = time.perf_counter() - clock, time.perf_counter()
        probe = probe_store(run_id=self.run_id, step=step, plan=plan, samples=samples,
                            outcomes=outcomes, scores=scores)
        times["store"] = time.perf_counter() - clock
        times["total"] = time.perf_counter() - started
        Probe.objects.filter(pk=probe.pk).update(
            times={key: round(value, 3) for key, value in times.items()})
        beat()
        return probe


def probe_store(*, run_id: int, step: int, plan: ProbePlan, samples: list[Sample],
                outcomes: list[RenderOutcome], scores: list[float | None]) -> Probe:
    """The Probe and, per sample, a Sketch and Render (sampling.stored.completion_store,
    the meta saying probe) and a ProbeSample, in one transaction. A probe
    stored already (reached again by a redelivered run) is kept as it was."""
    with transaction.atomic():
        probe, created = Probe.objects.get_or_create(run_id=run_id, step=step)
        if not created:
            return probe
        rows = []
        for i, sample in enumerate(samples):
            prompt_index, index = divmod(i, plan.samples)
            prompt = plan.prompts[prompt_index]
            sketch, render = completion_store(
                text=sample.text, prompt=prompt, seed=plan.seeds[prompt_index],
                outcome=outcomes[i],
                meta={"run": run_id, "step": step, "probe": True, "prompt": prompt_index,
                      "index": index})
            rows.append(ProbeSample(probe=probe, prompt_index=prompt_index, index=index,
                                    prompt=prompt, sketch=sketch, render=render,
                                    score=scores[i], tokens=sample.tokens))
        ProbeSample.objects.bulk_create(rows)
    return probe
