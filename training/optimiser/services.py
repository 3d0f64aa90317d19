"""System prompt optimisations' lifecycle: launch (check, freeze what the job
uses, queue on the train worker), cancel, which of those a job allows
(optimisation_actions), storing GEPA's candidates and the proposals it
rejected as the worker finds them, and saving a candidate as a new system
prompt revision, which runs can use.

A job's life is a run's: draft -> queued -> running -> done | failed |
cancelled (jobs.services). A cancel stops a running job at its next
evaluation (job.py). Nothing here loads torch or gepa."""
from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from jobs.models import LIVE
from jobs.services import Cancel, CancelOutcome, job_cancel, job_not_live

from ..launch import draft_launch
from ..models import PromptCandidate, PromptOptimisation, SystemPrompt
from ..reward.rubric import signal_specs
from ..runs.services import choice_problems, launched_choices, run_unanswerable
from ..sampling import conf
from ..sampling.launch import judge_launched, package_versions
from .config import OptimisationConfig, OptimisationConfigError
from .reflection import ReflectionUnavailable, reflection_endpoint

Status = PromptOptimisation.Status
# Where the admin offers the choice to drop signals (in a refusal's way out).
HOW_TO_DROP = 'tick "drop signals the judges cannot answer" on the optimisation'


class OptimisationError(ValueError):
    """A job that cannot be launched or cancelled as asked; the message says why."""


# --- launch ----------------------------------------------------------------------------------

def optimisation_launch(*, job: PromptOptimisation, user=None) -> PromptOptimisation:
    """Check a draft, freeze what it will use into launched_config, and queue
    it on the train queue once the transaction commits."""
    problems = optimisation_problems(job) if job.status == Status.DRAFT else []
    return draft_launch(
        job=job, problems=problems, error=OptimisationError,
        frozen=lambda: {
            "launched_config": launched_config(job, user),
            "dropped_signals": run_unanswerable(job, signal_specs(job.rubric.signals)),
            "progress": {"stage": "queued", "metric_calls": 0,
                         "max_metric_calls": job.max_metric_calls}})


def optimisation_problems(job: PromptOptimisation) -> list[str]:
    """Everything that would stop the job, each said so the user can fix it."""
    problems = choice_problems(job, how_to_drop=HOW_TO_DROP)
    prompts = job.prompt_set.prompts if isinstance(job.prompt_set.prompts, list) else []
    problems.extend(_budget_problems(job, len(prompts)))
    problems.extend(_reflection_problems(job))
    return problems


def _budget_problems(job: PromptOptimisation, prompts: int) -> list[str]:
    try:
        config = OptimisationConfig.of(job)
    except OptimisationConfigError as error:
        return list(error.problems)
    return config.budget_problems(prompts)


def _reflection_problems(job: PromptOptimisation) -> list[str]:
    """The reflection row's configuration; its key is read on the worker,
    whose environment this process may not share (reflection.py)."""
    try:
        reflection_endpoint(job.reflection)
    except ReflectionUnavailable as error:
        return [str(error)]
    return []


def launched_config(job: PromptOptimisation, user=None) -> dict:
    """What the job optimises with, copied now: editing the rubric, prompts,
    seed prompt or the job's own settings later changes nothing about it."""
    reflection = job.reflection
    return {
        **launched_choices(job),
        "settings": OptimisationConfig.of(job).to_dict(),
        "seed_prompt": {"id": job.seed_prompt.pk, "label": str(job.seed_prompt),
                        "text": job.seed_prompt.text},
        "reflection": {**judge_launched(reflection), "base_url": reflection.base_url,
                       "model": reflection.model, "api_key_env": reflection.api_key_env},
        # Where the candidates' samples render (PAINTRL_RUN_RENDERS), as a run's rollouts do.
        "renders": conf.renders_default(),
        "versions": package_versions(("gepa", "transformers", "torch")),
        "launched": timezone.now().isoformat(),
        "launched_by": getattr(user, "username", None),
    }


# --- cancel ----------------------------------------------------------------------------------

def optimisation_cancel(*, job: PromptOptimisation) -> Cancel:
    """Stop a job (jobs.services.job_cancel): a queued one at once, a running
    one at its next evaluation, keeping the candidates found so far."""
    job.refresh_from_db()
    if "cancel" not in optimisation_actions(job):
        if job.status in LIVE:  # asked already
            return Cancel(CancelOutcome.STOPPING, job.status, f"{job} will stop soon.")
        return job_not_live(job=job)
    return job_cancel(job=job)


def optimisation_actions(job: PromptOptimisation) -> frozenset[str]:
    """Which of launch and cancel the job's state allows: the rule the admin follows."""
    verbs = set()
    if job.status == Status.DRAFT:
        verbs.add("launch")
    if job.status in LIVE and not job.cancel_requested:
        verbs.add("cancel")
    return frozenset(verbs)


# --- candidates ------------------------------------------------------------------------------

def candidate_store(*, job_id: int, index: int, text: str, parent_index: int | None,
                    iteration: int, metric_calls: int, results: list[dict],
                    mean_score: float) -> PromptCandidate:
    """A candidate GEPA keeps, with its per-prompt results on the whole prompt
    set (adapter.PromptResult.record)."""
    return PromptCandidate.objects.create(
        optimisation_id=job_id, index=index, text=text, parent=_parent(job_id, parent_index),
        iteration=iteration, metric_calls=metric_calls, results=results,
        mean_score=mean_score, on_front=index == 0, **_sample_rates(results))


def proposal_rejected_store(*, job_id: int, text: str, parent_index: int, iteration: int,
                            metric_calls: int, results: list[dict], mean_score: float,
                            parent_minibatch_score: float) -> PromptCandidate:
    """A proposal GEPA rejected: no better than its parent on the minibatch
    both were scored on (`results` and the two means are on that minibatch
    only). It has no index: GEPA never adds it to its candidates."""
    return PromptCandidate.objects.create(
        optimisation_id=job_id, index=None, text=text, parent=_parent(job_id, parent_index),
        iteration=iteration, metric_calls=metric_calls, results=results,
        mean_score=mean_score, parent_minibatch_score=parent_minibatch_score,
        **_sample_rates(results))


def _parent(job_id: int, index: int | None) -> PromptCandidate | None:
    if index is None:
        return None
    return PromptCandidate.objects.accepted().get(optimisation_id=job_id, index=index)


def _sample_rates(results: list[dict]) -> dict:
    """Gate pass and unknown-method rate over every judged sample of `results`."""
    judged = sum(r["judged"] for r in results)
    if not judged:
        return {"gate_pass": None, "unknown_method_rate": None}
    return {"gate_pass": sum(r["gate_passed"] for r in results) / judged,
            "unknown_method_rate": sum(r["unknown_method"] for r in results) / judged}


def candidates_front_set(*, job_id: int, front: set[int]) -> None:
    """Mark the candidates on GEPA's Pareto front (`front`: their indices), and only them."""
    rows = PromptCandidate.objects.accepted().filter(optimisation_id=job_id)
    rows.filter(index__in=front).update(on_front=True)
    rows.exclude(index__in=front).update(on_front=False)


def candidate_save_as_prompt(*, candidate: PromptCandidate, name: str | None = None
                             ) -> SystemPrompt:
    """The candidate's text as the next revision of `name` (the seed prompt's
    name by default), usable by runs; recorded on the candidate. Saving the
    same candidate again returns the revision it was saved as.

    Only a candidate GEPA kept: a proposal it rejected was scored on one
    minibatch, where it did no better than its parent, and never on the
    prompt set, so nothing says it is worth a run."""
    with transaction.atomic():
        locked = PromptCandidate.objects.select_for_update().select_related(
            "optimisation__seed_prompt").get(pk=candidate.pk)
        if not locked.accepted:
            raise OptimisationError(
                f"{locked} cannot be saved as a system prompt: GEPA rejected it on its "
                "minibatch and never scored it on the prompt set")
        if locked.system_prompt_id is not None:
            return locked.system_prompt
        prompt = SystemPrompt.objects.create(
            name=name or locked.optimisation.seed_prompt.name, text=locked.text)
        locked.system_prompt = prompt
        locked.save(update_fields=["system_prompt"])
    candidate.refresh_from_db()
    return prompt
