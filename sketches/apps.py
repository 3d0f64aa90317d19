from django.apps import AppConfig


class SketchesConfig(AppConfig):
    name = "sketches"
    verbose_name = "Sketches and renders"

    def ready(self):
        # Inside ready(): the kinds name models, which load only once every
        # app is (Django's rule for AppConfig.ready).
        from . import kinds  # noqa: F401
