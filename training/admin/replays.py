"""Replays in the admin: listed and cancelled here; they are started and read
in the lab (/training/lab/), where the renders are chosen."""
from __future__ import annotations

from django.contrib import admin, messages
from django.urls import reverse
from django.utils.html import format_html

from ..lab.services import replay_cancel
from ..models import Replay


@admin.register(Replay)
class ReplayAdmin(admin.ModelAdmin):
    list_display = ("__str__", "rubric", "compare_rubric", "status", "renders", "lab_link",
                    "created_by", "created")
    # compare_rubric and created_by are nullable: joined, not fetched row by row.
    list_select_related = ("rubric", "compare_rubric", "created_by")
    actions = ["cancel_selected"]
    fields = ("name", "lab_link", "status", "rubric", "compare_rubric", "judge", "scorer",
              "snapshot", "selection", "progress", "notices", "error", "created_by", "created",
              "started", "finished")
    readonly_fields = fields

    def has_add_permission(self, request) -> bool:
        return False  # replays start in the lab, where the renders are chosen

    @admin.display(description="renders")
    def renders(self, replay: Replay):
        return (replay.progress or {}).get("total", "-")

    @admin.display(description="lab page")
    def lab_link(self, replay: Replay) -> str:
        return format_html('<a href="{}">open in the lab</a>',
                           reverse("training:replay", args=[replay.pk]))

    @admin.action(description="Cancel the selected replays")
    def cancel_selected(self, request, queryset):
        for replay in queryset:
            self.message_user(request, replay_cancel(replay=replay).message, messages.INFO)
