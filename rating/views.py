"""The grading page and the background endpoints grading.js talks to. Thin:
parse, call rating.queue / rating.services / rating.selectors, render.

    rating:grade        GET the page; POST one action from its plain forms (no JS)
    rating:act          POST one action, answer JSON with the next renders
    rating:next         GET the next renders as JSON (topping up the browser's queue)
    rating:progress     GET the progress figures, a fragment htmx swaps in after saves
    rating:render_code  GET a render's sketch code, the page's code panel (htmx)
    rating:skips_clear  POST bring skipped renders back into my queue
"""
from __future__ import annotations

import time
from urllib.parse import urlencode

from django.contrib import messages
from django.http import HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_POST

from sketches.models import Render, Sketch

from . import conf, ordering, selectors, services
from .access import curator_required
from .grading_forms import ActionForm, ActionOutcome, QueueRequestForm
from .models import Grade
from .presenters import entry_json, grading_page_json
from .queue import claims_release, queue_next
from .selectors import QueueFilter


def now_ms() -> int:
    return int(time.time() * 1000)


@never_cache
@curator_required
def grade(request):
    try:
        queue_filter = QueueFilter.from_query(request.GET)
    except ValueError as exc:
        return HttpResponseBadRequest(f"Bad filter: {exc}")
    if request.method == "POST":
        return _grade_form_post(request, queue_filter)

    after = _int_or_none(request.GET.get("after"))
    # Claims made under another filter would hold renders this page no longer shows.
    claims_release(curator=request.user, keep=queue_filter)
    batch = queue_next(curator=request.user, queue_filter=queue_filter,
                       want=conf.grade_prefetch(), after=after)
    entries = batch.entries
    show = _int_or_none(request.GET.get("show"))
    entries.sort(key=lambda e: e.render.pk != show)  # the render an undo brought back, first
    progress = selectors.grading_progress(curator=request.user, queue_filter=queue_filter,
                                          after=after)
    undo_steps = selectors.undo_steps_recent(curator=request.user)
    current = entries[0] if entries else None
    page_query = queue_filter.as_query()
    context = {
        "filter": queue_filter,
        "review_after": after,
        "page_query": urlencode(page_query),
        "orders": ordering.orders_available(),
        "origins": Sketch.Origin.choices,
        "grade_values": Grade.Value.choices,
        "current": current,
        "progress": progress,
        "history": selectors.grades_recent(curator=request.user),
        "undo_step": undo_steps[-1] if undo_steps else None,
        "skipped": selectors.skips_count(curator=request.user),
        "shown_at": now_ms(),
        "show_code": request.GET.get("code") == "1",
        "code_query": urlencode({**page_query, "code": "1"}),
        "grading_data": grading_page_json(entries=entries, undo_steps=undo_steps,
                                          queue_filter=queue_filter, batch=batch, after=after,
                                          user=request.user),
    }
    return render(request, "rating/grade.html", context)


def _grade_form_post(request, queue_filter: QueueFilter):
    """The page without JavaScript: apply the action, then show the next render."""
    form = ActionForm(request.POST)
    query = queue_filter.as_query()
    if not form.is_valid():
        messages.error(request, "Not saved: " + "; ".join(
            f"{field}: {' '.join(errors)}" for field, errors in form.errors.items()))
    else:
        outcome = form.apply(curator=request.user, now_ms=now_ms())
        messages.success(request, _saved_message(outcome), extra_tags="saved")
        if outcome.op in ("undo", "unskip"):
            query["show"] = str(outcome.render_id)
        if queue_filter.reviewing:
            # A review goes on past the grade just changed; forms for other renders
            # (history, undo) carry the page's place in the review instead.
            cursor = request.POST.get("after", outcome.grade_id if outcome.op == "grade" else "")
            if cursor:
                query["after"] = str(cursor)
    back = request.POST.get("next", "")  # a grade given on the render page goes back there
    if back and url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()},
                                                require_https=request.is_secure()):
        return redirect(back)
    url = reverse("rating:grade")
    return redirect(f"{url}?{urlencode(query)}" if query else url)


def _saved_message(outcome: ActionOutcome) -> str:
    if outcome.op == "grade":
        change = f" (was {outcome.previous})" if outcome.previous else ""
        return f"Render {outcome.render_id}: {outcome.value}{change}."
    if outcome.op == "undo":
        return (f"Render {outcome.render_id} back to {outcome.value}." if outcome.value
                else f"Grade of render {outcome.render_id} withdrawn.")
    return f"Render {outcome.render_id} {'skipped' if outcome.op == 'skip' else 'back'}."


@never_cache
@curator_required
@require_POST
def act(request):
    """One action from grading.js, answered with the renders to hold next."""
    started = time.perf_counter()
    try:
        queue_filter = QueueFilter.from_query(request.GET)
    except ValueError as exc:
        return JsonResponse({"error": f"bad filter: {exc}"}, status=400)
    form, wanted = ActionForm(request.POST), QueueRequestForm(request.POST)
    if not (form.is_valid() and wanted.is_valid()):
        return JsonResponse({"error": "not saved", "fields": {**form.errors, **wanted.errors}},
                            status=400)
    try:
        outcome = form.apply(curator=request.user, now_ms=now_ms())
    except ValueError as exc:  # a request key reused for another grade
        return JsonResponse({"error": "not saved", "fields": {"key": [str(exc)]}}, status=400)
    payload = {"saved": {"op": outcome.op, "render": outcome.render_id, "value": outcome.value,
                         "previous": outcome.previous, "grade_id": outcome.grade_id,
                         "held": outcome.held}}
    payload.update(_queue_payload(request, queue_filter, wanted.cleaned_data))
    return timed_json(payload, started)


@never_cache
@curator_required
@require_GET
def next_renders(request):
    started = time.perf_counter()
    try:
        queue_filter = QueueFilter.from_query(request.GET)
    except ValueError as exc:
        return JsonResponse({"error": f"bad filter: {exc}"}, status=400)
    wanted = QueueRequestForm(request.GET)
    if not wanted.is_valid():
        return JsonResponse({"error": "bad request", "fields": wanted.errors}, status=400)
    return timed_json(_queue_payload(request, queue_filter, wanted.cleaned_data), started)


def _queue_payload(request, queue_filter: QueueFilter, wanted: dict) -> dict:
    want = wanted.get("want")
    batch = queue_next(curator=request.user, queue_filter=queue_filter,
                       want=conf.grade_prefetch() if want is None else want,
                       have=wanted.get("have") or [], after=wanted.get("after"))
    return {"entries": [entry_json(e) for e in batch.entries], "exhausted": batch.exhausted}


def timed_json(payload: dict, started: float) -> JsonResponse:
    response = JsonResponse(payload)
    # The browser's devtools and the benchmark read the server's own time here.
    response["Server-Timing"] = f"app;dur={(time.perf_counter() - started) * 1000:.1f}"
    return response


@never_cache
@curator_required
@require_GET
def progress(request):
    """The progress figures alone; the page refreshes them with htmx as grades
    are saved (kept out of rating:act, which must stay quick)."""
    try:
        queue_filter = QueueFilter.from_query(request.GET)
    except ValueError as exc:
        return HttpResponseBadRequest(f"Bad filter: {exc}")
    after = _int_or_none(request.GET.get("after"))
    context = {"progress": selectors.grading_progress(curator=request.user,
                                                      queue_filter=queue_filter, after=after),
               "filter": queue_filter, "page_query": urlencode(queue_filter.as_query())}
    return render(request, "rating/grade.html#progress", context)


@curator_required
@require_GET
def render_code(request, pk: int):
    obj = get_object_or_404(Render.objects.select_related("sketch"), pk=pk)
    return render(request, "rating/grade.html#code-panel", {"code_render": obj})


@curator_required
@require_POST
def skips_clear(request):
    count = services.skips_clear(curator=request.user)
    messages.success(request, f"{count} skipped render{'s' if count != 1 else ''} back in "
                              "your queue.", extra_tags="saved")
    query = request.POST.get("query", "")
    return redirect(f"{reverse('rating:grade')}?{query}" if query else reverse("rating:grade"))


def _int_or_none(raw: str | None) -> int | None:
    try:
        return int(raw) if raw else None
    except ValueError:
        return None
