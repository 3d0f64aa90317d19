"""Celery tasks of the training app: thin, take ids, call a service. Runs,
prompt optimisations and policy builds go to the `train` queue, replays and agreement to `short`
(settings.CELERY_TASK_ROUTES)."""
from celery import shared_task


@shared_task
def replay_task(replay_id: int) -> str:
    from training.lab.services import replay_run

    return replay_run(replay_id=replay_id).status


@shared_task
def judge_agreement_task(judge_id: int) -> dict:
    from training.lab.agreement import judge_agreement_measure
    from training.models import Judge

    judge = Judge.objects.get(pk=judge_id)
    return judge_agreement_measure(judge=judge)


@shared_task(bind=True)
def run_task(self, run_id: int, resume: bool = False) -> str:
    """Train a GRPO run (training.runs.worker.run_execute): hours long,
    acknowledged late, and harmless when redelivered."""
    from training.runs.worker import run_execute

    return run_execute(run_id=run_id, resume=resume, worker=self.request.hostname).status


@shared_task
def optimisation_task(job_id: int) -> str:
    """Evolve a system prompt with GEPA (training.optimiser.worker): long, on
    the train worker, acknowledged late; a redelivered task for a finished job
    does nothing."""
    from training.optimiser.worker import optimisation_execute

    return optimisation_execute(job_id=job_id).status


@shared_task
def policy_bootstrap_task(out: str, options: dict) -> str:
    """Build a policy on the train worker (`bootstrap_policy --queue`): a
    redelivered or repeated task finds the policy built and does nothing."""
    from django.conf import settings
    from django.core.management import call_command

    from jobs.priority import run_yielding

    # Renders go first: curators wait on them, and the policy is needed only
    # once they have graded (training.policy.build's RECIPES fix the steps,
    # so a build that gives way takes longer but learns as much).
    run_yielding(lambda: call_command("bootstrap_policy", out=out, if_missing=True, **options),
                 niceness=settings.PAINTRL_POLICY_BUILD_NICENESS)
    return out


@shared_task
def calibration_task(calibration_id: int) -> str:
    """Measure a snapshot's members against a policy's rollouts
    (training.calibration.worker): minutes, on the train worker, which holds
    the policy; a redelivered task for a finished job does nothing."""
    from training.calibration.worker import calibration_execute

    return calibration_execute(calibration_id=calibration_id).status
