"""The reward models in the admin: launch training ("Train a new reward
model", or a yardstick disjoint from a chosen model), follow its progress
(the pages refresh themselves while a job runs), cancel it, activate a
finished one; the change page shows its metrics and the data it learnt from.
Registered from PoolConfig.ready(): pool/admin.py belongs to the pool's
membership pages."""
from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join

from jobs.models import LIVE
from pool.models import RewardModel
from rating.models import Grade
from rating.sources import SOURCE_CHOICES

from . import services
from .config import KINDS, TrainConfig
from .metrics import evidence_warning, interval_text

Status = RewardModel.Status


def _num(value, spec: str) -> str:
    """A metric as text (format_html escapes its arguments, so numbers are
    formatted first); "-" where a split had nothing to measure."""
    return "-" if value is None else format(value, spec)


def _interval(test: dict) -> str:
    """ "[lo-hi] " for a split whose record has the interval, else ""."""
    text = interval_text(test)
    return f"[{text}] " if text else ""


class TrainForm(forms.Form):
    """The few settings worth choosing per job; the rest keep TrainConfig's defaults."""

    defaults = TrainConfig()
    sources = forms.ChoiceField(
        choices=[(c, c) for c in SOURCE_CHOICES], initial=defaults.sources,
        help_text="Whose grades: human (graded here or imported), simulated (the simulated "
                  "curator), or auto: human grades when there are any, else simulated.")
    max_epochs = forms.IntegerField(min_value=1, max_value=1000, initial=defaults.max_epochs,
                                    help_text="Early stopping usually ends sooner.")
    image_size = forms.IntegerField(min_value=16, max_value=512, initial=defaults.image_size)
    seed = forms.IntegerField(initial=defaults.seed)
    model = forms.ChoiceField(choices=[(k, k) for k in KINDS], initial=defaults.model,
                              help_text="backbone: a head on PAINTRL_REWARD_BACKBONE's "
                                        "embeddings (set that first).")
    activate = forms.BooleanField(required=False, initial=False,
                                  help_text="Make it the active model when it finishes.")

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # With none active, the first model trained is the one wanted: ticked.
        if not RewardModel.objects.filter(active=True).exists():
            self.fields["activate"].initial = True
            self.fields["activate"].help_text += " No model is active now."


@admin.register(RewardModel)
class RewardModelAdmin(admin.ModelAdmin):
    list_display = ("version", "role", "status", "progress_bar", "heldout_accuracy",
                    "grades_used", "active", "created_by", "created")
    # Nullable foreign keys are not joined by default: one query a row without this.
    list_select_related = ("created_by",)
    list_display_links = ("version",)
    list_filter = ("status", "active", "role")
    actions = ["cancel_selected", "activate_selected", "train_yardstick_selected"]
    change_list_template = "admin/pool/rewardmodel/change_list.html"
    change_form_template = "admin/pool/rewardmodel/change_form.html"
    fields = ("role", "status", "active", "progress_bar", "cancel_requested", "error",
              "metrics_summary", "training_data_summary", "config", "weights", "created_by",
              "created", "started", "finished")
    readonly_fields = fields

    # A reward model is the record of a job: made by the train view, never
    # edited (every field is read-only, and the page has no save buttons).
    def has_add_permission(self, request):
        return False

    # --- list and page columns -----------------------------------------
    @admin.display(description="progress")
    def progress_bar(self, obj: RewardModel) -> str:
        progress = obj.progress or {}
        stage = progress.get("stage", obj.status)
        if obj.status == Status.DONE:
            return format_html("done: {} epochs", obj.metrics.get("epochs_run", "?"))
        if stage == "training":
            return format_html(
                '<progress max="{}" value="{}"></progress> epoch {}/{}, validation {}',
                progress["max_epochs"], progress["epoch"], progress["epoch"],
                progress["max_epochs"], _num(progress.get("validation_accuracy"), ".3f"))
        if "total" in progress:
            return format_html('<progress max="{}" value="{}"></progress> {} {}/{}',
                               progress["total"], progress["done"], stage, progress["done"],
                               progress["total"])
        return stage

    @admin.display(description="held-out pairwise accuracy")
    def heldout_accuracy(self, obj: RewardModel) -> str:
        metrics = obj.metrics or {}
        if obj.status != Status.DONE or "test" not in metrics:
            return _num(metrics.get("heldout_pairwise_accuracy"), ".3f")
        test = metrics["test"]
        warning = evidence_warning(test)
        return format_html(
            "{} <small>{}{} pairs</small>{}", _num(metrics["heldout_pairwise_accuracy"], ".3f"),
            _interval(test), test.get("pairs", 0),
            format_html(' <b class="errornote" title="{}">too little evidence</b>', warning)
            if warning else "")

    @admin.display(description="grades")
    def grades_used(self, obj: RewardModel) -> str:
        data = obj.training_data or {}
        if not data:
            return "-"
        if obj.role == RewardModel.Role.GOLD:
            return f"painter tiers of {data['gold']['renders']} renders"
        simulated = "simulated" in data.get("sources", [])
        return f"{data['grades']} {'SIMULATED' if simulated else 'human'}"

    @admin.display(description="metrics")
    def metrics_summary(self, obj: RewardModel) -> str:
        metrics = obj.metrics or {}
        test = metrics.get("test")
        if not test:
            return "-"
        grades = format_html_join(
            "", "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((g, r["n"], *(_num(r[k], "+.2f") for k in ("mean", "q10", "median", "q90")))
             for g, r in test["by_grade"].items()))
        bins = format_html_join(
            "", "<tr><td>{}-{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            ((_num(b["from"], ".1f"), _num(b["to"], ".1f"), b["pairs"],
              _num(b["predicted"], ".3f"), _num(b["observed"], ".3f"))
             for b in test["calibration"]["bins"]))
        boundaries = ", ".join(f"{k} at {_num(v, '+.2f')}"
                               for k, v in metrics.get("boundaries", {}).items())
        warning = evidence_warning(test)
        return format_html(
            "{}<p>Held-out (test split) pairwise accuracy <b>{}</b> {}on {} pairs of {} renders; "
            "validation {}, train {}. Best epoch {} of {} ({}), {} s.</p>{}"
            "<p>Scores per grade (test split)</p><table><tr><th>grade</th><th>n</th>"
            "<th>mean</th><th>q10</th><th>median</th><th>q90</th></tr>{}</table>"
            "<p>Calibration: P(a beats b) = sigmoid(score a - score b) against the observed "
            "rate; ECE {}</p><table><tr><th>predicted</th><th>pairs</th><th>mean "
            "predicted</th><th>observed</th></tr>{}</table><p>Grade boundaries: {}</p>",
            format_html('<p class="errornote">Do not rely on this model: its accuracy is {}.'
                        " Grade more renders and train again.</p>", warning) if warning else "",
            _num(metrics["heldout_pairwise_accuracy"], ".3f"), _interval(test), test["pairs"],
            test["renders"], _num(metrics.get("validation_pairwise_accuracy"), ".3f"),
            _num(metrics.get("train_pairwise_accuracy"), ".3f"), metrics.get("best_epoch"),
            metrics.get("epochs_run"), metrics.get("stopped_by"), metrics.get("train_seconds"),
            _comparison_line(metrics), grades, _num(test["calibration"].get("ece"), ".3f"), bins,
            boundaries or "-")

    @admin.display(description="training data")
    def training_data_summary(self, obj: RewardModel) -> str:
        data = obj.training_data or {}
        if not data:
            return "-"
        if obj.role == RewardModel.Role.GOLD:
            gold = data["gold"]
            return format_html(
                "<b>The gold judge:</b> recipe {}, the painter's tiers (no noise) of {} renders "
                "of painter seeds {} to {} at {} px ({}); split by sketch ({}). Never active: "
                "it scores a run's probe and rollouts, never its reward.<br>weights sha256 {}",
                gold["recipe"], gold["renders"], *gold["painter"]["seeds"],
                gold["painter"]["size"],
                ", ".join(f"{tier} {n}" for tier, n in sorted(gold["tiers"].items())),
                ", ".join(f"{name} {n}" for name, n in gold["split"].items()),
                gold["weights_sha256"])
        simulated = "simulated" in data.get("sources", [])
        counts = format_html_join(", ", "{}: {}", (
            (split, " / ".join(f"{g} {n}" for g, n in sorted(c.items())))
            for split, c in data["grade_counts"].items()))
        disjoint = data.get("disjoint_from")
        return format_html(
            "{}{}{} grades of {} renders, {}; split by sketch ({}). "
            "<br>sha256 {}",
            format_html("<b>Simulated curator's grades, not people's.</b> ") if simulated else "",
            format_html("<b>A yardstick:</b> none of v{}'s train split (nor a sketch sharing "
                        "its code): {} of the {} graded renders left out. ", disjoint["version"],
                        disjoint["left_out"], disjoint["graded"]) if disjoint else "",
            data["grades"], data["renders"], grade_sources_text(data), counts, data["sha256"])

    # --- actions --------------------------------------------------------
    @admin.action(description="Cancel the selected training jobs", permissions=["change"])
    def cancel_selected(self, request, queryset):
        for reward_model in queryset.filter(status__in=LIVE):
            services.reward_model_cancel(reward_model=reward_model)
        self.message_user(request, "Cancel requested: running jobs stop at their next epoch.")

    @admin.action(description="Activate the selected reward model (and score renders)",
                  permissions=["change"])
    def activate_selected(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one reward model to activate.",
                              messages.ERROR)
            return
        self._activate(request, queryset.get())

    @admin.action(description="Train a yardstick disjoint from the selected model",
                  permissions=["train"])
    def train_yardstick_selected(self, request, queryset):
        if queryset.count() != 1:
            self.message_user(request, "Select exactly one reward model to train a yardstick "
                                       "disjoint from.", messages.ERROR)
            return
        other = queryset.get()
        try:
            yardstick = services.reward_model_yardstick_create(reward_model=other,
                                                               created_by=request.user)
        except ValueError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return
        self.message_user(request, f"Training yardstick v{yardstick.version} on the short "
                                   f"worker, on the grades v{other.version} never trained on.")

    def has_train_permission(self, request) -> bool:
        # The train view's permission: adding through the admin's form is off (a
        # model is the record of a job), so the action cannot ask for "add".
        return request.user.has_perm("pool.add_rewardmodel")

    def _activate(self, request, reward_model: RewardModel) -> None:
        try:
            services.reward_model_activate(reward_model=reward_model)
        except ValueError as exc:
            self.message_user(request, str(exc), messages.ERROR)
            return
        self.message_user(request, f"v{reward_model.version} is active; renders are being "
                                   "scored on the short worker.")
        warning = evidence_warning((reward_model.metrics or {}).get("test"))
        if warning:
            self.message_user(request, f"v{reward_model.version} was trained on too little to "
                                       f"trust: its held-out accuracy is {warning}. Its scores "
                                       "and the runs judged by it may mean little.",
                              messages.WARNING)

    # --- pages ----------------------------------------------------------
    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("train/", view(self.train_view), name="pool_rewardmodel_train"),
            path("<int:pk>/cancel/", view(self.cancel_view), name="pool_rewardmodel_cancel"),
            path("<int:pk>/activate/", view(self.activate_view),
                 name="pool_rewardmodel_activate"),
            *super().get_urls(),
        ]

    def _require(self, request, action: str) -> None:
        if not request.user.has_perm(f"pool.{action}_rewardmodel"):
            raise PermissionDenied(f"This needs the permission to {action} reward models: "
                                   "ask an administrator for it.")

    def train_view(self, request):
        self._require(request, "add")
        form = TrainForm(request.POST or None)
        if request.method == "POST" and form.is_valid():
            options = dict(form.cleaned_data)
            activate = options.pop("activate")
            try:
                reward_model = services.reward_model_create(
                    created_by=request.user, config=options, activate=activate)
            except ValueError as exc:
                form.add_error(None, str(exc))
            else:
                self.message_user(request, f"Training reward model v{reward_model.version} "
                                           "on the short worker.")
                return redirect("admin:pool_rewardmodel_change", reward_model.pk)
        context = {**self.admin_site.each_context(request), "form": form,
                   "opts": self.model._meta, "title": "Train a new reward model"}
        return TemplateResponse(request, "admin/pool/rewardmodel/train.html", context)

    def cancel_view(self, request, pk: int):
        self._require(request, "change")
        if request.method != "POST":
            return redirect("admin:pool_rewardmodel_change", pk)
        reward_model = get_object_or_404(RewardModel, pk=pk)
        self.message_user(request, services.reward_model_cancel(reward_model=reward_model).message)
        return redirect("admin:pool_rewardmodel_change", pk)

    def activate_view(self, request, pk: int):
        self._require(request, "change")
        if request.method == "POST":
            self._activate(request, get_object_or_404(RewardModel, pk=pk))
        return redirect("admin:pool_rewardmodel_change", pk)

    def changelist_view(self, request, extra_context=None):
        live = RewardModel.objects.filter(status__in=LIVE).exists()
        return super().changelist_view(request, {**(extra_context or {}), "refresh": live,
                                                 "train_url": reverse(
                                                     "admin:pool_rewardmodel_train")})

    def change_view(self, request, object_id, form_url="", extra_context=None):
        reward_model = RewardModel.objects.filter(pk=object_id).first()
        extra = {"show_save": False, "show_save_and_continue": False,
                 "show_save_and_add_another": False,
                 "refresh": reward_model is not None and reward_model.status in LIVE,
                 "can_cancel": reward_model is not None and reward_model.status in LIVE,
                 "can_activate": reward_model is not None and reward_model.status == Status.DONE
                 and not reward_model.active}
        return super().change_view(request, object_id, form_url, {**(extra_context or {}),
                                                                  **extra})


def _comparison_line(metrics: dict) -> str:
    """The held-out comparisons' accuracy, where the model had any to be measured on."""
    if metrics.get("heldout_comparison_accuracy") is None:
        return format_html('<p>Held-out comparisons: none (curators compare pairs on '
                           '<a href="{}">the comparing page</a>).</p>', reverse("rating:compare"))
    return format_html("<p>Held-out comparisons (curators' choices between two renders): "
                       "accuracy <b>{}</b> on {}.</p>",
                       _num(metrics["heldout_comparison_accuracy"], ".3f"),
                       metrics.get("heldout_comparisons", 0))


def grade_sources_text(data: dict) -> str:
    """Where a model's grades came from, in words: the grades each source gave
    ("18 graded in the app"), or for a model trained before those were counted,
    the sources that counted. It once read "from sources app, import" for a
    model with nothing imported."""
    labels = {Grade.Source.APP: "graded in the app", Grade.Source.IMPORT: "imported",
              Grade.Source.SIMULATED: "from the simulated curator"}
    given = data.get("grades_by_source")
    if given:
        return ", ".join(f"{count} {labels.get(source, source)}"
                         for source, count in given.items())
    return "counting grades " + " or ".join(
        labels.get(source, source) for source in data.get("sources", []))
