from django.apps import AppConfig
from django.db.models.signals import post_migrate


class SketchesConfig(AppConfig):
    name = "sketches"
    verbose_name = "Sketches and renders"

    def ready(self):
        # Inside ready(): the kinds and the access rules name models, which load
        # only once every app is (Django's rule for AppConfig.ready).
        from . import kinds  # noqa: F401
        from .access import curator_group_ensure

        # After every migrate (and a test's flush): the role the access checks name exists.
        post_migrate.connect(curator_group_ensure, sender=self,
                             dispatch_uid="sketches.curator_group_ensure")
