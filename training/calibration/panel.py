"""A snapshot's calibrations on its page (settings.PAINTRL_SNAPSHOT_PANELS,
pool.snapshot_panels): the list, the chosen finished one's counts against
the band, staff's form to freeze the members in the band, and each member's
win rate on its tile."""
from __future__ import annotations

from pool.band import BAND
from pool.models import PoolSnapshot
from pool.snapshot_panels import MemberBadge, SnapshotPanel

from .forms import DeriveForm
from .selectors import calibration_view, snapshot_calibrations

TEMPLATE = "training/calibration_panel.html"


def calibration_panel(request, snapshot: PoolSnapshot) -> SnapshotPanel:
    """The panel for `snapshot`: the calibration chosen by ?calibration=, or
    its newest finished one. A refused derive's POST shows its form bound,
    with what was typed."""
    chosen = request.GET.get("calibration")
    view = calibration_view(
        snapshot, calibration_id=int(chosen) if chosen and chosen.isdigit() else None)
    calibrations = snapshot_calibrations(snapshot)
    form = DeriveForm(request.POST) if request.method == "POST" else DeriveForm(initial={
        "low": BAND[0], "high": BAND[1], "calibration": view.calibration.pk if view else None})
    badges = {}
    if view is not None:
        for member, rate in view.rates.items():
            text = "no answer" if rate.win_rate is None else f"beaten {rate.win_rate:.2f}"
            badges[member] = MemberBadge(
                text, title=f"{rate.answered} of {rate.asked} comparisons answered",
                marked=member in view.kept)
    return SnapshotPanel(TEMPLATE, {
        "snapshot": snapshot, "calibrations": calibrations, "calibrated": view,
        "live": any(not c.is_finished for c in calibrations), "derive_form": form},
        badges=badges)
