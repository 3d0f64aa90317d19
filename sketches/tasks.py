"""Celery tasks: thin, take ids, call a service. Routed to the `render` queue
(settings.CELERY_TASK_ROUTES); run the render worker with a thread pool so
its threads share one browser pool (see Procfile)."""
from celery import shared_task
from django.db import InterfaceError, OperationalError

from jobs.registry import DEFAULT_TIME_LIMIT_S, TIME_LIMIT_GRACE_S

from . import fleet, services
from .brush_api import DEFAULT_BRUSH

# The database briefly unavailable: try again later rather than fail. A
# failed task is acknowledged like a finished one, so without a retry its
# renders would stay pending until someone ran render_pending. Retrying is
# safe: stored renders are final and skipped. Backoff 2, 4, 8... s (jittered),
# at most 60 s apart, for about ten minutes in all.
DB_RETRY = {"autoretry_for": (OperationalError, InterfaceError), "retry_backoff": 2,
            "retry_backoff_max": 60, "max_retries": 12}

# Time limits. A slow sketch is stopped by the renderer's own deadline
# (PAINTRL_RENDER_DEADLINE_S, 30 s by default) and a crashed browser is
# replaced by the browser pool, so these catch only a call that never
# returns (a wedged browser or database), and free the worker for good work.
# The render worker runs Celery's thread pool (Procfile), which does not
# enforce Celery's time limits: there the deadline is what bounds a render,
# and these hold where a prefork worker takes the render queue.
#
# One render: its deadline, a browser's start and a wait for a free browser
# are seconds to a minute; ten minutes is far past any of them, and past an
# import's render too (its recording and its replay, each within at most
# importing.conf.MAX_IMPORT_DEADLINE_S).
ONE_RENDER_LIMITS = {"soft_time_limit": 600, "time_limit": 600 + 60}
# A batch's length grows with its size, so no bound fits every batch: the
# jobs' default (hours) frees a worker a wedged batch would hold for good.
BATCH_LIMITS = {"soft_time_limit": DEFAULT_TIME_LIMIT_S,
                "time_limit": DEFAULT_TIME_LIMIT_S + TIME_LIMIT_GRACE_S}


@shared_task(**DB_RETRY, **ONE_RENDER_LIMITS)
def render_task(render_id: int, deadline_s: float | None = None) -> str:
    # The render holds its deadline; `deadline_s` is taken only from a message
    # queued before it did.
    return services.render_execute(render_id=render_id, deadline_s=deadline_s).status


@shared_task(bind=True, **DB_RETRY, **BATCH_LIMITS)
def render_batch_task(self, render_ids: list[int]) -> dict:
    def report(done: int, total: int, _render) -> None:
        self.update_state(state="PROGRESS", meta={"done": done, "total": total})

    renders = services.renders_execute_bulk(render_ids=render_ids, on_progress=report)
    counts: dict[str, int] = {}
    for render in renders:
        counts[render.status] = counts.get(render.status, 0) + 1
    return {"done": len(renders), "total": len(render_ids), "statuses": counts}


# A render for the fleet (fleet.py): no database, so no DB retry; STARTED is
# reported with the worker's name, which the client pings to tell a slow
# render from a lost worker. One render, so one render's limits.
@shared_task(bind=True, track_started=True, **ONE_RENDER_LIMITS)
def fleet_render_task(self, text: str, seed: int, brush: str = DEFAULT_BRUSH) -> dict:
    # `brush` defaults to 2.x for a message sent before it was passed.
    return fleet.fleet_render_execute(text=text, seed=seed, worker=self.request.hostname,
                                      brush=brush)

