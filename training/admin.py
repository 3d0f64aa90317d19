"""Rubrics, judges and replays in the admin. Rubrics are edited here
("Save as new" makes the next version); judges get their agreement measured;
replays are started and read in the lab (/training/lab/), listed here.
Training runs are set up here from presets, then launched, cancelled, resumed
and cloned by actions and by buttons on their page; system prompts and
prompt sets are edited here. The run services are imported when an action
calls them: they load the trainer's world, which the admin pages do not need."""
from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.html import format_html

from .lab.services import replay_cancel
from .models import Judge, PromptSet, Replay, Rubric, SystemPrompt, TrainingRun
from .rubrics import signal_specs
from .runs import selectors as run_selectors


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
        from .tasks import judge_agreement_task

        for judge in queryset:
            judge_agreement_task.delay(judge.pk)
        self.message_user(request, f"Queued {queryset.count()} measurement(s).", messages.INFO)


@admin.register(Replay)
class ReplayAdmin(admin.ModelAdmin):
    list_display = ("__str__", "rubric", "compare_rubric", "status", "renders", "lab_link",
                    "created_by", "created")
    list_filter = ("status",)
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
            self.message_user(request, replay_cancel(replay=replay), messages.INFO)


@admin.register(SystemPrompt)
class SystemPromptAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "first_line", "preset", "created")
    list_filter = ("preset",)
    search_fields = ("name", "text")
    fields = ("name", "version", "text", "preset", "created")
    readonly_fields = ("version", "preset", "created")
    # As with rubrics: "Save as new" keeps the old text and gives the edit the
    # next version of its name (runs copy the text they used at launch).
    save_as = True

    @admin.display(description="text")
    def first_line(self, prompt: SystemPrompt) -> str:
        return prompt.text.strip().splitlines()[0][:100] if prompt.text.strip() else ""

    def save_model(self, request, obj, form, change):
        if not change:
            obj.preset = False
        super().save_model(request, obj, form, change)


class PromptLinesField(forms.Field):
    """A list of prompts edited as text, one prompt per line (blank lines dropped)."""

    widget = forms.Textarea(attrs={"rows": 20, "cols": 100})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list | tuple) else value

    def to_python(self, value) -> list[str]:
        if isinstance(value, list):
            return value
        return [line.strip() for line in str(value or "").splitlines() if line.strip()]


class PromptSetForm(forms.ModelForm):
    prompts = PromptLinesField(help_text="One prompt per line; each line is one GRPO group's "
                                         "prompt. Blank lines are dropped.")


@admin.register(PromptSet)
class PromptSetAdmin(admin.ModelAdmin):
    form = PromptSetForm
    list_display = ("name", "prompt_count", "preset", "created")
    list_filter = ("preset",)
    search_fields = ("name", "description")
    fields = ("name", "description", "prompts", "preset", "created")
    readonly_fields = ("preset", "created")

    @admin.display(description="prompts")
    def prompt_count(self, prompt_set: PromptSet) -> int:
        return len(prompt_set.prompts or [])

    def save_model(self, request, obj, form, change):
        if not change:
            obj.preset = False
        super().save_model(request, obj, form, change)


Run = TrainingRun
RUN_CHANGE = "training.change_trainingrun"
RUN_VERBS = ("launch", "cancel", "resume", "clone")
RUN_SETTINGS = (
    ("What", {"fields": ("name", "base_model", "prompt_set", "system_prompt")}),
    ("Reward", {"fields": ("rubric", "snapshot", "judge", "scorer", "drop_unanswerable")}),
    ("GRPO", {"fields": ("num_generations", "prompts_per_step", "max_steps", "learning_rate",
                         "lr_schedule", "warmup_steps", "max_completion_length", "temperature",
                         "scale_rewards", "beta", "lora", "lora_rank", "seed", "device",
                         "save_steps")}),
)
RUN_STATE = ("run_page", "status", "progress_summary", "cancel_requested", "checkpoint_step",
             "heartbeat", "worker", "error", "dropped_text", "launched_config_text", "parent",
             "created_by", "created", "started", "finished")


def run_act(verb: str, *, run: TrainingRun, user) -> tuple[str, TrainingRun]:
    """Call the run service behind an action or button: (what to tell the user, the run
    to show next). A refusal raises training.runs.services.RunError."""
    from .runs import services

    if verb == "launch":
        run = services.run_launch(run=run, user=user)
        return f"{run}: launched, queued on the train worker.", run
    if verb == "cancel":
        return f"{run}: {services.run_cancel(run=run)}", run
    if verb == "resume":
        run = services.run_resume(run=run)
        return f"{run}: resuming from checkpoint step {run.checkpoint_step}.", run
    if verb == "clone":
        clone = services.run_clone(run=run, user=user)
        return f"{run}: cloned as {clone}, a draft (change its settings, then launch).", clone
    raise ValueError(f"unknown run action {verb!r}")


@admin.register(TrainingRun)
class TrainingRunAdmin(admin.ModelAdmin):
    list_display = ("name", "status_progress", "step_of_max", "last_reward", "rubric",
                    "created_by", "created")
    list_filter = ("status", "rubric", "device", "lora")
    list_select_related = ("rubric", "created_by")
    search_fields = ("name",)
    actions = ["launch_selected", "cancel_selected", "resume_selected", "clone_selected"]
    change_form_template = "admin/training/trainingrun/change_form.html"
    readonly_fields = RUN_STATE

    def get_queryset(self, request):
        return run_selectors.runs_with_last_step(super().get_queryset(request))

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return RUN_SETTINGS
        return (*RUN_SETTINGS, ("State", {"fields": RUN_STATE}))

    def get_changeform_initial_data(self, request):
        return {**run_selectors.run_defaults(), **super().get_changeform_initial_data(request)}

    def has_change_permission(self, request, obj=None) -> bool:
        # A launched run is the record of what ran: its page is read-only (clone to change).
        if obj is not None and obj.status != Run.Status.DRAFT:
            return False
        return super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        # A worker is writing a live run's steps: cancel it first.
        if obj is not None and obj.status in (Run.Status.QUEUED, Run.Status.RUNNING):
            return False
        return super().has_delete_permission(request, obj)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    # --- columns --------------------------------------------------------
    @admin.display(description="status", ordering="status")
    def status_progress(self, run: TrainingRun) -> str:
        if run.status == Run.Status.DRAFT:
            return run.get_status_display()
        state = run_selectors.run_progress(run)
        return format_html('{} <progress max="100" value="{}"></progress> {}%',
                           run.get_status_display(), state["percent"], state["percent"])

    @admin.display(description="step")
    def step_of_max(self, run: TrainingRun) -> str:
        state = run_selectors.run_progress(run)
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
        state = run_selectors.run_progress(run)
        eta = f", about {state['eta']} left" if state["eta"] else ""
        return format_html('<progress max="{}" value="{}"></progress> step {} of {}{}',
                           state["max_steps"], state["step"], state["step"],
                           state["max_steps"], eta)

    @admin.display(description="dropped signals")
    def dropped_text(self, run: TrainingRun) -> str:
        if not run.dropped_signals:
            return "-"
        return "; ".join(f"{d['name']} (weight {d['weight']:g}): {d['reason']}"
                         for d in run.dropped_signals)

    @admin.display(description="launched with")
    def launched_config_text(self, run: TrainingRun) -> str:
        if not run.launched_config:
            return "-"
        return format_html("<pre>{}</pre>", json.dumps(run.launched_config, indent=2))

    # --- actions --------------------------------------------------------
    @admin.action(description="Launch the selected draft runs", permissions=["change"])
    def launch_selected(self, request, queryset):
        self._act_each(request, "launch", queryset)

    @admin.action(description="Cancel the selected runs (at the next step)",
                  permissions=["change"])
    def cancel_selected(self, request, queryset):
        self._act_each(request, "cancel", queryset)

    @admin.action(description="Resume the selected runs from their checkpoints",
                  permissions=["change"])
    def resume_selected(self, request, queryset):
        self._act_each(request, "resume", queryset)

    @admin.action(description="Clone the selected runs as drafts", permissions=["change"])
    def clone_selected(self, request, queryset):
        self._act_each(request, "clone", queryset)

    def _act_each(self, request, verb: str, queryset) -> None:
        self._require_change(request)
        for run in queryset:
            self._act(request, verb, run)

    def _act(self, request, verb: str, run: TrainingRun) -> TrainingRun | None:
        from .runs.services import RunError

        try:
            text, shown = run_act(verb, run=run, user=request.user)
        except RunError as error:
            self.message_user(request, f"{run}: {error}", messages.ERROR)
            return None
        self.message_user(request, text, messages.SUCCESS)
        return shown

    def _require_change(self, request) -> None:
        if not request.user.has_perm(RUN_CHANGE):
            raise PermissionDenied("launching, cancelling, resuming or cloning a run needs "
                                   "the permission to change runs")

    # --- buttons on a run's page ----------------------------------------
    def get_urls(self):
        view = self.admin_site.admin_view
        return [*(path(f"<int:pk>/{verb}/", view(self._button(verb)),
                       name=f"training_trainingrun_{verb}") for verb in RUN_VERBS),
                *super().get_urls()]

    def _button(self, verb: str):
        def button_view(request, pk: int):
            self._require_change(request)
            run = get_object_or_404(TrainingRun, pk=pk)
            if request.method != "POST":
                return redirect("admin:training_trainingrun_change", pk)
            shown = self._act(request, verb, run)
            if shown is not None and verb in ("launch", "resume"):
                return redirect("training:run", shown.pk)  # to watch it
            return redirect("admin:training_trainingrun_change", (shown or run).pk)

        return button_view

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = TrainingRun.objects.filter(pk=object_id).first()
        return super().change_view(request, object_id, form_url,
                                   {**(extra_context or {}), **self._buttons(run)})

    def _buttons(self, run: TrainingRun | None) -> dict:
        """Which of launch, cancel, resume and clone the page offers, by status."""
        if run is None:
            return {}
        live = run.status in (Run.Status.QUEUED, Run.Status.RUNNING)
        stalled = False
        if run.status == Run.Status.RUNNING:
            from .runs.services import run_stalled

            stalled = run_stalled(run)
        return {"can_launch": run.status == Run.Status.DRAFT,
                "can_cancel": live and not run.cancel_requested,
                "can_resume": stalled or run.status in (Run.Status.FAILED, Run.Status.CANCELLED),
                "can_clone": True, "stalled": stalled}
