"""python manage.py ensure_admin: make sure a staff superuser exists.

The password comes from PAINTRL_ADMIN_PASSWORD, or is generated and printed
once (it is not stored anywhere else). Lives in `sketches`, the app every
other app depends on, since the project package itself is not an app."""
import os
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the admin account if it does not exist yet."

    def handle(self, *args, **options):
        username = os.environ.get("PAINTRL_ADMIN_USER", "admin")
        User = get_user_model()
        if User.objects.filter(username=username).exists():
            self.stdout.write(f"admin account '{username}' already exists")
            return
        password = os.environ.get("PAINTRL_ADMIN_PASSWORD") or secrets.token_urlsafe(12)
        User.objects.create_superuser(username=username, email="", password=password)
        shown = "(from PAINTRL_ADMIN_PASSWORD)" if "PAINTRL_ADMIN_PASSWORD" in os.environ \
            else password
        self.stdout.write(self.style.SUCCESS(
            f"created admin account '{username}', password: {shown} (shown once)"))
