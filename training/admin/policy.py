"""Policy builds in the admin: the read-only record of each build (the jobs
page links here); `manage.py bootstrap_policy` starts one."""
from __future__ import annotations

import json

from django.contrib import admin
from django.utils.html import format_html

from ..models import PolicyBuild


@admin.register(PolicyBuild)
class PolicyBuildAdmin(admin.ModelAdmin):
    list_display = ("__str__", "status", "created", "finished")
    list_filter = ("status",)
    fields = ("out", "status", "options_text", "progress_text", "record_text", "error",
              "worker", "heartbeat", "created_by", "created", "started", "finished")
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False  # bootstrap_policy starts a build (it checks the options)

    def has_change_permission(self, request, obj=None) -> bool:
        return False  # the record of a build

    @admin.display(description="options")
    def options_text(self, obj):
        return _json(obj.options)

    @admin.display(description="progress")
    def progress_text(self, obj):
        return _json(obj.progress)

    @admin.display(description="what it measured")
    def record_text(self, obj):
        return _json(obj.record)


def _json(value) -> str:
    return format_html("<pre>{}</pre>", json.dumps(value, indent=2, sort_keys=True))
