"""The calibration launch page (staff only): choose a snapshot, a policy and
a judge, queue the job, and watch it on the snapshot's page (panel.py); its
Cancel; the panel alone, which refreshes itself while a calibration is live;
and the panel's derive (staff only)."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from pool.band import CalibrationError
from pool.models import PoolSnapshot
from pool.services import PoolError
from pool.views import form_errors, snapshot_page
from sketches.access import curator_required, staff_required

from ..models import Calibration
from .forms import CalibrationForm, DeriveForm
from .panel import calibration_panel
from .services import (
    CalibrationLaunchError,
    calibration_cancel,
    calibration_launch,
    calibration_snapshot_derive,
)


@require_http_methods(["GET", "POST"])
@staff_required(reason="Only staff can calibrate a snapshot.")
def calibrate(request):
    form = CalibrationForm(request.POST or None,
                           initial={"snapshot": request.GET.get("snapshot")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            calibration = calibration_launch(
                snapshot=data["snapshot"], run=data["run"],
                base_model=data["base_model"].strip(), judge=data["judge"],
                prompt_set=data["prompt_set"], system_prompt=data["system_prompt"],
                samples_per_prompt=data["samples_per_prompt"], per_member=data["per_member"],
                seed=data["seed"], user=request.user)
        except CalibrationLaunchError as error:
            form.add_error(None, str(error))
        else:
            return redirect(reverse("pool:snapshot", args=[calibration.snapshot_id])
                            + "#calibrations")
    status = 400 if request.method == "POST" else 200
    return render(request, "training/calibrate.html", {"form": form}, status=status)


@require_POST
@staff_required(reason="Only staff can cancel a calibration.")
def calibration_stop(request, pk: int):
    calibration = get_object_or_404(Calibration, pk=pk)
    messages.info(request, calibration_cancel(calibration=calibration).message)
    return redirect("pool:snapshot", pk=calibration.snapshot_id)


@require_GET
@curator_required
def snapshot_calibrations(request, pk: int):
    """The panel alone (its refresh while a calibration is live); without
    htmx, the snapshot's page, where the panel is."""
    snapshot = get_object_or_404(PoolSnapshot, pk=pk)
    if not request.htmx:
        query = f"?{request.GET.urlencode()}" if request.GET else ""
        return redirect(reverse("pool:snapshot", args=[pk]) + query + "#calibrations")
    panel = calibration_panel(request, snapshot)
    return render(request, panel.template, {"panel": panel})


@require_POST
@staff_required(reason="Only staff can freeze a pool snapshot.")
def snapshot_derive(request, pk: int):
    """Freeze the members of a calibration's band as a new snapshot; refused,
    the snapshot's page again with the form as typed and the reason."""
    snapshot = get_object_or_404(PoolSnapshot, pk=pk)
    form = DeriveForm(request.POST)
    if not form.is_valid():
        messages.error(request, form_errors(form))
        return snapshot_page(request, snapshot, status=400)
    data = form.cleaned_data
    calibration = get_object_or_404(Calibration, snapshot=snapshot, pk=data["calibration"])
    try:
        derived = calibration_snapshot_derive(
            calibration=calibration, low=data["low"], high=data["high"], name=data["name"],
            note=data["note"], user=request.user)
    except (CalibrationError, PoolError) as exc:
        messages.error(request, str(exc))
        return snapshot_page(request, snapshot, status=400)
    messages.success(request, f"Snapshot {derived.name!r} frozen with the "
                              f"{derived.counts.get('total', 0)} members of {snapshot.name!r} "
                              f"whose win rate is from {data['low']:g} to {data['high']:g}.")
    return redirect("pool:snapshot", pk=derived.pk)
