"""Grades, their history, and the queue's claims and skips in the admin.
Grades are changed through the grading page (which keeps the history); here
they are read, filtered, and deleted when they must be. The grading settings
are one row, changed here and saved through the service (which drops the
cached copy the queue reads)."""
from django.contrib import admin
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone

from .models import Claim, Comparison, Grade, GradeChange, GradingSettings, Skip
from .services import grading_settings_update


class GradeChangeInline(admin.TabularInline):
    model = GradeChange
    extra = 0
    fields = ("changed", "previous", "value", "changed_by")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Grade)
class GradeAdmin(admin.ModelAdmin):
    list_display = ("id", "render", "curator", "value", "shown_ms", "source", "updated")
    list_filter = ("value", "source", "curator")
    search_fields = ("render__sketch__prompt", "curator__username")
    raw_id_fields = ("render",)
    readonly_fields = ("render", "curator", "value", "shown_ms", "source", "created", "updated")
    date_hierarchy = "created"
    inlines = [GradeChangeInline]

    def has_add_permission(self, request):
        return False


@admin.register(Comparison)
class ComparisonAdmin(admin.ModelAdmin):
    """Read and delete only: comparisons are made on the comparing page."""

    list_display = ("id", "curator", "left", "right", "choice", "shown_ms", "source", "created")
    list_filter = ("choice", "source", "curator")
    search_fields = ("prompt", "curator__username")
    raw_id_fields = ("left", "right")
    readonly_fields = ("curator", "left", "right", "prompt", "choice", "shown_ms", "source",
                       "created")
    date_hierarchy = "created"

    def has_add_permission(self, request):
        return False


@admin.register(Claim)
class ClaimAdmin(admin.ModelAdmin):
    list_display = ("render", "curator", "expires", "live")
    list_filter = ("curator",)
    raw_id_fields = ("render",)
    actions = ["release"]

    @admin.display(boolean=True)
    def live(self, obj: Claim) -> bool:
        return obj.expires > timezone.now()

    @admin.action(description="Release the selected claims")
    def release(self, request, queryset):
        deleted, _ = queryset.delete()
        self.message_user(request, f"Released {deleted} claims.")


@admin.register(Skip)
class SkipAdmin(admin.ModelAdmin):
    list_display = ("render", "curator", "created")
    list_filter = ("curator",)
    raw_id_fields = ("render",)


@admin.register(GradingSettings)
class GradingSettingsAdmin(admin.ModelAdmin):
    fields = ("overlap", "compare_overlap", "guidelines", "updated", "updated_by")
    readonly_fields = ("updated", "updated_by")

    def has_add_permission(self, request):
        return not GradingSettings.objects.exists()

    def has_delete_permission(self, request, obj=None):
        return False

    def changelist_view(self, request, extra_context=None):
        """Straight to the one row (or to making it): a list of one is a detour."""
        row = GradingSettings.objects.filter(pk=GradingSettings.SINGLETON_PK).first()
        if row is None:
            return redirect(reverse("admin:rating_gradingsettings_add"))
        return redirect(reverse("admin:rating_gradingsettings_change", args=[row.pk]))

    def save_model(self, request, obj, form, change):
        saved = grading_settings_update(overlap=obj.overlap, guidelines=obj.guidelines,
                                        updated_by=request.user,
                                        compare_overlap=obj.compare_overlap)
        obj.pk, obj.updated, obj.updated_by = saved.pk, saved.updated, saved.updated_by
