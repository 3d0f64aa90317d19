"""Rubrics as data: the presets, validation with messages that say where,
versions, shared computations, a total that a missing weighted signal
leaves out (never a mean of what answered), and signals dropped openly."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from sketches.rendering import OK
from training.models import Judge, Rubric
from training.reward.inputs import SignalContext, SignalInput
from training.reward.judges import JudgeBackend
from training.reward.judges.base import COMPARE_Q, PREFERENCE_Q, RATE_Q
from training.reward.kinds import KINDS, SignalKind
from training.reward.rubric import (
    PRESETS,
    ramp_target_at_scale,
    ramp_target_set,
    rubric_specs,
    rubric_total,
    signal_specs,
    specs_kept,
)
from training.reward.scoring import signal_problem, signals_compute
from training.reward.spec import RubricError, SignalSpec


@pytest.mark.django_db
def test_presets_are_installed_by_migration():
    v2 = Rubric.objects.get(name="v2", version=1)
    v1 = Rubric.objects.get(name="v1", version=1)
    assert [(s.name, s.kind, s.weight) for s in v2.specs()] == [
        ("gate", "gate", 0.05), ("length", "length", 0.05),
        ("preference", "preference", 0.30), ("pairwise", "pairwise", 0.60)]
    assert len(v1.specs()) == 9
    assert sum(s.weight for s in v1.specs()) == pytest.approx(1.0)
    assert sum(s.weight for s in v2.specs()) == pytest.approx(1.0)
    # v1's length ramp held a third of the weight; its preference score a tenth.
    by_name = {s.name: s for s in v1.specs()}
    assert by_name["length ramp"].weight == 0.33 and by_name["preference"].weight == 0.10
    assert str(v2) == "v2 (rev. 1)"
    assert Judge.objects.get(name="local").backend == "local"


@pytest.mark.django_db
def test_a_new_rubric_gets_the_next_version_of_its_name():
    first = Rubric.objects.create(name="mine", signals=PRESETS["v2"]["signals"])
    second = Rubric.objects.create(name="mine", signals=PRESETS["v2"]["signals"])
    assert (first.version, second.version) == (1, 2)


@pytest.mark.parametrize("signals, message", [
    ([], "non-empty list"),
    ([{"kind": "vibes", "weight": 1}], "signal 1: kind 'vibes' is not one of"),
    ([{"kind": "gate", "weight": -1}], "weight must be a number >= 0"),
    ([{"kind": "gate", "weight": "a lot"}], "weight must be a number"),
    ([{"kind": "gate", "weight": 0}], "add up to 0"),
    ([{"kind": "gate", "weight": 1}, {"kind": "gate", "weight": 1}], "used twice"),
    ([{"kind": "pairwise", "weight": 1, "params": {"k": 0}}], "k must be a whole number"),
    ([{"kind": "pairwise", "weight": 1, "params": {"okay_share": 2}}], "okay_share"),
    ([{"kind": "length", "weight": 1, "params": {"mode": "log"}}], "mode must be"),
    ([{"kind": "length", "weight": 1, "params": {"min_tokens": 9, "max_tokens": 3}}],
     "min_tokens exceeds"),
    ([{"kind": "absolute", "weight": 1, "params": {"criterion": "vibes"}}], "criterion"),
    ([{"kind": "gate", "weight": 1, "params": {"strict": True}}], "unknown parameter"),
    ([{"kind": "gate", "weight": 1, "colour": "red"}], "unknown field"),
    (["gate"], "expected an object"),
])
def test_invalid_signal_lists_are_refused_with_a_reason(signals, message):
    with pytest.raises(RubricError, match=message):
        signal_specs(signals)


@pytest.mark.django_db
def test_model_validation_reports_the_reason_on_the_signals_field():
    rubric = Rubric(name="bad", signals=[{"kind": "gate", "weight": -1}])
    with pytest.raises(ValidationError) as raised:
        rubric.full_clean()
    assert "weight must be a number" in str(raised.value.message_dict["signals"])


def test_signals_with_the_same_computation_share_a_key():
    a, b = signal_specs([{"name": "a", "kind": "pairwise", "weight": 1},
                         {"name": "b", "kind": "pairwise", "weight": 2,
                          "params": {"k": 2, "okay_share": 0}}])
    assert a.key == b.key
    ramp, bound = signal_specs([{"name": "r", "kind": "length", "weight": 1,
                                 "params": {"mode": "ramp", "target_tokens": 100}},
                                {"name": "b", "kind": "length", "weight": 1}])
    assert ramp.key != bound.key
    assert "max_tokens" not in ramp.params  # a ramp's key holds only what it uses


def test_total_is_the_weighted_mean_when_every_weighted_signal_has_a_value():
    specs = [SignalSpec("gate", "gate", 0.2), SignalSpec("judge", "pairwise", 0.8)]
    gate, judge = (spec.key for spec in specs)
    assert rubric_total({gate: 1.0, judge: 0.5}, specs) == pytest.approx(0.6)
    assert rubric_total({gate: 0.0, judge: 0.0}, specs) == 0.0
    # A judge outage leaves no total: never the gate alone, never a 0.
    assert rubric_total({gate: 1.0, judge: None}, specs) is None
    assert rubric_total({gate: 1.0}, specs) is None  # not computed at all: the same
    assert rubric_total({gate: None, judge: None}, specs) is None


def test_a_signal_of_weight_0_missing_leaves_the_total_as_it_is():
    specs = [SignalSpec("gate", "gate", 1.0), SignalSpec("watch", "preference", 0.0)]
    assert rubric_total({specs[0].key: 0.5, specs[1].key: None}, specs) == 0.5


def values_for(specs, missing: set[str]) -> dict:
    """Every signal of a preset at 1.0 but those named in `missing` (None)."""
    return {spec.key: None if spec.name in missing else 1.0 for spec in specs}


@pytest.mark.parametrize("preset", ["v2", "v1"])
def test_under_both_presets_any_missing_weighted_signal_leaves_no_total(preset):
    specs = signal_specs(PRESETS[preset]["signals"])
    assert rubric_total(values_for(specs, set()), specs) == pytest.approx(1.0)
    for spec in specs:
        assert rubric_total(values_for(specs, {spec.name}), specs) is None, spec.name


@pytest.mark.parametrize("preset, picture_signals", [
    ("v2", {"gate", "preference", "pairwise"}),
    ("v1", {"compiles", "uses brush", "preference", "adherence", "recognisability", "beauty",
            "technique", "depth"}),
])
def test_an_unavailable_render_earns_nothing_under_either_preset(preset, picture_signals):
    """The issue's case: the browser failed, so every picture signal (and the gates) is
    None while the length signal still has its value. The old rule paid v2 1.0 for it."""
    specs = signal_specs(PRESETS[preset]["signals"])
    assert {s.name for s in specs} - picture_signals == {s.name for s in specs
                                                         if s.kind == "length"}
    assert rubric_total(values_for(specs, picture_signals), specs) is None


def test_an_ok_render_whose_judge_failed_has_no_total_under_v2():
    specs = signal_specs(PRESETS["v2"]["signals"])
    # Gate, length and preference answered; the pairwise judge did not.
    assert rubric_total(values_for(specs, {"pairwise"}), specs) is None


def test_a_dropped_signal_leaves_the_rest_with_their_weights():
    specs = signal_specs(PRESETS["v1"]["signals"])
    dropped = [{"name": "adherence", "kind": "absolute", "weight": 0.07, "reason": "why"}]
    kept = specs_kept(specs, dropped)
    assert [s.name for s in kept] == [s.name for s in specs if s.name != "adherence"]
    assert sum(s.weight for s in kept) == pytest.approx(0.93)
    # Without adherence the rest add up to a total again, adherence never asked.
    values = values_for(specs, {"adherence"})
    assert rubric_total(values, specs) is None
    assert rubric_total(values, kept) == pytest.approx(1.0)
    assert rubric_specs(PRESETS["v1"]["signals"], dropped) == kept


def test_dropping_every_weighted_signal_is_refused():
    signals = [{"name": "gate", "kind": "gate", "weight": 1},
               {"name": "watch", "kind": "preference", "weight": 0}]
    with pytest.raises(RubricError, match="dropping gate leaves no weighted signal"):
        rubric_specs(signals, [{"name": "gate", "kind": "gate", "weight": 1, "reason": "x"}])


def test_v1_at_our_scale_asks_for_half_as_much_again_as_the_policy_starts_with():
    assert ramp_target_at_scale(80.4, 256) == 121
    # No more than a completion may hold: a target out of reach never saturates.
    assert ramp_target_at_scale(200, 256) == 256
    with pytest.raises(RubricError, match="above 0 tokens"):
        ramp_target_at_scale(0, 256)
    scaled = ramp_target_set(PRESETS["v1"]["signals"], 121)
    ramps = [s for s in signal_specs(scaled) if s.kind == "length"]
    assert [s.params for s in ramps] == [{"mode": "ramp", "target_tokens": 121}]
    # Everything else is the preset's, and the preset itself is untouched.
    assert [s for s in scaled if s["kind"] != "length"] == [
        s for s in PRESETS["v1"]["signals"] if s["kind"] != "length"]
    assert PRESETS["v1"]["signals"][2]["params"]["target_tokens"] == 3000
    # A bound is not a ramp: v2 is left as it is.
    assert ramp_target_set(PRESETS["v2"]["signals"], 121) == PRESETS["v2"]["signals"]


class TestKindRegistry:
    """A new signal kind is one SignalKind in the registry: the rubric's
    validation, the judges' refusals and the scoring all read it there."""

    def test_a_registered_kind_is_checked_asked_about_and_computed(self, monkeypatch):
        def check(params, where):
            if params["colours"] < 1:
                raise RubricError(f"{where}: colours must be at least 1")
            return params

        def compute(spec, rollouts, context):
            return [min(1.0, r.code.count("fill") / spec.params["colours"]) for r in rollouts]

        monkeypatch.setitem(KINDS, "fills", SignalKind("fills", compute, params={"colours": 3},
                                                       check=check, question=RATE_Q))
        spec, = signal_specs([{"name": "fills", "kind": "fills", "weight": 1}])
        assert spec.params == {"colours": 3}
        with pytest.raises(RubricError, match="signal 1 \\(f\\): colours must be at least 1"):
            signal_specs([{"name": "f", "kind": "fills", "weight": 1, "params": {"colours": 0}}])
        with pytest.raises(RubricError, match="unknown parameter"):
            signal_specs([{"name": "f", "kind": "fills", "weight": 1, "params": {"size": 2}}])
        context = SignalContext(judge=JudgeBackend(), scorer=None)
        assert "does not rate pictures" in signal_problem(spec, context)
        rows = signals_compute([spec], [SignalInput("a", "p", "fill(); fill();", OK)], context)
        assert rows == [{spec.key: pytest.approx(2 / 3)}]

    def test_every_kind_asks_a_known_question_of_a_known_role(self):
        for kind in KINDS.values():
            assert kind.question in (None, PREFERENCE_Q, COMPARE_Q, RATE_Q), kind.name
            assert kind.role in (None, "judge", "scorer"), kind.name
