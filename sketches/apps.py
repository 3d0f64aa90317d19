from django.apps import AppConfig


class SketchesConfig(AppConfig):
    name = "sketches"
    verbose_name = "Sketches and renders"
