"""Imports started from the upload page: an ImportJob row per upload, run by
a Celery task on the default queue, with progress the page polls."""
from __future__ import annotations

import logging

from django.core.files.uploadedfile import UploadedFile
from django.db import transaction

from files.stored import local_copy
from jobs.services import ProgressWriter, job_claim, job_finish

from ..models import ImportJob
from .errors import ImportInputError
from .report import ItemResult
from .services import import_path

logger = logging.getLogger(__name__)


@transaction.atomic
def import_job_create(*, upload: UploadedFile, kind: str, uploaded_by) -> ImportJob:
    """Store the upload in the default storage under imports/ with a generated name and
    queue its import once the row is committed. `kind` is "zip" or "jsonl"."""
    from ..tasks import import_job_task

    job = ImportJob(uploaded_by=uploaded_by, original_filename=(upload.name or "upload")[:255])
    job.archive.save(f"upload.{kind}", upload, save=False)  # upload_to picks the real name
    job.save()
    transaction.on_commit(lambda: import_job_task.delay(job.pk))
    return job


def import_job_run(*, job_id: int) -> ImportJob:
    """Run the import of one job. A job already finished is left alone; one
    left running by a worker that died is run again, which is safe because
    the import skips what it already stored."""
    if not job_claim(model=ImportJob, pk=job_id, done=0):
        return ImportJob.objects.get(pk=job_id)
    job = ImportJob.objects.get(pk=job_id)
    live = {"imported": 0, "skipped": 0, "error": 0}
    writer = ProgressWriter(model=ImportJob, pk=job_id)

    def progress(done: int, total: int, result: ItemResult) -> None:
        live[result.outcome] += 1
        writer.write(force=done == total, done=done, total=total, report={"live": live})

    try:
        with local_copy(job.archive.name, job.archive.storage) as archive:
            report = import_path(archive, source_name=job.original_filename,
                                 on_progress=progress)
    except ImportInputError as exc:
        return _finish(job_id, status=ImportJob.Status.FAILED, error=str(exc))
    except Exception as exc:
        logger.exception("import job %s failed", job_id)
        return _finish(job_id, status=ImportJob.Status.FAILED,
                       error=f"internal error: {type(exc).__name__}: {exc}")
    return _finish(job_id, status=ImportJob.Status.DONE, report=report.to_dict(),
                   done=report.done, total=report.total)


def import_jobs_recent(limit: int = 20):
    return ImportJob.objects.select_related("uploaded_by").order_by("-created")[:limit]


def _finish(job_id: int, **fields) -> ImportJob:
    job_finish(model=ImportJob, pk=job_id, **fields)
    return ImportJob.objects.get(pk=job_id)
