"""Celery tasks of the training app that are not jobs (a job: a replay, a
run, a prompt optimisation, a calibration, a policy build, runs by
jobs.tasks; training.kinds says where each goes): thin, take ids, call a
service. A judge's agreement goes to `short` (settings.CELERY_TASK_ROUTES)."""
from celery import shared_task

from training.lab.agreement import judge_agreement_measure
from training.models import Judge


# A judge's agreement asks it about at most MAX_RENDERS renders and MAX_PAIRS
# pairs (training.lab.agreement): an hour is far beyond that, and frees the
# short worker from a judge that stopped answering.
@shared_task(soft_time_limit=3600, time_limit=3600 + 60)
def judge_agreement_task(judge_id: int) -> dict:
    judge = Judge.objects.get(pk=judge_id)
    return judge_agreement_measure(judge=judge)
