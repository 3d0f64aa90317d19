"""Reads of a snapshot's calibrations, for its page's panel (panel.py):
the list, newest first, and one finished calibration's win rates against
the band."""
from __future__ import annotations

from dataclasses import dataclass

from jobs.models import JobStatus
from pool.band import BAND, RatesSummary, in_band, rates_summary
from pool.models import PoolSnapshot

from ..models import Calibration, MemberWinRate


@dataclass(frozen=True)
class CalibrationView:
    """One calibration of a snapshot as its page shows it: each member's win
    rate, which members are in the band, and how many fall below, in and above it."""

    calibration: Calibration
    rates: dict[int, MemberWinRate]  # by member id
    band: tuple[float, float]
    kept: frozenset[int]  # the members in the band
    summary: RatesSummary


def snapshot_calibrations(snapshot: PoolSnapshot, limit: int = 20) -> list[Calibration]:
    """The snapshot's calibrations, newest first: standalone jobs and runs' re-calibrations."""
    return list(Calibration.objects.filter(snapshot=snapshot).select_related("created_by")
                .order_by("-created", "-pk")[:limit])


def calibration_view(snapshot: PoolSnapshot, *, calibration_id: int | None = None,
                     band: tuple[float, float] = BAND) -> CalibrationView | None:
    """The calibration `calibration_id` of `snapshot`, or its newest finished
    one; None when it has none finished."""
    done = Calibration.objects.filter(snapshot=snapshot, status=JobStatus.DONE)
    if calibration_id is not None:
        done = done.filter(pk=calibration_id)
    calibration = done.order_by("-created", "-pk").first()
    if calibration is None:
        return None
    rates = {r.member_id: r for r in calibration.win_rates.all()}
    return CalibrationView(
        calibration=calibration, rates=rates, band=band,
        kept=frozenset(m for m, r in rates.items() if in_band(r.win_rate, *band)),
        summary=rates_summary(rates.values(), *band))
