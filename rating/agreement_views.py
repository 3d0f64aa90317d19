"""The agreement page: how far curators agree, pair by pair, each curator
against the others, the renders they disagree on most, linked for review, and
how often two curators comparing the same pair of renders chose alike."""
from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from .access import staff_required
from .agreement_report import LABELS, agreement_report
from .comparison_agreement import comparison_agreement
from .curator_stats import MIN_RATE_SPAN, SESSION_GAP, curator_stats


@require_GET
@staff_required(reason="Only staff can see agreement between curators: each curator grades "
                         "without seeing the others' grades.")
def agreement(request):
    return render(request, "rating/agreement.html",
                  {"report": agreement_report(), "labels": LABELS, "curator_stats": curator_stats(),
                   "comparisons": comparison_agreement(),
                   "session_gap_minutes": int(SESSION_GAP.total_seconds() // 60),
                   "min_rate_minutes": int(MIN_RATE_SPAN.total_seconds() // 60)})
