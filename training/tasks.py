"""Celery tasks of the training app that are not jobs (a job: a replay, a
run, a prompt optimisation, a calibration, runs by jobs.tasks; training.kinds
says where each goes): thin, take ids, call a service. A judge's agreement
goes to `short`, a policy build to `train` (settings.CELERY_TASK_ROUTES)."""
from celery import shared_task
from django.conf import settings
from django.core.management import call_command

from jobs.priority import run_yielding
from training.lab.agreement import judge_agreement_measure
from training.models import Judge


@shared_task
def judge_agreement_task(judge_id: int) -> dict:
    judge = Judge.objects.get(pk=judge_id)
    return judge_agreement_measure(judge=judge)


@shared_task
def policy_bootstrap_task(out: str, options: dict) -> str:
    """Build a policy on the train worker (`bootstrap_policy --queue`): a
    redelivered or repeated task finds the policy built and does nothing."""
    # Renders go first: curators wait on them, and the policy is needed only
    # once they have graded (training.policy.build's RECIPES fix the steps,
    # so a build that gives way takes longer but learns as much).
    run_yielding(lambda: call_command("bootstrap_policy", out=out, if_missing=True, **options),
                 niceness=settings.PAINTRL_POLICY_BUILD_NICENESS)
    return out
