"""Training runs in the admin: a new run starts from the presets and is edited
while a draft; a launched run's page is the read-only record of what ran. The
list shows each run's status, progress and last reward. Launch, cancel, resume
and clone are in run_verbs."""
from __future__ import annotations

import json

from django.contrib import admin
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html

from ..models import TrainingRun
from ..runs import presenters as run_presenters
from ..runs import selectors as run_selectors
from ..runs.config import SECTIONS
from ..runs.probe.plan import probe_initial
from .run_verbs import RunVerbsMixin

Status = TrainingRun.Status
RUN_SETTINGS = (
    ("What", {"fields": ("name", "base_model", "prompt_set", "system_prompt")}),
    ("Reward", {"fields": ("rubric", "snapshot", "judge", "scorer", "drop_unanswerable",
                           "yardstick", "probe_every")}),
    ("References that still teach", {"fields": ("recalibrate_every", "calibration_band_low",
                                                "calibration_band_high")}),
    # RunConfig's fields, a fieldset a section (runs.config.SECTIONS).
    *((title, {"fields": names}) for title, names in SECTIONS),
)
RUN_STATE = ("run_page", "status", "progress_summary", "cancel_requested", "checkpoint_step",
             "heartbeat", "worker", "error", "dropped_text", "launched_config_text", "parent",
             "created_by", "created", "started", "finished")


@admin.register(TrainingRun)
class TrainingRunAdmin(RunVerbsMixin, admin.ModelAdmin):
    list_display = ("name", "status_progress", "step_of_max", "last_reward", "rubric",
                    "created_by", "created")
    list_filter = ("status", "rubric", "device", "lora")
    list_select_related = ("rubric", "created_by")
    search_fields = ("name",)
    change_form_template = "admin/training/trainingrun/change_form.html"
    actions = [*RunVerbsMixin.actions, "compare_selected"]

    @admin.action(description="Compare the selected runs (curves on one chart)")
    def compare_selected(self, request, queryset):
        ids = "&".join(f"run={pk}" for pk in queryset.order_by("pk").values_list("pk", flat=True))
        return redirect(f"{reverse('training:runs_compare')}?{ids}")
    readonly_fields = RUN_STATE

    def get_queryset(self, request):
        return run_selectors.runs_with_last_step(super().get_queryset(request))

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return RUN_SETTINGS
        return (*RUN_SETTINGS, ("State", {"fields": RUN_STATE}))

    def get_changeform_initial_data(self, request):
        defaults = run_selectors.run_defaults()
        return {**defaults, **probe_initial(defaults),
                **super().get_changeform_initial_data(request)}

    def has_change_permission(self, request, obj=None) -> bool:
        # A launched run is the record of what ran: its page is read-only (clone to change).
        if obj is not None and obj.status != Status.DRAFT:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        # A worker is writing a live run's steps: cancel it first.
        if obj is not None and obj.status in (Status.QUEUED, Status.RUNNING):
            return False
        return super().has_delete_permission(request, obj)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    # --- columns --------------------------------------------------------
    @admin.display(description="status", ordering="status")
    def status_progress(self, run: TrainingRun) -> str:
        if run.status == Status.DRAFT:
            return run.get_status_display()
        state = run_presenters.run_progress(run)
        return format_html('{} <progress max="100" value="{}"></progress> {}%',
                           run.get_status_display(), state["percent"], state["percent"])

    @admin.display(description="step")
    def step_of_max(self, run: TrainingRun) -> str:
        state = run_presenters.run_progress(run)
        return f"{state['step']}/{state['max_steps']}"

    @admin.display(description="reward, last step", ordering="last_reward")
    def last_reward(self, run: TrainingRun) -> str:
        value = getattr(run, "last_reward", None)
        return "-" if value is None else f"{value:.3f}"

    @admin.display(description="run page")
    def run_page(self, run: TrainingRun) -> str:
        return format_html('<a href="{}">open the run page</a>',
                           reverse("training:run", args=[run.pk]))

    @admin.display(description="progress")
    def progress_summary(self, run: TrainingRun) -> str:
        state = run_presenters.run_progress(run)
        eta = f", about {state['eta']} left" if state["eta"] else ""
        return format_html('<progress max="{}" value="{}"></progress> step {} of {}{}',
                           state["max_steps"], state["step"], state["step"],
                           state["max_steps"], eta)

    @admin.display(description="dropped signals")
    def dropped_text(self, run: TrainingRun) -> str:
        if not run.dropped_signals:
            return "-"
        return "; ".join(f"{signal['name']} (weight {signal['weight']:g}): {signal['reason']}"
                         for signal in run.dropped_signals)

    @admin.display(description="launched with")
    def launched_config_text(self, run: TrainingRun) -> str:
        if not run.launched_config:
            return "-"
        return format_html("<pre>{}</pre>", json.dumps(run.launched_config, indent=2))
