"""The lab's form: which rubric(s), which renders, which judges."""
from __future__ import annotations

from django import forms

from pool.models import PoolSnapshot
from sketches.models import Sketch

from ..models import Judge, Replay, Rubric, TrainingRun
from ..reward.judges import DEFAULT_BACKEND
from .selection import AUTO, MIN_GROUP, ReplaySelection
from .services import replay_answerable

MAX_RENDERS = 5000


class ReplayForm(forms.Form):
    name = forms.CharField(max_length=120, required=False,
                           widget=forms.TextInput(attrs={"placeholder": "optional"}))
    rubric = forms.ModelChoiceField(Rubric.objects.all())
    compare_rubric = forms.ModelChoiceField(Rubric.objects.all(), required=False,
                                            label="Compare with",
                                            help_text="Scored on the same renders, side by side.")
    # Why v1 is not preselected where the default judges cannot answer it.
    COMPARE_UNANSWERED = ("Rubric {rubric} is not preselected: the default judges cannot answer "
                          "all its signals (v1 asks the local judge for adherence). Choose it "
                          "and tick \"Drop signals the judges cannot answer\" to compare anyway.")
    snapshot = forms.ModelChoiceField(PoolSnapshot.objects.all(), required=False,
                                      label="Pool snapshot",
                                      help_text="References for pairwise signals.")
    judge = forms.ModelChoiceField(Judge.objects.all(),
                                   help_text="Answers pairwise and absolute questions.")
    scorer = forms.ModelChoiceField(Judge.objects.all(), label="Preference scorer")
    drop_unanswerable = forms.BooleanField(
        required=False, label="Drop signals the judges cannot answer",
        help_text="Otherwise a rubric asking the judges a question they can never answer "
                  "(adherence of the local reward model) is refused. Dropped signals are "
                  "shown with their weight.")
    run = forms.ModelChoiceField(TrainingRun.objects.all(), required=False,
                                 label="A training run's rollouts",
                                 help_text="Its rollouts in their GRPO groups (a step's prompt); "
                                           "the filters below then do not apply.")
    render_ids = forms.CharField(required=False, label="Render ids",
                                 widget=forms.TextInput(attrs={"placeholder": "e.g. 12, 40-48"}),
                                 help_text="A hand-picked set; empty for every render.")
    origin = forms.ChoiceField(choices=[("", "any origin"), *Sketch.Origin.choices],
                               required=False)
    prompt_contains = forms.CharField(max_length=200, required=False, label="Prompt contains")
    graded_only = forms.BooleanField(required=False, label="Graded renders only")
    include_rejected = forms.BooleanField(required=False, initial=True,
                                          label="Include rejected renders")
    group_by = forms.ChoiceField(
        choices=[(AUTO, "automatic"), *Replay.GroupBy.choices], initial=AUTO,
        label="Group by",
        help_text=f"Automatic: by prompt where most renders share their prompt with "
                  f"{MIN_GROUP - 1} others or more, else by subject, else one group. "
                  "The replay's page says which it used and why.")
    per_group = forms.IntegerField(min_value=1, max_value=64, initial=8,
                                   label="Renders per group",
                                   help_text="A GRPO group: generations per prompt.")
    limit = forms.IntegerField(min_value=2, max_value=MAX_RENDERS, initial=256,
                               label="Renders at most")
    seed = forms.IntegerField(initial=0, help_text="Seeds which groups and references are drawn.")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        local = Judge.objects.filter(backend=DEFAULT_BACKEND).first()
        presets = {r.name: r for r in Rubric.objects.filter(preset=True)}
        snapshot = PoolSnapshot.objects.order_by("-created").first()
        self.fields["rubric"].initial = presets.get("v2")
        self.fields["snapshot"].initial = snapshot
        self.fields["judge"].initial = self.fields["scorer"].initial = local
        # The defaults must make a replay the service takes: the first submit of a
        # newcomer who changed nothing is never refused (v1's adherence is a
        # question the local judge cannot answer).
        compare = presets.get("v1")
        if compare is not None and replay_answerable(compare, judge=local, scorer=local,
                                                     snapshot=snapshot):
            self.fields["compare_rubric"].initial = compare
        elif compare is not None:
            self.fields["compare_rubric"].help_text += " " + self.COMPARE_UNANSWERED.format(
                rubric=compare)

    def clean_render_ids(self) -> tuple[int, ...]:
        """Ids and ranges ("12, 40-48"), at most MAX_RENDERS of them."""
        ids: list[int] = []
        for part in self.cleaned_data["render_ids"].replace(",", " ").split():
            first, _, last = part.partition("-")
            if not first.isdigit() or (last and not last.isdigit()):
                raise forms.ValidationError(f"{part!r} is not a render id or a range like 40-48")
            low, high = int(first), int(last or first)
            if high < low or high - low >= MAX_RENDERS or len(ids) + high - low >= MAX_RENDERS:
                raise forms.ValidationError(f"at most {MAX_RENDERS} renders")
            ids.extend(range(low, high + 1))
        return tuple(dict.fromkeys(ids))

    def clean(self):
        data = super().clean()
        if data.get("rubric") and data.get("rubric") == data.get("compare_rubric"):
            raise forms.ValidationError("compare the rubric with a different one")
        return data

    def selection(self) -> ReplaySelection:
        data = self.cleaned_data
        run = data.get("run")
        return ReplaySelection(run_id=run.pk if run else None,
                               render_ids=data["render_ids"], origin=data["origin"],
                               prompt_contains=data["prompt_contains"],
                               graded_only=data["graded_only"],
                               include_rejected=data["include_rejected"],
                               group_by=data["group_by"], per_group=data["per_group"],
                               limit=data["limit"], seed=data["seed"])
