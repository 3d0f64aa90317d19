"""Celery tasks: thin, take ids, call a service. Routed to the `render` queue
(settings.CELERY_TASK_ROUTES); run the render worker with a thread pool so
its threads share one browser pool (see Procfile)."""
from celery import shared_task

from . import services


@shared_task
def render_task(render_id: int) -> str:
    return services.render_execute(render_id=render_id).status


@shared_task(bind=True)
def render_batch_task(self, render_ids: list[int]) -> dict:
    def report(done: int, total: int, _render) -> None:
        self.update_state(state="PROGRESS", meta={"done": done, "total": total})

    renders = services.renders_execute_bulk(render_ids=render_ids, on_progress=report)
    counts: dict[str, int] = {}
    for render in renders:
        counts[render.status] = counts.get(render.status, 0) + 1
    return {"done": len(renders), "total": len(render_ids), "statuses": counts}


# Routed to the default queue by its exact name in CELERY_TASK_ROUTES (the
# rest of this module goes to the render queue): an import needs no browser.
@shared_task
def import_job_task(import_job_id: int) -> str:
    from .importing.jobs import import_job_run

    return import_job_run(job_id=import_job_id).status
