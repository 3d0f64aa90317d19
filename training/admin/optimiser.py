"""System prompt optimisations in the admin: a new one starts from the
presets and is edited while a draft; Launch queues it on the train worker,
Cancel stops it at its next evaluation (the buttons shown are those
optimiser.services.optimisation_actions allows). Its page refreshes while it
runs and shows every candidate GEPA kept: per-prompt scores, gate pass,
unknown-method rate, parent, the Pareto front and the best, each with "Save
as a new system prompt revision"; and apart, the proposals GEPA rejected on
their minibatch, with their score there against their parent's."""
from __future__ import annotations

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from jobs.models import LIVE

from ..models import Judge, PromptCandidate, PromptOptimisation, PromptSet, Rubric, SystemPrompt
from ..optimiser import selectors, services
from ..optimiser.services import OptimisationError
from ..presets import LOCAL_JUDGE, PROMPT_SET_NAME, SYSTEM_PROMPT_NAME
from ..sampling.config import SamplingConfig

Status = PromptOptimisation.Status
SETTINGS = (
    ("What", {"fields": ("name", "base_model", "prompt_set", "seed_prompt")}),
    ("Reward", {"fields": ("rubric", "snapshot", "judge", "scorer", "drop_unanswerable")}),
    ("Reflection and budget", {"fields": (
        "reflection", "max_metric_calls", "minibatch_size", "samples_per_prompt",
        *SamplingConfig.names(), "seed")}),
)
STATE = ("status", "progress_summary", "cancel_requested", "error", "candidates_table",
         "rejected_table", "created_by", "created", "started", "finished")
CHANGE = "training.change_promptoptimisation"


def _score(value) -> str:
    return "-" if value is None else f"{value:.3f}"


@admin.register(PromptOptimisation)
class PromptOptimisationAdmin(admin.ModelAdmin):
    list_display = ("name", "status", "progress_summary", "best_score", "created_by", "created")
    list_filter = ("status",)
    list_select_related = ("created_by",)
    search_fields = ("name",)
    change_form_template = "admin/training/promptoptimisation/change_form.html"
    actions = ["launch_selected", "cancel_selected"]

    def get_fieldsets(self, request, obj=None):
        if obj is None:
            return SETTINGS
        return (*SETTINGS, ("State", {"fields": STATE}))

    def get_readonly_fields(self, request, obj=None):
        if obj is not None and obj.status != Status.DRAFT:  # what ran stays on record
            return (*(f for _, section in SETTINGS for f in section["fields"]), *STATE)
        return STATE

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "reflection":
            kwargs["queryset"] = Judge.objects.filter(backend="openai")
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_changeform_initial_data(self, request):
        local = Judge.objects.filter(name=LOCAL_JUDGE).first()
        return {**super().get_changeform_initial_data(request),
                "seed_prompt": SystemPrompt.objects.filter(name=SYSTEM_PROMPT_NAME).order_by(
                    "-version").values_list("pk", flat=True).first(),
                "prompt_set": PromptSet.objects.filter(name=PROMPT_SET_NAME).values_list(
                    "pk", flat=True).first(),
                "rubric": Rubric.objects.filter(name="v2").order_by("-version").values_list(
                    "pk", flat=True).first(),
                "judge": local and local.pk, "scorer": local and local.pk}

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)

    def get_queryset(self, request):
        return selectors.optimisations_with_best(super().get_queryset(request))

    # --- columns --------------------------------------------------------
    @admin.display(description="progress")
    def progress_summary(self, job: PromptOptimisation) -> str:
        progress = job.progress or {}
        if "max_metric_calls" not in progress:
            return progress.get("stage", job.status)
        return format_html(
            '<progress max="{}" value="{}"></progress> {}: {} of {} metric calls, iteration {}, '
            "{} candidates, {} proposals", progress["max_metric_calls"],
            progress.get("metric_calls", 0), progress.get("stage", job.status),
            progress.get("metric_calls", 0), progress["max_metric_calls"],
            progress.get("iteration", 0), progress.get("candidates", 0),
            progress.get("proposals", 0))

    @admin.display(description="best mean score")
    def best_score(self, job: PromptOptimisation) -> str:
        if job.best_index is None:  # annotated by get_queryset: no query a row
            return "-"
        return f"{job.best_mean_score:.3f} (candidate {job.best_index})"

    @admin.display(description="candidates")
    def candidates_table(self, job: PromptOptimisation) -> str:
        candidates = list(selectors.candidates_of(job))
        if not candidates:
            return "-"
        best = selectors.candidate_best(job)
        prompts = [r.get("prompt", "") for r in candidates[0].results]
        save_url = reverse("admin:training_promptoptimisation_save_candidate", args=[job.pk])
        rows = format_html_join("", "<tr>{}</tr>", ((self._row(c, best, save_url),)
                                                    for c in candidates))
        front = ", ".join(str(c.index) for c in candidates if c.on_front)
        return format_html(
            "<p><b>Best: candidate {}</b>, mean score {} over {} prompts. Pareto front (the "
            "best on at least one prompt): candidates {}.</p><table><tr><th>#</th>"
            "<th>parent</th><th>iteration</th><th>mean</th>{}<th>gate pass</th>"
            "<th>unknown methods</th><th>front</th><th>text</th><th></th></tr>{}</table>",
            best.index, _score(best.mean_score), len(prompts), front,
            format_html_join("", '<th title="{}">prompt {}</th>',
                             ((p, i) for i, p in enumerate(prompts))), rows)

    def _row(self, candidate: PromptCandidate, best: PromptCandidate, save_url: str) -> str:
        if candidate.system_prompt is not None:
            saved = format_html("saved as {}", candidate.system_prompt)
        else:
            # The admin's change form already wraps this table: a button with
            # its own formaction posts the form (and its CSRF token) there.
            saved = format_html(
                '<button type="submit" class="button" formaction="{}" formmethod="post" '
                'name="candidate" value="{}">Save as a new system prompt revision</button>',
                save_url, candidate.index)
        return format_html(
            "<td>{}{}</td><td>{}</td><td>{}</td><td>{}</td>{}<td>{}</td><td>{}</td><td>{}</td>"
            "<td><details><summary>{}</summary><pre>{}</pre></details></td><td>{}</td>",
            candidate.index, mark_safe(" <b>best</b>") if candidate.pk == best.pk else "",
            "-" if candidate.parent is None else candidate.parent.index, candidate.iteration,
            _score(candidate.mean_score),
            format_html_join("", "<td>{}</td>", ((_score(r.get("score")),)
                                                 for r in candidate.results)),
            _score(candidate.gate_pass), _score(candidate.unknown_method_rate),
            "on the Pareto front" if candidate.on_front else "",
            (candidate.text.strip().splitlines() or [""])[-1][:80], candidate.text, saved)

    @admin.display(description="proposals GEPA rejected")
    def rejected_table(self, job: PromptOptimisation) -> str:
        rejected = list(selectors.proposals_rejected_of(job))
        if not rejected:
            return "-"
        rows = format_html_join("", "<tr>{}</tr>", ((self._rejected_row(p),) for p in rejected))
        return format_html(
            "<details><summary>Proposals GEPA rejected on their minibatch ({})</summary>"
            '<p class="help">GEPA keeps a proposal only if it beats its parent on the minibatch '
            "both were scored on. These did not, so GEPA never scored them on the whole prompt "
            "set: their numbers are on the minibatch only, the Pareto front and the best are "
            "chosen without them, and they are not offered as a system prompt revision.</p>"
            "<table><tr><th>iteration</th><th>parent</th><th>minibatch</th>"
            "<th>mean on the minibatch</th><th>gate pass</th><th>unknown methods</th>"
            "<th>text</th></tr>{}</table></details>", len(rejected), rows)

    def _rejected_row(self, proposal: PromptCandidate) -> str:
        # No save button: services.candidate_save_as_prompt refuses a rejected
        # proposal (nothing measured it on the prompt set).
        return format_html(
            "<td>{}</td><td>{}</td><td>{}</td><td>{} against the parent's {}</td><td>{}</td>"
            "<td>{}</td><td><details><summary>{}</summary><pre>{}</pre></details></td>",
            proposal.iteration, "-" if proposal.parent is None else proposal.parent.index,
            format_html_join(", ", '<span title="{}">prompt {}</span>',
                             ((r.get("prompt", ""), r.get("index")) for r in proposal.results)),
            _score(proposal.mean_score), _score(proposal.parent_minibatch_score),
            _score(proposal.gate_pass), _score(proposal.unknown_method_rate),
            (proposal.text.strip().splitlines() or [""])[-1][:80], proposal.text)

    # --- actions and buttons --------------------------------------------
    @admin.action(description="Launch the selected draft optimisations", permissions=["change"])
    def launch_selected(self, request, queryset):
        for job in queryset:
            self._act(request, "launch", job)

    @admin.action(description="Cancel the selected optimisations", permissions=["change"])
    def cancel_selected(self, request, queryset):
        for job in queryset.filter(status__in=LIVE):
            self._act(request, "cancel", job)

    def _act(self, request, verb: str, job: PromptOptimisation) -> None:
        if not request.user.has_perm(CHANGE):
            raise PermissionDenied("Launching or cancelling needs the permission to change "
                                   "prompt optimisations: ask an administrator for it.")
        try:
            if verb == "launch":
                services.optimisation_launch(job=job, user=request.user)
                text = f"{job}: launched, queued on the train worker."
            else:
                text = f"{job}: {services.optimisation_cancel(job=job).message}"
        except OptimisationError as error:
            self.message_user(request, str(error), messages.ERROR)
        else:
            self.message_user(request, text, messages.SUCCESS)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            *(path(f"<int:pk>/{verb}/", view(self._button(verb)),
                   name=f"training_promptoptimisation_{verb}") for verb in ("launch", "cancel")),
            path("<int:pk>/save-candidate/", view(self.save_candidate_view),
                 name="training_promptoptimisation_save_candidate"),
            *super().get_urls(),
        ]

    def _button(self, verb: str):
        def button_view(request, pk: int):
            if request.method == "POST":
                self._act(request, verb, get_object_or_404(PromptOptimisation, pk=pk))
            return redirect("admin:training_promptoptimisation_change", pk)

        return button_view

    def save_candidate_view(self, request, pk: int):
        if not request.user.has_perm("training.add_systemprompt"):
            raise PermissionDenied("Saving a candidate needs the permission to add system "
                                   "prompts: ask an administrator for it.")
        if request.method == "POST":
            candidate = get_object_or_404(PromptCandidate, optimisation_id=pk,
                                          index=request.POST.get("candidate"))
            prompt = services.candidate_save_as_prompt(candidate=candidate)
            self.message_user(request, f"Candidate {candidate.index} is {prompt}: runs can "
                                       "choose it as their system prompt.", messages.SUCCESS)
        return redirect("admin:training_promptoptimisation_change", pk)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        job = PromptOptimisation.objects.filter(pk=object_id).first()
        extra = {}
        if job is not None:
            actions = services.optimisation_actions(job)
            extra = {"can_launch": "launch" in actions, "can_cancel": "cancel" in actions,
                     "refresh": job.status in LIVE}
            if job.status != Status.DRAFT:
                extra.update(show_save=False, show_save_and_continue=False,
                             show_save_and_add_another=False, show_delete=True)
        return super().change_view(request, object_id, form_url,
                                   {**(extra_context or {}), **extra})
