"""Rubrics as data: the presets, validation with messages that say where,
versions, shared computations, and a total that treats None as no opinion."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from training.models import Judge, Rubric
from training.rubrics import PRESETS, RubricError, SignalSpec, rubric_total, signal_specs


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


def test_total_is_the_weighted_mean_of_the_signals_present():
    specs = [SignalSpec("gate", "gate", 0.2), SignalSpec("judge", "pairwise", 0.8)]
    gate, judge = (spec.key for spec in specs)
    assert rubric_total({gate: 1.0, judge: 0.5}, specs) == pytest.approx(0.6)
    # A judge outage is no opinion: the total rests on the gate alone, not on a 0.
    assert rubric_total({gate: 1.0, judge: None}, specs) == pytest.approx(1.0)
    assert rubric_total({gate: None, judge: None}, specs) is None
    assert rubric_total({gate: 0.0, judge: 0.0}, specs) == 0.0
