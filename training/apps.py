from django.apps import AppConfig


class TrainingConfig(AppConfig):
    name = "training"
    verbose_name = "Training"

    def ready(self):
        # Inside ready(): the kinds name models, which load only once every
        # app is (Django's rule for AppConfig.ready).
        from . import kinds  # noqa: F401
