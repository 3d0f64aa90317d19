"""The comparing page (two renders of one prompt side by side) and the
background endpoints compare.js talks to. Thin, as rating/views.py:

    rating:compare          GET the page; POST one action from its plain forms (no JS)
    rating:compare_act      POST one action, answer JSON with the next pairs
    rating:compare_next     GET the next pairs as JSON (topping up the browser's queue)
"""
from __future__ import annotations

import time

from django.contrib import messages
from django.http import JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from . import conf
from .access import curator_required
from .compare_forms import CompareForm, CompareOutcome, PairRequestForm
from .models import Comparison
from .pair_queue import pairs_next
from .pairs import comparisons_recent, pair_progress
from .presenters import compare_page_json, pair_json
from .views import now_ms, timed_json

# The keys the page offers (compare.js reads the same table from the page).
CHOICE_KEYS = {Comparison.Choice.LEFT: ("←", "1"), Comparison.Choice.RIGHT: ("→", "2"),
               Comparison.Choice.TIE: ("t", "0"), Comparison.Choice.SKIP: ("s",)}


@never_cache
@curator_required
def compare(request):
    if request.method == "POST":
        return _compare_form_post(request)
    batch = pairs_next(curator=request.user, want=conf.grade_prefetch())
    undo_steps = comparisons_recent(curator=request.user)
    context = {
        "current": batch.entries[0] if batch.entries else None,
        "progress": pair_progress(curator=request.user),
        "undo_step": undo_steps[-1] if undo_steps else None,
        "choices": [(value, label, CHOICE_KEYS[value]) for value, label
                    in Comparison.Choice.choices],
        "shown_at": now_ms(),
        "compare_data": compare_page_json(batch=batch, undo_steps=undo_steps, user=request.user),
    }
    return render(request, "rating/compare.html", context)


def _compare_form_post(request):
    """The page without JavaScript: apply the action, then show the next pair."""
    form = CompareForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Not saved: " + "; ".join(
            f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()))
    else:
        messages.success(request, _saved_message(form.apply(curator=request.user,
                                                            now_ms=now_ms())),
                         extra_tags="saved")
    return redirect(reverse("rating:compare"))


def _saved_message(outcome: CompareOutcome) -> str:
    pair = f"Renders {outcome.left} | {outcome.right}"
    if outcome.op == "undo":
        return f"{pair}: comparison withdrawn."
    return f"{pair}: {'skipped' if outcome.choice == 'skip' else outcome.choice}."


@never_cache
@curator_required
@require_POST
def compare_act(request):
    """One action from compare.js, answered with the pairs to hold next."""
    started = time.perf_counter()
    form, wanted = CompareForm(request.POST), PairRequestForm(request.POST)
    if not (form.is_valid() and wanted.is_valid()):
        return JsonResponse({"error": "not saved", "fields": {**form.errors, **wanted.errors}},
                            status=400)
    outcome = form.apply(curator=request.user, now_ms=now_ms())
    payload = {"saved": {"op": outcome.op, "left": outcome.left, "right": outcome.right,
                         "choice": outcome.choice, "held": outcome.held}}
    payload.update(_pairs_payload(request, wanted.cleaned_data))
    return timed_json(payload, started)


@never_cache
@curator_required
@require_GET
def compare_next(request):
    started = time.perf_counter()
    wanted = PairRequestForm(request.GET)
    if not wanted.is_valid():
        return JsonResponse({"error": "bad request", "fields": wanted.errors}, status=400)
    return timed_json(_pairs_payload(request, wanted.cleaned_data), started)


def _pairs_payload(request, wanted: dict) -> dict:
    want = wanted.get("want")
    batch = pairs_next(curator=request.user,
                       want=conf.grade_prefetch() if want is None else want,
                       have=wanted.get("have") or [])
    return {"entries": [pair_json(e) for e in batch.entries], "exhausted": batch.exhausted}
