"""The calibration launch page (staff only): choose a snapshot, a policy and
a judge, queue the job, and watch it on the snapshot's page; and its Cancel."""
from __future__ import annotations

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from sketches.access import staff_required

from ..models import Calibration
from .forms import CalibrationForm
from .services import CalibrationLaunchError, calibration_cancel, calibration_launch


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
