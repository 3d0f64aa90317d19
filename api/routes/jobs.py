"""The jobs page as data (staff): every queued and running job of every
kind, with its queue and its place in it (paintrl_site.job_selectors)."""

from ninja import Router
from ninja.pagination import paginate

from paintrl_site.job_selectors import jobs_live

from ..auth import STAFF
from ..pagination import Page
from ..schemas import LiveJobOut

router = Router(tags=["jobs"])


@router.get("/jobs", response=list[LiveJobOut], auth=STAFF,
            summary="Running jobs first, then the queued ones in the order their worker takes them")
@paginate(Page)
def jobs_list(request):
    return [{"kind": live.kind.label, "id": live.job.pk, "status": live.job.status,
             "queue": live.queue, "position": live.position,
             "progress": getattr(live.job, "progress", None), "created": live.job.created}
            for live in jobs_live()]
