"""The run's one reward function: a batch of completions rendered (in the
train worker's pool or by the render fleet: training.sampling.renderers), scored by the
rubric, and stored (Sketch, Render and Rollout rows, so every rollout joins
the grading queue as origin "rollout").

TRL (1.16) hands the function the generation batch, the generations of one
prompt contiguous (RepeatSampler yields each prompt num_generations times in
a row), so rollout i belongs to group i // num_generations.

In a multi-process run (supervisor.py) each process generates its own slice
and calls the function with it: TRL's global batch is the processes' slices
in rank order (accelerate's BatchSamplerShard gives process p batches p,
p + P, ...; TRL gathers the rewards with accelerate's `gather` and takes
back rows process_index * len(prompts) onwards). So the main process gathers
every slice in rank order, renders, scores and stores the whole batch at its
global positions (a group may span two processes), and every process returns
its own slice of the totals. The others never render or write.

A completion with no total (any weighted signal missing: its render
unavailable, a judge that did not answer it; training.reward.rubric.rubric_total)
returns None: TRL turns None into NaN, leaves it out of its group's mean and
std and gives it advantage 0. Nothing here turns None into 0, or into a total
of the signals that did answer. Each step counts its rollouts with no total (no_total).
"""
from __future__ import annotations

import logging
import statistics
import time
from collections.abc import Sequence

from django.db import transaction

from sketches.rendering import RenderOutcome

from ..models import Rollout
from ..reward.advantages import grpo_advantages, zero_spread_share
from ..reward.inputs import SignalContext, rollout_from_outcome
from ..reward.scoring import totals_compute
from ..reward.spec import SignalSpec
from ..sampling.outcomes import outcome_counts
from ..sampling.renderers import FleetRenderer, ProcessRenderer
from ..sampling.samples import SEED_RANGE
from ..sampling.stored import completion_store
from . import ranks
from .callbacks import RunLease, StepBook

logger = logging.getLogger(__name__)

# Render seeds: the run's seed, then room for this many groups per step, so a
# rollout's picture is reproducible from (seed, step, group) alone.
SEEDS_PER_STEP = 10_000


def render_seed(run_seed: int, step: int, group: int) -> int:
    """One seed for every rollout of a group (a new one each step): the spread
    GRPO learns from inside a group is then the code's, not the seed's luck."""
    return (run_seed + step * SEEDS_PER_STEP + group) % SEED_RANGE


def rollout_key(run_id: int, step: int, index: int) -> str:
    """A rollout's key in its step's batch: the judges' and the render fleet's
    (a render done twice comes back once per key)."""
    return f"run:{run_id}:{step}:{index}"


def group_key(run_id: int, step: int, group: int) -> str:
    """What the group's rollouts share in the draw of pairwise references
    (training.reward.inputs.SignalInput.group): the same references for each of them."""
    return f"run:{run_id}:{step}:group:{group}"


def completion_text(completion) -> str:
    """The assistant's text: conversational completions are a list of messages."""
    if isinstance(completion, list):
        return completion[0]["content"] if completion else ""
    return str(completion)


class RubricReward:
    """Called by TRL once per generation batch (by every process of a
    multi-process run, each with its slice); returns one total or None per
    completion it was given. The main process leaves the step's summary in
    `book.summaries[step]` (with the render workers that rendered it); the
    others have no renderer, context or lease to use."""

    __name__ = "rubric"  # TRL logs the function's rewards as rewards/rubric/...

    def __init__(self, *, run_id: int, specs: Sequence[SignalSpec], context: SignalContext,
                 num_generations: int, scale_rewards: str, seed: int,
                 renderer: ProcessRenderer | FleetRenderer | None, lease: RunLease,
                 book: StepBook, recalibrator=None, yardstick=None):
        self.run_id, self.specs, self.context = run_id, list(specs), context
        self.num_generations, self.scale_rewards, self.seed = num_generations, scale_rewards, seed
        self.renderer, self.lease, self.book = renderer, lease, book
        # training.calibration.recalibrate.Recalibrator, in a run that re-calibrates.
        self.recalibrator = recalibrator
        # In a run with a probe: its scorer (probe.samples.Prober.scores), which
        # also scores each step's rollouts, so the yardstick's view of the
        # policy is there at every step beside the reward it optimises.
        self.yardstick = yardstick

    def __call__(self, prompts, completions, completion_ids, trainer_state=None,
                 prompt_text=None, **kwargs) -> list[float | None]:
        step = trainer_state.global_step + 1  # the step these completions train
        texts = [completion_text(c) for c in completions]
        subjects = list(prompt_text) if prompt_text is not None else [""] * len(texts)
        tokens = [len(ids) for ids in completion_ids]
        # The whole batch in TRL's global order, where this process's slice starts
        # at rank x its length, as TRL slices it (module docstring).
        rows = ranks.gather_rows(list(zip(texts, subjects, tokens, strict=True)))
        totals = None
        if ranks.is_main():
            texts_all, subjects_all, tokens_all = (list(column)
                                                   for column in zip(*rows, strict=True))
            totals = self.batch_score(step, texts_all, subjects_all, tokens_all)
        start = ranks.rank() * len(texts)
        return ranks.from_main(totals)[start:start + len(texts)]

    def batch_score(self, step: int, texts: list[str], subjects: list[str],
                    tokens: list[int]) -> list[float | None]:
        """Render, score and store a whole generation batch (the main process's
        work); its totals in order."""
        clock = self.book.clock
        groups = [i // self.num_generations for i in range(len(texts))]
        _check_groups(subjects, groups)
        seeds = [render_seed(self.seed, step, group) for group in groups]
        keys = [rollout_key(self.run_id, step, i) for i in range(len(texts))]
        self.lease.beat()

        started = time.perf_counter()
        rendered = self.renderer(texts, seeds, keys)
        outcomes = rendered.outcomes
        clock.render += time.perf_counter() - started
        self.lease.beat()

        started = time.perf_counter()
        rollouts = [rollout_from_outcome(key=key, prompt=subject, text=text, outcome=outcome,
                                         tokens=count, group=group_key(self.run_id, step, group))
                    for key, subject, text, outcome, count, group
                    in zip(keys, subjects, texts, outcomes, tokens, groups, strict=True)]
        values, totals = totals_compute(self.specs, rollouts, self.context)
        for text in self.context.notices:
            self.book.notice(text)
        yardstick_mean = self._yardstick_mean(outcomes)
        clock.judge += time.perf_counter() - started

        started = time.perf_counter()
        advantages = grpo_advantages(totals, groups, scale_rewards=self.scale_rewards)
        rollouts_store(run_id=self.run_id, step=step, prompts=subjects, texts=texts,
                       outcomes=outcomes, seeds=seeds, values=values, totals=totals,
                       advantages=advantages, tokens=tokens, num_generations=self.num_generations)
        self.book.summaries[step] = {
            **step_summary(self.specs, outcomes, values, totals, groups, tokens),
            "render_workers": rendered.workers, "yardstick_mean": yardstick_mean}
        clock.store += time.perf_counter() - started
        if self.recalibrator is not None:
            started = time.perf_counter()
            self.book.summaries[step]["calibration"] = self.recalibrator.after_step(step,
                                                                                    rollouts)
            clock.judge += time.perf_counter() - started
        clock.reward_ended = time.perf_counter()
        return totals

    def _yardstick_mean(self, outcomes) -> float | None:
        """The yardstick's mean score of the step's rollouts as the probe scores
        its samples (a rejected one 0); None without a yardstick or a score.
        An instrument, as the probe is: one that fails is logged and said in
        the run's notices, and the step goes on."""
        if self.yardstick is None:
            return None
        try:
            scores = [s for s in self.yardstick(outcomes) if s is not None]
        except Exception as exc:  # the step's yardstick score is lost, the run goes on
            logger.exception("run %s: the yardstick could not score the rollouts", self.run_id)
            self.book.notice(
                f"the yardstick could not score the rollouts ({type(exc).__name__}: {exc})")
            return None
        return statistics.fmean(scores) if scores else None


def _check_groups(subjects: list[str], groups: list[int]) -> None:
    """The contiguous-groups assumption (module docstring), checked on every batch:
    were TRL ever to interleave generations, rewards would be grouped wrongly."""
    first: dict[int, str] = {}
    for subject, group in zip(subjects, groups, strict=True):
        if first.setdefault(group, subject) != subject:
            raise RuntimeError("the trainer did not keep each prompt's generations together: "
                               f"group {group} holds {first[group]!r} and {subject!r}")


def rollouts_store(*, run_id: int, step: int, prompts, texts, outcomes, seeds, values, totals,
                   advantages, tokens, num_generations: int) -> list[Rollout]:
    """A Sketch and Render (completion_store) and a Rollout row per
    completion, in one transaction."""
    rows = []
    with transaction.atomic():
        for i, text in enumerate(texts):
            group, index = divmod(i, num_generations)
            sketch, render = completion_store(
                text=text, prompt=prompts[i], seed=seeds[i], outcome=outcomes[i],
                meta={"run": run_id, "step": step, "group": group, "index": index})
            rows.append(Rollout(run_id=run_id, step=step, group=group, index=index,
                                prompt=prompts[i], sketch=sketch, render=render,
                                values=values[i], total=totals[i], advantage=advantages[i],
                                tokens=tokens[i]))
        return Rollout.objects.bulk_create(rows)


def step_summary(specs: Sequence[SignalSpec], outcomes: Sequence[RenderOutcome],
                 values: Sequence[dict], totals: Sequence[float | None], groups: Sequence[int],
                 tokens: Sequence[int]) -> dict:
    """TrainingStep fields from one batch. Shares of the gate and of unknown
    methods count rollouts the browser could judge (not unavailable ones);
    no_total counts the rollouts left out of their group."""
    present = [t for t in totals if t is not None]
    signals = {}
    for spec in specs:
        column = [row.get(spec.key) for row in values]
        signals[spec.name] = {**_mean_std([v for v in column if v is not None]),
                              "missing": sum(v is None for v in column)}
    counts = outcome_counts(outcomes)
    return {
        **{f"reward_{key}": value for key, value in _mean_std(present).items()},
        "zero_spread_groups": zero_spread_share(totals, groups),
        "no_total": sum(total is None for total in totals),
        "signals": signals,
        "completion_tokens": {"mean": statistics.fmean(tokens), "min": min(tokens),
                              "max": max(tokens)} if tokens else {},
        "gate_pass": counts.share("gate_passed"),
        "unknown_method_rate": counts.share("unknown_method"),
    }


def _mean_std(values: list[float]) -> dict[str, float | None]:
    """Mean, and the sample standard deviation (n - 1, as TRL logs reward_std)."""
    return {"mean": statistics.fmean(values) if values else None,
            "std": statistics.stdev(values) if len(values) > 1 else None}
