from django.apps import AppConfig


class PoolConfig(AppConfig):
    name = "pool"
    verbose_name = "Reference pool"

    def ready(self):
        # Inside ready(): the kinds name models, which load only once every
        # app is (Django's rule for AppConfig.ready).
        from . import kinds  # noqa: F401
