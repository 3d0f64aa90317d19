"""External runs in the admin: set one up like a run (rubric, snapshot,
judges, seed, p5.brush), then open it to serve rewards, or close it. The
services decide; the actions ask them and say what they answered."""
from __future__ import annotations

from django.contrib import admin, messages

from ..external.services import ExternalError, external_run_close, external_run_open
from ..models import ExternalRun


@admin.register(ExternalRun)
class ExternalRunAdmin(admin.ModelAdmin):
    list_display = ("name", "status", "rubric", "brush", "opened", "created")
    list_filter = ("status",)
    readonly_fields = ("status", "signals", "dropped_signals", "yardstick_plan", "opened",
                       "created_by", "created")
    actions = ["open_runs", "close_runs"]

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    @admin.action(description="Open: freeze the signals and serve rewards")
    def open_runs(self, request, queryset):
        for run in queryset:
            try:
                external_run_open(run=run)
            except ExternalError as error:
                self.message_user(request, f"{error.detail}: {'; '.join(error.problems)}",
                                  messages.ERROR)
            else:
                self.message_user(request, f"{run} is open.", messages.SUCCESS)

    @admin.action(description="Close: serve no more rewards")
    def close_runs(self, request, queryset):
        for run in queryset:
            external_run_close(run=run)
        self.message_user(request, f"Closed {queryset.count()} external run(s).", messages.INFO)
