from django.apps import AppConfig


class JobsConfig(AppConfig):
    """Installed so Celery finds jobs.tasks; its only model is abstract
    (models.Job), so it has no tables. The kinds register themselves from
    their own apps (registry.py)."""

    name = "jobs"
    verbose_name = "Jobs"
