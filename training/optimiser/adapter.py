"""The GEPA adapter (gepa.GEPAAdapter): how a candidate system prompt is
scored, and what the reflection model is told about it.

A candidate is one text, the policy's system prompt (COMPONENT). GEPA's
examples are the prompt set's prompts. Scoring a candidate on a prompt (one
metric call) samples the policy `samples` times with the candidate as system
prompt, at the prompt's fixed seed (every candidate draws at the same seeds,
as the probe does: training/sampling/samples.py), renders each sample at that seed,
scores it with the rubric (training.reward, as a run's rollouts are), and
takes the mean of the totals. Every sample of a prompt faces the same pool
references, whichever candidate wrote it.

The reward rules hold: a sample with no total (its render unavailable, a
judge that did not answer) is left out of its prompt's mean, never counted
as 0; a prompt with no total at all cannot be scored, and the job stops with
the reason (ScoringUnavailable) rather than hand GEPA an invented number.

Results are memoised by (candidate text, prompt): GEPA evaluates a parent on
a minibatch it has scored before, and the same text at the same seeds would
sample the same sketches again. The memo also gives the job each candidate's
per-prompt results to store (job.py)."""
from __future__ import annotations

import hashlib
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from gepa import EvaluationBatch

from jobs.runner import JobStopped

from ..reward.inputs import SignalContext, rollout_from_outcome
from ..reward.rubric import rubric_total
from ..reward.scoring import signals_compute
from ..reward.spec import SignalSpec
from ..sampling.config import SamplingConfig
from ..sampling.outcomes import outcome_counts, unknown_method_called
from ..sampling.samples import Sampling, prompt_seed, samples_generate

# The candidate's one component: GEPA names the texts it evolves.
COMPONENT = "system_prompt"
# The sample shown to the reflection model is cut to this many characters:
# enough for the opening of a sketch, where a wrong call usually shows.
EXAMPLE_CHARS = 2000


class OptimisationStopped(JobStopped):
    """Asked to stop (cancelled): raised between evaluations, which GEPA passes on."""


class ScoringUnavailable(RuntimeError):
    """No sample of a prompt has a total: nothing honest to hand GEPA."""


@dataclass(frozen=True)
class Example:
    """One of GEPA's examples: a prompt of the prompt set."""

    index: int
    prompt: str


@dataclass(frozen=True)
class PromptResult:
    """A candidate's result on one prompt: GEPA's output and trajectory."""

    index: int
    prompt: str
    score: float
    samples: int
    judged: int  # samples the browser could judge (not unavailable)
    gate_passed: int
    unknown_method: int  # samples calling a brush method that does not exist
    unknown_methods: dict[str, int] = field(default_factory=dict)
    violations: dict[str, int] = field(default_factory=dict)
    signals: dict[str, float | None] = field(default_factory=dict)  # mean per signal name
    example: str = ""  # a sample, the first the gate rejected if any

    def record(self) -> dict:
        """As PromptCandidate.results stores it (without the example)."""
        return {"index": self.index, "prompt": self.prompt, "score": self.score,
                "samples": self.samples, "judged": self.judged,
                "gate_passed": self.gate_passed, "unknown_method": self.unknown_method,
                "unknown_methods": self.unknown_methods, "violations": self.violations,
                "signals": self.signals}

    def feedback(self) -> str:
        """What the reflection model reads about this prompt: the reward, the
        gate's verdicts and the brush methods that do not exist."""
        lines = [f"Reward {self.score:.3f} (0 to 1: the mean rubric total of {self.samples} "
                 "sketches written with these instructions).",
                 f"The gate passed {self.gate_passed} of {self.judged} sketches."]
        if self.violations:
            lines.append("The gate's violations: " + ", ".join(
                f"{name} ({count} of {self.judged})" for name, count in self.violations.items())
                + ".")
        if self.unknown_methods:
            lines.append("Brush methods called that p5.brush does not have: " + ", ".join(
                f"{name} ({count} sketches)" for name, count in self.unknown_methods.items())
                + ". The instructions should keep the sketches from calling them.")
        else:
            lines.append("Every brush method called exists in p5.brush.")
        if self.signals:
            lines.append("Signals (mean, 0 to 1): " + ", ".join(
                f"{name} {'-' if value is None else f'{value:.2f}'}"
                for name, value in self.signals.items()) + ".")
        return "\n".join(lines)


class SystemPromptAdapter:
    """gepa.GEPAAdapter for one job: the policy, renderer, rubric and judges
    are loaded once, for every candidate."""

    def __init__(self, *, job_id: int, model, tokenizer, renderer, specs: Sequence[SignalSpec],
                 context: SignalContext, samples: int, seed: int, sampling: SamplingConfig,
                 should_stop: Callable[[], bool]):
        self.job_id, self.model, self.tokenizer, self.renderer = job_id, model, tokenizer, renderer
        self.specs, self.context = list(specs), context
        self.samples, self.seed, self.sampling = samples, seed, sampling
        self.should_stop = should_stop
        self.memo: dict[tuple[str, int], PromptResult] = {}

    # -- gepa.GEPAAdapter ---------------------------------------------------------------------

    def evaluate(self, batch: list[Example], candidate: dict[str, str],
                 capture_traces: bool = False) -> EvaluationBatch:
        if self.should_stop():
            raise OptimisationStopped()
        results = self.results(candidate[COMPONENT], batch)
        return EvaluationBatch(outputs=results, scores=[r.score for r in results],
                               trajectories=results if capture_traces else None)

    def make_reflective_dataset(self, candidate: dict[str, str], eval_batch: EvaluationBatch,
                                components_to_update: list[str]
                                ) -> Mapping[str, Sequence[Mapping[str, str]]]:
        records = [{"Inputs": {"prompt": result.prompt},
                    "Generated Outputs": result.example[:EXAMPLE_CHARS],
                    "Feedback": result.feedback()}
                   for result in eval_batch.trajectories or eval_batch.outputs]
        return {component: records for component in components_to_update}

    propose_new_texts = None  # GEPA's own proposer, with the reflection model

    # -- scoring ------------------------------------------------------------------------------

    def results(self, system: str, examples: Sequence[Example]) -> list[PromptResult]:
        """The candidate `system`'s result on each example (memoised)."""
        missing = [e for e in examples if (system, e.index) not in self.memo]
        if missing:
            for result in self._score(system, missing):
                self.memo[(system, result.index)] = result
        return [self.memo[(system, e.index)] for e in examples]

    def _score(self, system: str, examples: Sequence[Example]) -> list[PromptResult]:
        seeds = [prompt_seed(self.seed, e.index) for e in examples]
        sampled = samples_generate(self.model, self.tokenizer, Sampling(
            prompts=[e.prompt for e in examples], samples=self.samples, seeds=seeds,
            system=system, config=self.sampling))
        owners = [e for e in examples for _ in range(self.samples)]
        render_seeds = [seed for seed in seeds for _ in range(self.samples)]
        digest = hashlib.sha256(system.encode()).hexdigest()[:12]
        keys = [f"gepa:{self.job_id}:{digest}:{owner.index}:{i}" for i, owner in enumerate(owners)]
        texts = [s.text for s in sampled]
        outcomes = self.renderer(texts, render_seeds, keys).outcomes
        rollouts = [rollout_from_outcome(key=key, prompt=owner.prompt, text=text, outcome=outcome,
                                         tokens=sample.tokens,
                                         group=f"gepa:{self.job_id}:{owner.index}")
                    for key, owner, text, outcome, sample
                    in zip(keys, owners, texts, outcomes, sampled, strict=True)]
        values = signals_compute(self.specs, rollouts, self.context)
        n = self.samples
        return [prompt_result(e, texts=texts[i * n:(i + 1) * n],
                              outcomes=outcomes[i * n:(i + 1) * n],
                              values=values[i * n:(i + 1) * n], specs=self.specs,
                              notices=self.context.notices)
                for i, e in enumerate(examples)]


def prompt_result(example: Example, *, texts: Sequence[str], outcomes: Sequence,
                  values: Sequence[Mapping[str, float | None]], specs: Sequence[SignalSpec],
                  notices: Sequence[str] = ()) -> PromptResult:
    """One prompt's samples (their texts, render outcomes and signal values)
    as its result: the mean of the totals they have (module docstring)."""
    totals = [rubric_total(row, specs) for row in values]
    present = [t for t in totals if t is not None]
    if not present:
        raise ScoringUnavailable(
            f"no sample of prompt {example.index} ({example.prompt!r}) has a total: its "
            "renders were unavailable or a judge did not answer "
            f"({'; '.join(notices) or 'no notice'})")
    counts = outcome_counts(outcomes)
    unknown = Counter(name for o in outcomes if unknown_method_called(o)
                      for name in o.unknown_calls)
    violations = Counter(v for o in outcomes for v in o.violations)
    rejected = [t for t, o in zip(texts, outcomes, strict=True) if o.violations]
    signals = {}
    for spec in specs:
        column = [row.get(spec.key) for row in values if row.get(spec.key) is not None]
        signals[spec.name] = statistics.fmean(column) if column else None
    return PromptResult(
        index=example.index, prompt=example.prompt, score=statistics.fmean(present),
        samples=len(texts), judged=counts.judged, gate_passed=counts.gate_passed,
        unknown_method=counts.unknown_method, unknown_methods=dict(unknown.most_common()),
        violations=dict(violations.most_common()), signals=signals,
        example=(rejected or list(texts))[0])
