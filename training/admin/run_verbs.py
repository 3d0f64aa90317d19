"""The run verbs in the admin: launch, cancel, resume and clone, as actions on
the run list and as buttons on a run's page. The buttons shown are the verbs
training.runs.services.run_actions allows; the service refuses the rest with
a RunError, shown as an error message."""
from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.urls import path

from jobs.services import CancelOutcome

from ..models import Rubric, TrainingRun
from ..runs import services
from ..runs.services import RunError, run_actions, run_stalled

RUN_CHANGE = "training.change_trainingrun"
RUN_VERBS = ("launch", "cancel", "resume", "clone")


def run_act(verb: str, *, run: TrainingRun, user, rubric: Rubric | None = None
            ) -> tuple[str, TrainingRun]:
    """Call the run service behind an action or button: (what to tell the user, the run
    to show next). A refusal raises training.runs.services.RunError (a cancel of a run
    that is not live too, so every verb a run does not allow reads as an error)."""
    if verb == "launch":
        run = services.run_launch(run=run, user=user)
        return f"{run}: launched, queued on the train worker.", run
    if verb == "cancel":
        cancel = services.run_cancel(run=run)
        if cancel.outcome == CancelOutcome.NOT_LIVE:  # a verb run_actions did not offer
            raise RunError(cancel.message)
        return f"{run}: {cancel.message}", run
    if verb == "resume":
        run = services.run_resume(run=run)
        return f"{run}: resuming from checkpoint step {run.checkpoint_step}.", run
    if verb == "clone":
        clone = services.run_clone(run=run, user=user, rubric=rubric)
        return f"{run}: cloned as {clone}, a draft (change its settings, then launch).", clone
    raise ValueError(f"unknown run action {verb!r}")


class RunVerbsMixin:
    """The verbs' actions, buttons and URLs, for the training run ModelAdmin."""

    actions = ["launch_selected", "cancel_selected", "resume_selected", "clone_selected"]

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

    def _act(self, request, verb: str, run: TrainingRun,
             rubric: Rubric | None = None) -> TrainingRun | None:
        try:
            text, shown = run_act(verb, run=run, user=request.user, rubric=rubric)
        except RunError as error:
            self.message_user(request, f"{run}: {error}", messages.ERROR)
            return None
        self.message_user(request, text, messages.SUCCESS)
        return shown

    def _require_change(self, request) -> None:
        if not request.user.has_perm(RUN_CHANGE):
            raise PermissionDenied("Launching, cancelling, resuming or cloning a run needs "
                                   "the permission to change runs: ask an administrator for it.")

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
            # "Clone with another rubric" names it; every other verb ignores it.
            rubric = get_object_or_404(Rubric, pk=request.POST["rubric"]) \
                if verb == "clone" and request.POST.get("rubric") else None
            shown = self._act(request, verb, run, rubric)
            if shown is not None and verb in ("launch", "resume"):
                return redirect("training:run", shown.pk)  # to watch it
            return redirect("admin:training_trainingrun_change", (shown or run).pk)

        return button_view

    def change_view(self, request, object_id, form_url="", extra_context=None):
        run = TrainingRun.objects.filter(pk=object_id).first()
        buttons = self._buttons(run)
        return super().change_view(request, object_id, form_url, {
            **(extra_context or {}), **buttons,
            "save_and_launch": buttons.get("can_launch", False)
            and request.user.has_perm(RUN_CHANGE)})

    # --- the form's own "Save and launch" ---------------------------------
    # A new run's form used to say "Save, then Launch" while Save led back to
    # the list, where Launch is only an action: the button saves and launches
    # in one go and lands on the run's page to watch it.
    def add_view(self, request, form_url="", extra_context=None):
        return super().add_view(request, form_url, {
            **(extra_context or {}), "save_and_launch": request.user.has_perm(RUN_CHANGE)})

    def response_add(self, request, obj, post_url_continue=None):
        return (self._launch_after_save(request, obj)
                or super().response_add(request, obj, post_url_continue))

    def response_change(self, request, obj):
        return self._launch_after_save(request, obj) or super().response_change(request, obj)

    def _launch_after_save(self, request, run: TrainingRun):
        """The redirect after "Save and launch" (None for the admin's own buttons):
        the run's page once launched; its change page, saved as a draft, where the
        launch is refused (the error message says why)."""
        if "_launch" not in request.POST:
            return None
        self._require_change(request)
        shown = self._act(request, "launch", run)
        if shown is None:
            return redirect("admin:training_trainingrun_change", run.pk)
        return redirect("training:run", shown.pk)

    def _buttons(self, run: TrainingRun | None) -> dict:
        """can_launch, can_cancel, can_resume, can_clone: the verbs run_actions allows."""
        if run is None:
            return {}
        offered = run_actions(run)
        return {**{f"can_{verb}": verb in offered for verb in RUN_VERBS},
                "stalled": run_stalled(run),
                "other_rubrics": Rubric.objects.exclude(pk=run.rubric_id).order_by(
                    "name", "-version")}
