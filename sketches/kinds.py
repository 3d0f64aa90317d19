"""The sketches app's kind of job (jobs.registry), registered when the app is
ready (apps.py)."""
from jobs.registry import JobKind, job_kind_register

from .importing.errors import ImportInputError
from .models import ImportJob

# An import needs no browser: the default queue, not the render workers'.
IMPORT = job_kind_register(JobKind(
    name="import", label="Import", model=ImportJob, queue="default",
    url_name="sketches:import_job", body="sketches.importing.jobs.import_job_body",
    claim={"done": 0}, failed_as_is=(ImportInputError,)))
