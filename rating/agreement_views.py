"""The agreement page: how far curators agree, pair by pair, and the renders
they disagree on most, linked for review."""
from __future__ import annotations

from django.shortcuts import render
from django.views.decorators.http import require_GET

from .access import staff_required
from .agreement_report import LABELS, agreement_report


@require_GET
@staff_required(reason="Only staff can see agreement between curators: each curator grades "
                         "without seeing the others' grades.")
def agreement(request):
    return render(request, "rating/agreement.html",
                  {"report": agreement_report(), "labels": LABELS})
