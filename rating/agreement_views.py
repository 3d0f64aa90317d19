"""The agreement page: how far curators agree, pair by pair, each curator
against the others, and the renders they disagree on most, linked for review."""
from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from .access import staff_required
from .agreement_report import LABELS, agreement_report
from .curator_stats import SESSION_GAP, curator_stats


@require_GET
@staff_required(reason="Only staff can see agreement between curators: each curator grades "
                         "without seeing the others' grades.")
def agreement(request):
    return render(request, "rating/agreement.html",
                  {"report": agreement_report(), "labels": LABELS, "curator_stats": curator_stats(),
                   "session_gap_minutes": int(SESSION_GAP.total_seconds() // 60)})
