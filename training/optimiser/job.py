"""The body of a prompt optimisation's task on the train worker
(the "prompt_optimisation" kind, run by jobs.runner): check the reflection model answers,
load the policy, renderer, rubric and judges, and hand GEPA the adapter
(adapter.py); store each candidate as GEPA accepts it and each proposal as
GEPA rejects it, and finish.

GEPA is configured and called, not rewritten: its reflective mutation, its
per-prompt Pareto front (frontier "instance") and its candidate selection are
the package's. What this module adds is the job around it, through GEPA's own
hooks: `Recorder` is both a GEPA callback (each candidate's full evaluation is
stored as it happens, each rejected proposal with its minibatch evaluation,
the Pareto front marked after each iteration, progress written as metric
calls are spent) and a GEPA stopper (read between iterations: a cancel, a
failed reflection model, a failure to store). Inside an iteration the adapter
reads the cancel flag before each evaluation and raises, which GEPA passes on
(raise_on_exception), so a cancel waits for one evaluation at most.

GEPA logs and swallows what its callbacks raise; the Recorder keeps the
error instead and its stopper ends the job, which then fails with it.

GEPA's rejection event carries only the two minibatch sums; the proposal it
rejects is put together from the iteration's earlier events (its parent,
its minibatch, its text), and its per-prompt results are the adapter's
memo of the minibatch evaluation GEPA just ran. That pairing holds because
GEPA makes one proposal an iteration (its default sampling strategy, which
the job keeps); the Recorder refuses a second one rather than pair wrongly.

The job runs on the jobs runner (the "prompt_optimisation" kind): a
redelivered message while its worker lives does nothing; a job whose worker
died starts again, the candidates and rejected proposals its first worker
stored deleted at the new claim. GEPA, torch and the policy load with this
module, which only a worker imports (the kind names its body by path)."""
from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field

import gepa

from jobs.lease import Lease
from jobs.runner import Ending, JobStopped, Running

from ..models import PromptCandidate, PromptOptimisation
from ..reward.rubric import rubric_specs
from ..reward.scoring import signal_context_for, signals_unanswerable, unanswerable_text
from ..sampling.config import SamplingConfig
from ..sampling.device import memory_release, policy_open
from ..sampling.renderers import run_renderer
from . import services
from .adapter import COMPONENT, Example, SystemPromptAdapter
from .config import OptimisationConfig
from .reflection import ReflectionModel, ReflectionUnavailable

logger = logging.getLogger(__name__)
Status = PromptOptimisation.Status


def optimisation_body(running: Running) -> Ending:
    """The kind's body (jobs.runner). Only the worker holding the lease gets
    here, so a redelivery never deletes what a live worker is storing: a job
    started again (its worker died) starts from nothing."""
    job = PromptOptimisation.objects.select_related(
        "judge", "scorer", "reflection", "snapshot").get(pk=running.pk)
    PromptCandidate.objects.filter(optimisation=job).delete()
    summary = _optimise(job, running.lease)
    if running.lease.cancel_requested():  # GEPA returned because its stopper said so
        raise JobStopped(extra=summary)
    return Ending(extra=summary)


def _optimise(job: PromptOptimisation, lease: Lease) -> dict:
    config = job.launched_config
    settings = OptimisationConfig.launched(job)  # as frozen at the launch
    reflection = ReflectionModel.from_judge(job.reflection)
    reflection.check()
    specs = rubric_specs(config["rubric"]["signals"], job.dropped_signals)
    context = signal_context_for(judge=job.judge, scorer=job.scorer, snapshot=job.snapshot,
                                 seed=settings.seed)
    if found := signals_unanswerable(specs, context):
        raise services.OptimisationError(
            f"since the launch, {unanswerable_text(found, how_to_drop=services.HOW_TO_DROP)}")
    model, tokenizer, _ = policy_open(config["policy_path"])
    cancelled = lease.cancel_requested
    adapter = SystemPromptAdapter(
        # A job launched before "renders" was recorded rendered in the worker's browsers.
        job_id=job.pk, model=model, tokenizer=tokenizer,
        renderer=run_renderer(config.get("renders", "process")),
        specs=specs, context=context, samples=settings.samples_per_prompt, seed=settings.seed,
        sampling=SamplingConfig.of(settings), should_stop=cancelled)
    examples = [Example(i, prompt) for i, prompt in enumerate(config["prompts"])]
    recorder = Recorder(job=job, adapter=adapter, examples=examples, reflection=reflection,
                        lease=lease, max_metric_calls=settings.max_metric_calls)
    try:
        result = gepa.optimize(
            seed_candidate={COMPONENT: config["seed_prompt"]["text"]}, trainset=examples,
            valset=examples, adapter=adapter, reflection_lm=reflection,
            reflection_minibatch_size=settings.minibatch_size,
            max_metric_calls=settings.max_metric_calls,
            # A proposal is kept only if it beats its parent on the minibatch
            # (GEPA's default, named because the admin's page says so).
            acceptance_criterion="strict_improvement",
            stop_callbacks=[recorder], callbacks=[recorder], cache_evaluation=True,
            seed=settings.seed, raise_on_exception=True, logger=GepaLog(job.pk),
            track_best_outputs=False, display_progress_bar=False)
    finally:
        del model, adapter
        memory_release()
    if recorder.failure is not None:
        raise recorder.failure
    if reflection.failure is not None:
        raise ReflectionUnavailable(reflection.failure)
    return {"best": result.best_idx, "best_score": result.val_aggregate_scores[result.best_idx],
            "candidates": result.num_candidates, "proposals": recorder.proposals,
            "metric_calls": result.total_metric_calls,
            "reflections": reflection.calls, "notices": context.notices}


class GepaLog:
    """GEPA's logger (it prints by default): its lines into ours."""

    def __init__(self, job_id: int):
        self.job_id = job_id

    def log(self, message: str) -> None:
        logger.info("prompt optimisation %s: %s", self.job_id, message)


def _kept(method: Callable) -> Callable:
    """A callback whose error is kept for the stopper (module docstring)."""
    def callback(self: Recorder, event) -> None:
        if self.failure is not None:
            return
        try:
            method(self, event)
        except Exception as exc:  # noqa: BLE001 - re-raised by the job once GEPA stops
            logger.exception("prompt optimisation %s: storing GEPA's progress failed",
                             self.job_id)
            self.failure = exc
    return callback


@dataclass
class Proposal:
    """The iteration's proposal, as GEPA's events tell it (module docstring)."""

    iteration: int
    parent: int  # GEPA's index of the candidate it was made from
    minibatch: list[int] = field(default_factory=list)  # example indices
    text: str | None = None


class Recorder:
    """GEPA's callback and stopper for one job (module docstring)."""

    def __init__(self, *, job: PromptOptimisation, adapter: SystemPromptAdapter,
                 examples: list[Example], reflection: ReflectionModel, lease: Lease,
                 max_metric_calls: int):
        self.job_id, self.max_metric_calls = job.pk, max_metric_calls
        self.adapter, self.examples, self.reflection = adapter, examples, reflection
        self.cancelled = lease.cancel_requested
        self.failure: Exception | None = None
        self.iteration = self.metric_calls = self.found = self.proposals = 0
        self.best: float | None = None
        self.proposal: Proposal | None = None
        self.writer = lease

    # gepa's StopperProtocol: asked before each iteration.
    def __call__(self, state) -> bool:
        return (self.failure is not None or self.reflection.failure is not None
                or self.cancelled())

    @_kept
    def on_valset_evaluated(self, event) -> None:
        """A candidate scored on every prompt: GEPA keeps it (the seed, then each accepted one)."""
        text = event["candidate"][COMPONENT]
        results = self.adapter.results(text, self.examples)  # memoised: just scored
        parents = [p for p in event["parent_ids"] if p is not None]
        services.candidate_store(
            job_id=self.job_id, index=event["candidate_idx"], text=text,
            parent_index=parents[0] if parents else None, iteration=event["iteration"],
            metric_calls=self.metric_calls, results=[r.record() for r in results],
            mean_score=event["average_score"])
        self.found += 1
        score = event["average_score"]
        self.best = score if self.best is None else max(self.best, score)
        self._progress(force=True)

    @_kept
    def on_candidate_selected(self, event) -> None:
        if self.proposal is not None and self.proposal.iteration == event["iteration"]:
            raise RuntimeError(
                f"GEPA chose a second parent in iteration {event['iteration']}: the job "
                "records one proposal an iteration (GEPA's default sampling strategy)")
        self.proposal = Proposal(event["iteration"], event["candidate_idx"])

    @_kept
    def on_minibatch_sampled(self, event) -> None:
        self.proposal.minibatch = list(event["minibatch_ids"])

    @_kept
    def on_proposal_end(self, event) -> None:
        self.proposal.text = event["new_instructions"][COMPONENT]

    @_kept
    def on_candidate_accepted(self, event) -> None:
        """Stored already, by on_valset_evaluated."""
        self.proposal = None
        self.proposals += 1

    @_kept
    def on_candidate_rejected(self, event) -> None:
        """No better than its parent on the minibatch: GEPA drops it, the job keeps it."""
        proposal, self.proposal = self.proposal, None
        if proposal is None or proposal.text is None or proposal.iteration != event["iteration"]:
            raise RuntimeError(f"GEPA rejected a proposal in iteration {event['iteration']} "
                               f"that its earlier events did not describe ({proposal})")
        examples = [self.examples[i] for i in proposal.minibatch]
        results = self.adapter.results(proposal.text, examples)  # memoised: just scored
        # GEPA compares sums over the minibatch; the page shows means.
        services.proposal_rejected_store(
            job_id=self.job_id, text=proposal.text, parent_index=proposal.parent,
            iteration=proposal.iteration, metric_calls=self.metric_calls,
            results=[r.record() for r in results], mean_score=event["new_score"] / len(examples),
            parent_minibatch_score=event["old_score"] / len(examples))
        self.proposals += 1
        self._progress(force=True)

    @_kept
    def on_iteration_start(self, event) -> None:
        self.iteration = event["iteration"]
        self._progress()

    @_kept
    def on_iteration_end(self, event) -> None:
        self._front(event["state"])
        self._progress(force=True)

    @_kept
    def on_optimization_end(self, event) -> None:
        self._front(event["final_state"])

    @_kept
    def on_budget_updated(self, event) -> None:
        self.metric_calls = event["metric_calls_used"]
        self._progress()

    def _front(self, state) -> None:
        front = set().union(*state.get_pareto_front_mapping().values())
        services.candidates_front_set(job_id=self.job_id, front=front)

    def _progress(self, *, force: bool = False) -> None:
        self.writer.write(force=force, progress={
            "stage": "optimising", "iteration": self.iteration,
            "metric_calls": self.metric_calls, "max_metric_calls": self.max_metric_calls,
            "percent": min(100, int(100 * self.metric_calls / max(1, self.max_metric_calls))),
            "candidates": self.found, "proposals": self.proposals, "best_score": self.best,
            "reflections": self.reflection.calls})
