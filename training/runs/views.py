"""The training-run pages (staff only): the recent runs, runs compared, and one run's page
(progress, curves, diagnostics, rollouts per step), which polls itself while
the run is live. Cancel and resume from the page need the permission to
change runs, as in the admin; the page offers them where
services.run_actions allows."""
from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from sketches.access import staff_required

from ..models import TrainingRun
from . import compare, presenters, selectors
from .services import RunError, run_actions, run_cancel, run_resume, run_stalled

CHANGE_PERMISSION = "training.change_trainingrun"


@require_GET
@staff_required(reason="Only staff can see training runs.")
def runs(request):
    context = {"runs": presenters.runs_list(), "policy": presenters.builtin_policy_state()}
    if request.htmx and request.headers.get("HX-Target") == "policy-state":
        return render(request, "training/runs.html#policy-state", context)
    return render(request, "training/runs.html", context)


@require_GET
@staff_required(reason="Only staff can see training runs.")
def run_detail(request, pk: int):
    run = get_object_or_404(TrainingRun.objects.select_related(
        "rubric", "prompt_set", "system_prompt", "snapshot", "judge", "scorer", "parent",
        "created_by"), pk=pk)
    context = {"run": run, "stalled": run_stalled(run), "actions": run_actions(run),
               "can_change": request.user.has_perm(CHANGE_PERMISSION),
               **presenters.run_page(run, step=request.GET.get("step"))}
    if request.htmx:
        return render(request, "training/run.html#run-body", context)
    context.update(policy=presenters.run_policy(run),
                   settings_summary=presenters.run_settings_summary(run),
                   system_prompt_text=selectors.run_system_prompt_text(run))
    return render(request, "training/run.html", context)


@require_GET
@staff_required(reason="Only staff can see training runs.")
def runs_compare(request):
    try:
        runs = compare.runs_chosen(request.GET.getlist("run"))
    except compare.CompareError as error:
        messages.error(request, f"{error}: tick them in the list, then press Compare.")
        return redirect("training:runs")
    return render(request, "training/compare.html", compare.runs_compare(runs))


@require_POST
@staff_required(reason="Only staff can cancel or resume training runs.")
def run_stop(request, pk: int):
    run = _changeable_run(request, pk)
    try:
        messages.info(request, run_cancel(run=run).message)
    except RunError as error:
        messages.error(request, str(error))
    return redirect("training:run", pk)


@require_POST
@staff_required(reason="Only staff can cancel or resume training runs.")
def run_restart(request, pk: int):
    run = _changeable_run(request, pk)
    try:
        run = run_resume(run=run)
    except RunError as error:
        messages.error(request, str(error))
    else:
        messages.info(request, f"Resuming {run} from checkpoint step {run.checkpoint_step} "
                               "on the train worker.")
    return redirect("training:run", pk)


def _changeable_run(request, pk: int) -> TrainingRun:
    if not request.user.has_perm(CHANGE_PERMISSION):
        raise PermissionDenied("Cancelling or resuming a run needs the permission to change "
                               "runs: ask an administrator for it.")
    return get_object_or_404(TrainingRun, pk=pk)
