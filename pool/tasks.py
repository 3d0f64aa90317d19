"""Celery tasks of the pool app: thin, take ids, call a service. Routed to
the `short` queue (settings.CELERY_TASK_ROUTES), whose worker runs one
CPU-bound task at a time; storing fingerprints, which is quick, goes to
`default`."""
from celery import shared_task


@shared_task
def train_reward_model_task(reward_model_id: int) -> str:
    from pool.reward.services import reward_model_train

    return reward_model_train(reward_model_id=reward_model_id).status


@shared_task
def score_renders_task(reward_model_id: int, render_ids: list[int] | None = None) -> int:
    """Score renders (all finished ones by default) with a reward model, if it
    is still the active one: a model replaced meanwhile must not overwrite
    the newer model's scores."""
    from pool.models import RewardModel
    from pool.reward.scoring import renders_score
    from sketches.models import Render

    reward_model = RewardModel.objects.filter(pk=reward_model_id, active=True).first()
    if reward_model is None:
        return 0
    renders = Render.objects.filter(pk__in=render_ids) if render_ids is not None else None
    return renders_score(reward_model=reward_model, renders=renders)


@shared_task
def render_fingerprints_store_task(render_ids: list[int]) -> int:
    """Store the fingerprints the pool page computed without storing; returns
    how many of these renders have one now."""
    from pool.services import render_fingerprints_store
    from sketches.models import Render

    renders = Render.objects.filter(pk__in=render_ids).only("pk", "png")
    return len(render_fingerprints_store(renders=renders))
