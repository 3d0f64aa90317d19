"""Rubrics and judges in the admin. Rubrics are edited here ("Save as new"
makes the next version); judges get their agreement with the curators
measured here."""
from __future__ import annotations

import json

from django.contrib import admin, messages
from django.utils.html import format_html

from ..models import Judge, Rubric
from ..reward.rubric import signal_specs
from ..tasks import judge_agreement_task


@admin.register(Rubric)
class RubricAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "signal_summary", "preset", "created")
    list_filter = ("preset",)
    search_fields = ("name", "description")
    readonly_fields = ("version", "preset", "created_by", "created")
    fields = ("name", "version", "description", "signals", "preset", "created_by", "created")
    # Editing a rubric in use would blur what it meant; "Save as new" keeps
    # the old version and gives the edit the next version number.
    save_as = True

    @admin.display(description="signals (weight)")
    def signal_summary(self, rubric: Rubric) -> str:
        try:
            specs = signal_specs(rubric.signals)
        except ValueError as error:
            return f"invalid: {error}"
        return ", ".join(f"{spec.name} {spec.weight:g}" for spec in specs)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.preset = False
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(Judge)
class JudgeAdmin(admin.ModelAdmin):
    list_display = ("name", "backend", "model", "pairwise_accuracy", "preference_rho",
                    "agreement_measured")
    list_filter = ("backend",)
    readonly_fields = ("agreement_text", "agreement_measured", "created")
    exclude = ("agreement",)
    actions = ["measure_agreement"]

    @admin.display(description="pairwise accuracy")
    def pairwise_accuracy(self, judge: Judge) -> str:
        value = (judge.agreement or {}).get("pairwise_accuracy")
        return "-" if value is None else f"{value:.3f}"

    @admin.display(description="preference ρ")
    def preference_rho(self, judge: Judge) -> str:
        value = (judge.agreement or {}).get("preference_spearman")
        return "-" if value is None else f"{value:.3f}"

    @admin.display(description="agreement with curators")
    def agreement_text(self, judge: Judge) -> str:
        if not judge.agreement:
            return "not measured yet (action: Measure agreement)"
        return format_html("<pre>{}</pre>", json.dumps(judge.agreement, indent=2))

    @admin.action(description="Measure agreement with the curators (on the train worker)")
    def measure_agreement(self, request, queryset):
        for judge in queryset:
            judge_agreement_task.delay(judge.pk)
        self.message_user(request, f"Queued {queryset.count()} measurement(s).", messages.INFO)
