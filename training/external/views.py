"""An external run's page (staff only): its steps as the client numbered
them, the reward and gate-pass curves and each signal's."""
from __future__ import annotations

from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from sketches.access import staff_required

from ..models import ExternalRun
from .presenters import external_run_page


@require_GET
@staff_required(reason="Only staff can see external runs.")
def external_run_detail(request, name: str):
    run = get_object_or_404(ExternalRun.objects.select_related("rubric", "snapshot", "judge",
                                                               "scorer"), name=name)
    return render(request, "training/external_run.html", {"run": run,
                                                         **external_run_page(run)})
