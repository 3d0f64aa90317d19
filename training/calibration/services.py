"""Calibration jobs: launch (check the choices: a snapshot with members, a
policy on disk, a judge that compares pictures; freeze them into the
calibration's config, config.py; queue it on the train worker, which
samples the policy, job.py), cancel, and the per-member results a job or
a run's re-calibration stores, and a snapshot of the members in a band
(the band rule is pool.band's; the pool freezes the members it is
given, pool.services.snapshot_derive).

Nothing here loads torch."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.db import transaction
from django.utils import timezone

from jobs.services import Cancel, job_cancel
from pool.band import CalibrationError, WinRate, band_problems, in_band
from pool.models import PoolSnapshot
from pool.services import snapshot_derive

from ..launch import job_launch
from ..models import Calibration, Judge, MemberWinRate, PromptSet, SystemPrompt, TrainingRun
from ..policy import policy_path, trained_policy_dir
from ..policy.build import policy_exists
from ..presets import LOCAL_JUDGE, PROMPT_SET_NAME, SYSTEM_PROMPT_NAME
from ..reward.judges import JudgeUnavailable, judge_backend
from ..reward.judges.base import COMPARE_Q
from ..sampling import conf
from ..sampling.config import SamplingConfig
from ..sampling.launch import judge_launched, package_versions, policy_missing
from .config import CHOSEN, CalibrationConfig, CalibrationConfigError


class CalibrationLaunchError(ValueError):
    """A calibration that cannot be launched as asked; the message says why."""


def calibration_launch(*, snapshot: PoolSnapshot, run: TrainingRun | None = None,
                       base_model: str = "", judge: Judge | None = None,
                       prompt_set: PromptSet | None = None,
                       system_prompt: SystemPrompt | None = None, user=None,
                       **settings) -> Calibration:
    """Check, freeze and queue a calibration of `snapshot` against a policy:
    `run`'s trained policy, else the checkpoint folder `base_model`, else the
    built-in one. A choice left None is the run's (its judge, prompts, system
    prompt and sampling), else the preset's; `settings` sets any of
    SamplingConfig's settings and the calibration's own (CHOSEN: left out,
    CalibrationConfig's defaults). Refused with every reason at once."""
    if unknown := set(settings) - {*SamplingConfig.names(), *CHOSEN}:
        raise TypeError(f"calibration_launch() got settings that are not a calibration's: "
                        f"{sorted(unknown)}")
    policy = calibration_policy(run=run, base_model=base_model)
    judge = judge or (run.judge if run else Judge.objects.filter(name=LOCAL_JUDGE).first())
    prompt_set = prompt_set or (run.prompt_set if run else
                                PromptSet.objects.filter(name=PROMPT_SET_NAME).first())
    system_prompt = system_prompt or (run.system_prompt if run else SystemPrompt.objects.filter(
        name=SYSTEM_PROMPT_NAME).order_by("-version").first())
    missing = [f"choose a {what}" for what, row in (("judge", judge), ("prompt set", prompt_set),
                                                      ("system prompt", system_prompt))
               if row is None]
    if missing:
        raise CalibrationLaunchError("the calibration cannot be launched: " + "; ".join(missing))
    # A sampling setting left None: the run's, else a new run's defaults.
    settings = {**SamplingConfig.of(run or TrainingRun()).to_dict(),
                **{name: value for name, value in settings.items() if value is not None}}
    problems = []
    try:
        config = CalibrationConfig(
            policy=policy, judge=judge_launched(judge), prompts=list(prompt_set.prompts or []),
            system_prompt={"id": system_prompt.pk, "label": str(system_prompt),
                           "text": system_prompt.text},
            renders=conf.renders_default(), **settings)
    except CalibrationConfigError as error:
        config, problems = None, list(error.problems)
    problems.extend(calibration_problems(snapshot=snapshot, judge=judge, policy=policy))
    return job_launch(
        model=Calibration, name="the calibration", problems=problems, error=CalibrationLaunchError,
        frozen=lambda: {
            "snapshot": snapshot, "run": run, "created_by": user,
            "config": {**config.to_dict(), "prompt_set": {"id": prompt_set.pk,
                                                          "name": prompt_set.name},
                       "versions": package_versions(("transformers", "torch")),
                       "launched": timezone.now().isoformat()},
            "progress": {"stage": "queued"}})


def calibration_policy(*, run: TrainingRun | None = None, base_model: str = "") -> dict:
    """The policy a calibration samples, as its config records it: a finished
    run's trained policy (its final folder), else a local checkpoint folder,
    else (blank) the built-in policy."""
    if run is not None:
        return {"label": f"run {run.pk} ({run.name}), trained", "run": run.pk,
                "path": str(trained_policy_dir(run.pk))}
    path = policy_path(base_model)
    return {"label": base_model or "the built-in policy", "run": None, "path": str(path)}


def calibration_problems(*, snapshot: PoolSnapshot, judge: Judge, policy: dict) -> list[str]:
    """What would stop the job: each said so the user can fix it."""
    problems = []
    if not snapshot.members.exists():
        problems.append(f"snapshot {snapshot.name!r} holds no references to calibrate")
    if not policy_exists(Path(policy["path"])):
        if policy.get("run"):
            problems.append(f"{policy['label']} has no trained policy at {policy['path']}: "
                            "only a run that finished saves one")
        else:
            problems.append(policy_missing(policy["path"]))
    problems.extend(judge_problems(judge))
    return problems


def judge_problems(judge: Judge) -> list[str]:
    """Why `judge` cannot compare pictures ([] when it can; one answer may
    still fail on the day, and is then left out of a member's rate)."""
    try:
        backend = judge_backend(judge)
    except JudgeUnavailable as error:
        return [f"judge {judge.name}: {error}"]
    if COMPARE_Q not in backend.questions:
        return [f"judge {judge.name} ({backend.label or backend.key}) does not compare "
                "pictures: choose one that does"]
    return []


def calibration_cancel(*, calibration: Calibration) -> Cancel:
    """Stop a calibration (jobs.services.job_cancel): a queued one at once, a
    running one between two prompts or two batches of comparisons."""
    return job_cancel(job=calibration)


def calibration_snapshot_derive(*, calibration: Calibration, low: float, high: float,
                                name: str, note: str = "", user=None) -> PoolSnapshot:
    """Freeze a new snapshot of the calibrated snapshot's members whose win
    rate in `calibration` is in [low, high], recorded as derived from it with
    the calibration, its policy and judge, and the band. CalibrationError
    says why a band keeps nothing; pool.services.PoolError, why the name
    will not do."""
    if calibration.status != Calibration.Status.DONE:
        raise CalibrationError(f"calibration {calibration.pk} is {calibration.status}: only a "
                               "finished one says which references to keep")
    if problems := band_problems(low, high):
        raise CalibrationError(problems[0])
    parent = calibration.snapshot
    rates = dict(calibration.win_rates.values_list("member_id", "win_rate"))
    kept = [m for m, rate in rates.items() if in_band(rate, low, high)]
    if not kept:
        raise CalibrationError(f"no member of {parent.name!r} has a win rate from {low:g} to "
                               f"{high:g} in calibration {calibration.pk}: widen the band")
    policy = calibration.config.get("policy", {})
    judge = calibration.config.get("judge", {})
    return snapshot_derive(
        parent=parent, member_ids=kept, name=name, note=note, user=user, derivation={
            "calibration": calibration.pk, "band": [low, high], "policy": policy,
            "judge": judge, "of": len(rates),
            "summary": derivation_summary(calibration.pk, low, high, policy, judge)})


def derivation_summary(calibration_id: int, low: float, high: float, policy: dict,
                       judge: dict) -> str:
    """How a calibrated snapshot's members were kept, finishing its page's
    sentence "the N of its M members ...". (Migration pool 0008 wrote it the
    same way for the snapshots derived before it was stored.)"""
    return (f"that {policy.get('label') or 'the policy'} beat from {low:g} to {high:g} of the "
            f"time, judged by {judge.get('name') or 'its judge'} (calibration {calibration_id})")


def calibration_results_store(*, calibration_id: int, rates: Sequence[WinRate]) -> None:
    """A calibration's per-member results (pool.band.win_rates_sum),
    replacing any stored before (a redelivered job measures again)."""
    with transaction.atomic():
        MemberWinRate.objects.filter(calibration_id=calibration_id).delete()
        MemberWinRate.objects.bulk_create([
            MemberWinRate(calibration_id=calibration_id, member_id=r.member_id, asked=r.asked,
                          answered=r.answered, wins=r.wins, win_rate=r.win_rate)
            for r in rates])
