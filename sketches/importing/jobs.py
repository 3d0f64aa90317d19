"""Imports started from the upload page: an ImportJob row per upload, run by
the jobs runner (the "import" kind, registered in sketches.apps) on the
default queue, with progress the page polls."""
from __future__ import annotations

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from files.stored import local_copy
from jobs.dispatch import job_enqueue
from jobs.runner import Ending, Running

from ..brush_api import AUTO_BRUSH, brush_choice_check
from ..models import ImportJob
from .report import ItemResult
from .services import import_path


@transaction.atomic
def import_job_create(*, upload: UploadedFile, kind: str, uploaded_by,
                      brush: str = AUTO_BRUSH) -> ImportJob:
    """Store the upload in the default storage under imports/ with a generated name and
    queue its import once the row is committed. `kind` is "zip" or "jsonl"; `brush`
    the p5.brush its sketches render with (services.import_path)."""
    job = ImportJob(uploaded_by=uploaded_by, original_filename=(upload.name or "upload")[:255],
                    brush=brush_choice_check(brush))
    job.archive.save(f"upload.{kind}", upload, save=False)  # upload_to picks the real name
    job.save()
    job_enqueue(job=job)
    return job


def import_job_body(running: Running) -> Ending:
    """The import kind's body (jobs.runner): import the archive, writing the
    live counts as it goes; bad input (ImportInputError) fails with its
    message alone."""
    job = ImportJob.objects.get(pk=running.pk)
    live = {"imported": 0, "skipped": 0, "error": 0}

    def progress(done: int, total: int, result: ItemResult) -> None:
        live[result.outcome] += 1
        running.lease.write(force=done == total, done=done, total=total, report={"live": live})

    with local_copy(job.archive.name, job.archive.storage) as archive:
        report = import_path(archive, source_name=job.original_filename, on_progress=progress,
                             brush=job.brush)
    return Ending(fields={"report": report.to_dict(), "done": report.done,
                          "total": report.total})


def import_jobs_recent(limit: int = 20):
    return ImportJob.objects.select_related("uploaded_by").order_by("-created")[:limit]
