from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from .models import ImportJob, Render, Sketch


class RenderInline(admin.TabularInline):
    model = Render
    extra = 0
    fields = ("seed", "status", "violations", "paint_fraction", "elapsed_ms")
    readonly_fields = fields
    show_change_link = True


@admin.register(Sketch)
class SketchAdmin(admin.ModelAdmin):
    list_display = ("id", "prompt", "origin", "created")
    list_filter = ("origin",)
    search_fields = ("prompt", "code")
    raw_id_fields = ("parent",)
    inlines = [RenderInline]


@admin.register(Render)
class RenderAdmin(admin.ModelAdmin):
    list_display = ("id", "thumbnail", "sketch", "seed", "status", "paint_fraction",
                    "brush_calls", "elapsed_ms")
    list_filter = ("status", "renderer_version")
    raw_id_fields = ("sketch",)
    readonly_fields = [f.name for f in Render._meta.fields] + ["thumbnail"]

    @admin.display(description="image")
    def thumbnail(self, render: Render):
        if not render.png:
            return "-"
        return format_html('<img src="{}" width="96" height="96" style="object-fit:contain">',
                           reverse("sketches:render_png", args=[render.pk]))


@admin.register(ImportJob)
class ImportJobAdmin(admin.ModelAdmin):
    """Read-only: jobs are made by the upload page (/sketches/import/)."""
    list_display = ("id", "original_filename", "uploaded_by", "status", "done", "total",
                    "created")
    # Nullable foreign keys are not joined by default: one query a row without this.
    list_select_related = ("uploaded_by",)
    list_filter = ("status",)
    readonly_fields = [f.name for f in ImportJob._meta.fields]

    def has_add_permission(self, request):
        return False
