from django.apps import AppConfig


class PoolConfig(AppConfig):
    name = "pool"
    verbose_name = "Reference pool"

    def ready(self):
        # The reward model's admin lives beside its code (pool/reward/admin.py);
        # admin autodiscovery only imports pool/admin.py.
        from .reward import admin as _reward_admin  # noqa: F401
