"""Celery tasks of the pool app: thin, take ids, call a service. Routed to
the `short` queue (settings.CELERY_TASK_ROUTES), whose worker runs one
CPU-bound task at a time; storing fingerprints, which is quick, goes to
`default`. A reward model's training is a job (pool.kinds: jobs.tasks runs
it). The services queue these by name (jobs.dispatch.task_send), so this
module imports them and they import nothing of it."""
from celery import shared_task

from pool.models import RewardModel
from pool.reward.scoring import renders_score
from pool.services import render_fingerprints_store
from sketches.models import Render


# Scoring every finished render with the small CNN is decode and one forward
# pass a batch (pool.reward.scoring): an hour frees the short worker from a
# hung read of the render store.
@shared_task(soft_time_limit=3600, time_limit=3600 + 60)
def score_renders_task(reward_model_id: int, render_ids: list[int] | None = None) -> int:
    """Score renders (all finished ones by default) with a reward model, if it
    is still the active one: a model replaced meanwhile must not overwrite
    the newer model's scores."""
    reward_model = RewardModel.objects.filter(pk=reward_model_id, active=True).first()
    if reward_model is None:
        return 0
    renders = Render.objects.filter(pk__in=render_ids) if render_ids is not None else None
    return renders_score(reward_model=reward_model, renders=renders)


# A few milliseconds a render (settings.CELERY_TASK_ROUTES): ten minutes is
# far beyond a page's renders, and the default queue is not held for long.
@shared_task(soft_time_limit=600, time_limit=600 + 30)
def render_fingerprints_store_task(render_ids: list[int]) -> int:
    """Store the fingerprints the pool page computed without storing; returns
    how many of these renders have one now."""
    renders = Render.objects.filter(pk__in=render_ids).only("pk", "png")
    return len(render_fingerprints_store(renders=renders))
