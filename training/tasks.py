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


# A judge's agreement asks it about at most MAX_RENDERS renders and MAX_PAIRS
# pairs (training.lab.agreement): an hour is far beyond that, and frees the
# short worker from a judge that stopped answering.
@shared_task(soft_time_limit=3600, time_limit=3600 + 60)
def judge_agreement_task(judge_id: int) -> dict:
    judge = Judge.objects.get(pk=judge_id)
    return judge_agreement_measure(judge=judge)


# The built-in policy's recipe trains for fixed steps (training.policy.build
# RECIPES) and yields to renders (run_yielding), so a busy machine makes it
# slower, not endless: six hours frees the train worker from one that hung.
@shared_task(soft_time_limit=6 * 3600, time_limit=6 * 3600 + 120)
def policy_bootstrap_task(out: str, options: dict) -> str:
    """Build a policy on the train worker (`bootstrap_policy --queue`): a
    redelivered or repeated task finds the policy built and does nothing."""
    # Renders go first: curators wait on them, and the policy is needed only
    # once they have graded (training.policy.build's RECIPES fix the steps,
    # so a build that gives way takes longer but learns as much).
    run_yielding(lambda: call_command("bootstrap_policy", out=out, if_missing=True, **options),
                 niceness=settings.PAINTRL_POLICY_BUILD_NICENESS)
    return out
