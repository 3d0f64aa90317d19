"""The replay lab's pages (staff only): start a replay, watch it, read the
diagnostics; measure a judge's agreement with the curators."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from sketches.access import staff_required

from ..models import Judge, Replay
from ..reward.spec import RubricError
from ..tasks import judge_agreement_task
from . import selectors
from .forms import ReplayForm
from .selection import AUTO, ReplaySelection, selection_resolve
from .services import ReplayError, replay_cancel, replay_create


@require_http_methods(["GET", "POST"])
@staff_required(reason="Only staff can use the replay lab.")
def lab(request):
    form = ReplayForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            replay = replay_create(rubric=data["rubric"], compare_rubric=data["compare_rubric"],
                                   snapshot=data["snapshot"], judge=data["judge"],
                                   scorer=data["scorer"], selection=form.selection(),
                                   drop_unanswerable=data["drop_unanswerable"],
                                   name=data["name"], created_by=request.user)
        except (ReplayError, RubricError) as error:
            form.add_error(None, str(error))
        else:
            return redirect("training:replay", replay.pk)
    status = 400 if request.method == "POST" else 200
    # What the automatic grouping would pick on every render, said beside the choice.
    auto_grouping = selection_resolve(ReplaySelection(group_by=AUTO))
    return render(request, "training/lab.html",
                  {"form": form, "replays": selectors.replays_recent(),
                   "judges": selectors.judges_with_agreement(),
                   "auto_grouping": auto_grouping}, status=status)


@require_GET
@staff_required(reason="Only staff can use the replay lab.")
def replay_detail(request, pk: int):
    replay = get_object_or_404(Replay.objects.select_related(
        "rubric", "compare_rubric", "snapshot", "judge", "scorer"), pk=pk)
    context = {"replay": replay, "columns": selectors.replay_columns(replay),
               "extremes": selectors.replay_extremes(replay)}
    template = "training/replay.html#replay-body" if request.htmx else "training/replay.html"
    return render(request, template, context)


@require_POST
@staff_required(reason="Only staff can use the replay lab.")
def replay_stop(request, pk: int):
    replay = get_object_or_404(Replay, pk=pk)
    messages.info(request, replay_cancel(replay=replay).message)
    return redirect("training:replay", pk)


@require_POST
@staff_required(reason="Only staff can use the replay lab.")
def judge_agreement(request, pk: int):
    judge = get_object_or_404(Judge, pk=pk)
    judge_agreement_task.delay(judge.pk)
    messages.info(request, f"Measuring {judge.name}'s agreement with the curators on the "
                           "short worker; reload in a minute.")
    return redirect("training:lab")
