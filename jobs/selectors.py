"""Reads about a job (jobs.models.Job) that its worker asks as it goes."""
from __future__ import annotations

from .models import Job


def job_cancel_requested(*, model: type[Job], pk: int) -> bool:
    """Whether someone asked the job to stop: read from the database, not the
    worker's copy of the row, which predates the request."""
    return model.objects.filter(pk=pk, cancel_requested=True).exists()
