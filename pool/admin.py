"""The pool in the admin. Rules are versioned (adding one puts it in force;
existing versions are read-only); pins are edited freely; snapshots and their
members are read-only, as they are everywhere."""
from django.contrib import admin

from .models import PoolMember, PoolPin, PoolRule, PoolSnapshot
from .reward import admin as _reward_admin  # noqa: F401 - its admin lives beside its code
from .rules import pool_rule_current


@admin.register(PoolRule)
class PoolRuleAdmin(admin.ModelAdmin):
    list_display = ["pk", "love_share", "okay_tier", "min_grades", "min_per_subject", "note",
                    "created_by", "created"]
    # Nullable foreign keys are not joined by default: one query a row without this.
    list_select_related = ["created_by"]
    fields = ["love_share", "okay_tier", "min_grades", "min_per_subject", "note"]

    def has_change_permission(self, request, obj=None):
        return False  # a new rule is a new row: "Add pool rule"

    def has_delete_permission(self, request, obj=None):
        return False  # snapshots name the rule they were frozen under

    def get_changeform_initial_data(self, request):
        """Start the new version from the rule in force."""
        return pool_rule_current().as_dict()

    def save_model(self, request, obj, form, change):
        obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(PoolPin)
class PoolPinAdmin(admin.ModelAdmin):
    list_display = ["render", "action", "tier", "reason", "created_by", "created"]
    list_select_related = ["render", "created_by"]
    list_filter = ["action", "tier"]
    search_fields = ["reason", "render__sketch__prompt"]
    raw_id_fields = ["render"]
    readonly_fields = ["created_by", "created"]

    def save_model(self, request, obj, form, change):
        obj.created_by = request.user
        super().save_model(request, obj, form, change)


class PoolMemberInline(admin.TabularInline):
    model = PoolMember
    fields = ["render", "tier", "subject", "prompt", "seed", "png", "pinned"]
    readonly_fields = fields
    extra = 0
    can_delete = False
    show_change_link = False

    def has_add_permission(self, request, obj=None):
        return False

    def has_change_permission(self, request, obj=None):
        return False


@admin.register(PoolSnapshot)
class PoolSnapshotAdmin(admin.ModelAdmin):
    """Read-only: freeze snapshots on the curation page (pool.services.snapshot_freeze)."""

    list_display = ["name", "created", "created_by", "note"]
    list_select_related = ["created_by"]
    search_fields = ["name", "note"]
    fields = ["name", "note", "rule", "counts", "created_by", "created"]
    readonly_fields = fields
    inlines = [PoolMemberInline]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False
