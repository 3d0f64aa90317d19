"""Rubric diagnostics on synthetic batches whose answer is known: the article's v1 rubric with
five judges that copy one latent quality, a length ramp maxed out in most groups and two gates
every rollout passes."""
from __future__ import annotations

import json
import math
import statistics

import numpy as np
import pytest

from training.diagnostics import (
    SATURATED_WITHIN_STD,
    first_reaching,
    pearson,
    rubric_diagnostics,
    smoothed,
)
from training.reward.advantages import ADVANTAGE_EPS, grpo_advantages
from training.reward.kinds import ABSOLUTE, LENGTH, PREFERENCE
from training.reward.rubric import PRESETS, signal_specs
from training.reward.spec import SignalSpec

V1 = signal_specs(PRESETS["v1"]["signals"])
JUDGES = [spec.name for spec in V1 if spec.kind == ABSOLUTE]


def v1_batch(seed: int = 0, groups: int = 20, size: int = 8):
    """Rollouts scored by v1: the judges are a latent quality plus small noise, the preference
    score is independent of it, the ramp is 1.0 for everyone except in the last group, and the
    gates are always passed."""
    rng = np.random.default_rng(seed)
    values, labels = [], []
    for g in range(groups):
        prompt_quality = rng.uniform(0.3, 0.7)
        for _ in range(size):
            quality = prompt_quality + rng.normal(0, 0.12)
            row = {}
            for spec in V1:
                if spec.kind == ABSOLUTE:
                    row[spec.key] = float(np.clip(quality + rng.normal(0, 0.03), 0, 1))
                elif spec.kind == LENGTH:
                    row[spec.key] = 1.0 if g < groups - 1 else float(rng.uniform(0.9, 1.0))
                elif spec.kind == PREFERENCE:
                    row[spec.key] = float(rng.uniform(0, 1))
                else:
                    row[spec.key] = 1.0
            values.append(row)
            labels.append(f"prompt {g}")
    return values, labels


@pytest.fixture(scope="module")
def v1_report():
    values, labels = v1_batch()
    return rubric_diagnostics(V1, values, labels)


def signal(report: dict, name: str) -> dict:
    return next(item for item in report["signals"] if item["name"] == name)


def r_between(report: dict, a: str, b: str) -> float | None:
    names = report["correlation"]["names"]
    return report["correlation"]["matrix"][names.index(a)][names.index(b)]


class TestRedundantJudges:
    def test_judges_that_copy_one_quality_correlate_above_threshold(self, v1_report):
        for a in JUDGES:
            for b in JUDGES:
                if a != b:
                    assert r_between(v1_report, a, b) > 0.85

    def test_each_judge_is_flagged_with_the_other_judges_as_partners(self, v1_report):
        for name in JUDGES:
            item = signal(v1_report, name)
            assert "redundant" in item["flags"]
            assert sorted(item["redundant_with"]) == sorted(set(JUDGES) - {name})
        pairs = {frozenset((pair["a"], pair["b"])) for pair in v1_report["redundant"]}
        assert pairs == {frozenset((a, b)) for a in JUDGES for b in JUDGES if a < b}

    def test_independent_preference_is_not_redundant(self, v1_report):
        item = signal(v1_report, "preference")
        assert "redundant" not in item["flags"] and item["redundant_with"] == []
        assert all(abs(r_between(v1_report, "preference", name)) < 0.4 for name in JUDGES)

    def test_specs_sharing_a_key_correlate_one(self):
        specs = [SignalSpec("beauty", ABSOLUTE, 0.5, {"criterion": "beauty"}),
                 SignalSpec("beauty again", ABSOLUTE, 0.5, {"criterion": "beauty"}),
                 SignalSpec("preference", PREFERENCE, 1.0)]
        rng = np.random.default_rng(1)
        values = [{specs[0].key: float(rng.random()), specs[2].key: float(rng.random())}
                  for _ in range(12)]
        report = rubric_diagnostics(specs, values, ["a"] * 6 + ["b"] * 6)
        assert r_between(report, "beauty", "beauty again") == pytest.approx(1.0)
        assert signal(report, "beauty")["redundant_with"] == ["beauty again"]

    def test_agreement_only_between_groups_is_not_redundant(self):
        """Two signals that follow the prompt's difficulty but vary independently within each
        group carry independent information for GRPO: correlation is on group-centred values."""
        specs = [SignalSpec("x", PREFERENCE, 1.0), SignalSpec("y", ABSOLUTE, 1.0)]
        rng = np.random.default_rng(2)
        values, labels = [], []
        for g in range(30):
            level = g / 30
            for _ in range(6):
                values.append({specs[0].key: level + 0.05 * rng.random(),
                               specs[1].key: level + 0.05 * rng.random()})
                labels.append(g)
        raw = pearson([row[specs[0].key] for row in values], [row[specs[1].key] for row in values])
        report = rubric_diagnostics(specs, values, labels)
        assert raw > 0.95
        assert abs(r_between(report, "x", "y")) < 0.4
        assert report["redundant"] == []


class TestSaturatedRamp:
    def test_ramp_maxed_in_most_groups_is_saturated(self, v1_report):
        ramp = signal(v1_report, "length ramp")
        assert ramp["zero_spread_groups"] == pytest.approx(19 / 20)
        assert ramp["std"] > 0
        assert "saturated" in ramp["flags"] and "dead" not in ramp["flags"]

    def test_ramp_gets_almost_no_effective_share_despite_a_third_of_the_weight(self, v1_report):
        ramp = signal(v1_report, "length ramp")
        assert ramp["weight"] == 0.33 and ramp["weight_share"] == pytest.approx(0.33 / 1.0)
        assert 0 <= ramp["effective_share"] < 0.01

    def test_tiny_spread_in_every_group_is_saturated(self):
        specs = [SignalSpec("flat", PREFERENCE, 1.0), SignalSpec("judge", ABSOLUTE, 1.0)]
        rng = np.random.default_rng(3)
        values = [{specs[0].key: 0.9 + (SATURATED_WITHIN_STD / 2) * rng.random(),
                   specs[1].key: float(rng.random())} for _ in range(40)]
        report = rubric_diagnostics(specs, values, [i // 4 for i in range(40)])
        assert signal(report, "flat")["zero_spread_groups"] == 0
        assert "saturated" in signal(report, "flat")["flags"]
        assert signal(report, "judge")["flags"] == []


class TestDeadSignal:
    def test_constant_gate_is_dead_with_undefined_correlation(self, v1_report):
        gate = signal(v1_report, "compiles")
        assert gate["std"] == 0 and "dead" in gate["flags"]
        assert "saturated" not in gate["flags"]
        assert all(r is None for r in v1_report["correlation"]["matrix"][0])
        assert gate["effective_share"] == pytest.approx(0.0, abs=1e-12)

    def test_signal_without_any_value_is_dead_and_missing(self):
        specs = [SignalSpec("judge", ABSOLUTE, 1.0), SignalSpec("preference", PREFERENCE, 1.0)]
        values = [{specs[0].key: v / 10, specs[1].key: None} for v in range(6)]
        report = rubric_diagnostics(specs, values, ["a", "a", "a", "b", "b", "b"])
        assert signal(report, "preference")["flags"] == ["missing", "dead"]
        assert signal(report, "preference")["mean"] is None


class TestMissingValues:
    SPECS = [SignalSpec("judge", ABSOLUTE, 0.6), SignalSpec("preference", PREFERENCE, 0.4)]

    def batch(self):
        judge, pref = (spec.key for spec in self.SPECS)
        values = [{judge: 0.8, pref: 0.2}, {judge: 0.4, pref: None}, {judge: 0.6, pref: 0.9},
                  {judge: 0.1, pref: 0.5}, {judge: 0.3, pref: None}, {judge: 0.7, pref: 0.6}]
        return values, ["a", "a", "a", "b", "b", "b"]

    def test_none_is_counted_as_missing_and_left_out_of_the_mean(self):
        values, labels = self.batch()
        report = rubric_diagnostics(self.SPECS, values, labels)
        pref = signal(report, "preference")
        assert (pref["n"], pref["missing"]) == (4, 2)
        assert pref["missing_share"] == pytest.approx(2 / 6)
        assert pref["mean"] == pytest.approx((0.2 + 0.9 + 0.5 + 0.6) / 4)
        assert "missing" in pref["flags"]

    def test_a_rollout_with_a_weighted_signal_missing_has_no_total_never_a_partial_one(self):
        values, labels = self.batch()
        pref = self.SPECS[1].key
        zeroed = [{**row, pref: 0.0 if row[pref] is None else row[pref]} for row in values]
        complete = [row for row in values if row[pref] is not None]
        with_none = rubric_diagnostics(self.SPECS, values, labels)
        # Rollouts 2 and 5 (no preference) have no total: not the judge's value alone.
        assert with_none["total"]["n"] == 4 and with_none["total"]["missing"] == 2
        assert with_none["advantages"]["values"][1] is None
        assert with_none["advantages"]["values"][4] is None
        assert with_none["total"]["mean"] == pytest.approx(
            statistics.fmean(0.6 * r[self.SPECS[0].key] + 0.4 * r[pref] for r in complete))
        assert with_none["total"]["mean"] != pytest.approx(
            rubric_diagnostics(self.SPECS, zeroed, labels)["total"]["mean"])

    def test_effective_share_counts_every_rollout_with_a_total(self):
        values, labels = self.batch()
        report = rubric_diagnostics(self.SPECS, values, labels)
        assert report["effective_rows"] == 4
        assert sum(report["effective_share"]) == pytest.approx(1.0)

    def test_a_signal_missing_everywhere_leaves_no_total_and_no_share(self):
        values, labels = self.batch()
        pref = self.SPECS[1].key
        blind = [{**row, pref: None} for row in values]
        report = rubric_diagnostics(self.SPECS, blind, labels)
        assert report["total"]["n"] == 0 and report["effective_rows"] == 0
        assert report["effective_share"] == [None, None]

    def test_nan_counts_as_missing(self):
        values, labels = self.batch()
        values[0] = {**values[0], self.SPECS[1].key: float("nan")}
        report = rubric_diagnostics(self.SPECS, values, labels)
        assert signal(report, "preference")["missing"] == 3
        json.dumps(report, allow_nan=False)


class TestAdvantages:
    """Totals a: 0.2 0.4 0.9 | b: 0.5 0.5 (no spread) | c: 0.1 None 0.3."""
    SPECS = [SignalSpec("pairwise", "pairwise", 1.0, {"k": 2, "okay_share": 0.0})]
    TOTALS = [0.2, 0.4, 0.9, 0.5, 0.5, 0.1, None, 0.3]
    GROUPS = ["a", "a", "a", "b", "b", "c", "c", "c"]
    DEVIATIONS = [-0.3, -0.1, 0.4, 0.0, 0.0, -0.1, None, 0.1]

    def report(self, scale_rewards):
        values = [{self.SPECS[0].key: total} for total in self.TOTALS]
        return rubric_diagnostics(self.SPECS, values, self.GROUPS, scale_rewards=scale_rewards)

    def test_group_scaling_divides_by_each_groups_unbiased_std(self):
        std_a, std_c = math.sqrt((0.09 + 0.01 + 0.16) / 2), math.sqrt(0.02)
        scale = [std_a] * 3 + [1.0] * 2 + [std_c] * 3
        expected = [None if d is None else d / (s + ADVANTAGE_EPS) if d else 0.0
                    for d, s in zip(self.DEVIATIONS, scale, strict=True)]
        advantages = self.report("group")["advantages"]
        assert advantages["scale_rewards"] == "group"
        assert advantages["values"][6] is None
        assert advantages["values"] == pytest.approx(expected)

    def test_batch_scaling_divides_by_the_batchs_unbiased_std(self):
        batch_std = statistics.stdev([t for t in self.TOTALS if t is not None])
        expected = [None if d is None else d / (batch_std + ADVANTAGE_EPS)
                    for d in self.DEVIATIONS]
        assert self.report("batch")["advantages"]["values"] == pytest.approx(expected)

    def test_no_scaling_keeps_the_deviation_from_the_group_mean(self):
        assert self.report("none")["advantages"]["values"] == pytest.approx(self.DEVIATIONS)

    def test_group_with_identical_totals_has_zero_advantages_and_counts_as_zero_group(self):
        advantages = self.report("group")["advantages"]
        assert advantages["values"][3:5] == [0.0, 0.0]
        assert advantages["zero_groups"] == pytest.approx(1 / 3)

    def test_summary_mean_abs_and_histogram_cover_the_scored_rollouts(self):
        advantages = self.report("none")["advantages"]
        assert advantages["mean_abs"] == pytest.approx(1.0 / 7)
        assert sum(advantages["histogram"]["counts"]) == 7
        assert len(advantages["histogram"]["edges"]) == len(advantages["histogram"]["counts"]) + 1

    def test_unknown_scale_rewards_is_refused(self):
        with pytest.raises(ValueError, match="scale_rewards"):
            self.report("std")

    def test_group_scaling_matches_trl_formula_in_torch(self):
        """TRL's GRPOTrainer (sum_then_normalize): nanmean and Bessel-corrected nanstd per
        group of num_generations, (r - mean) / (std + 1e-4), NaN advantages turned to 0."""
        import torch
        generations = 4
        rng = np.random.default_rng(4)
        totals = rng.uniform(0, 1, 40)
        totals[[3, 17, 18]] = np.nan
        totals[8:12] = 0.7  # a group without spread
        labels = [i // generations for i in range(totals.size)]
        rewards = torch.tensor(totals, dtype=torch.float64).view(-1, generations)
        mean = torch.nanmean(rewards, dim=1, keepdim=True)
        count = (~torch.isnan(rewards)).sum(dim=1, keepdim=True)
        variance = torch.nanmean((rewards - mean) ** 2, dim=1, keepdim=True) * count / (count - 1)
        trl = torch.nan_to_num((rewards - mean) / (variance.sqrt() + ADVANTAGE_EPS), nan=0.0)
        ours = grpo_advantages([None if math.isnan(t) else t for t in totals], labels)
        assert [i for i, a in enumerate(ours) if a is None] == [3, 17, 18]
        ours_as_trl = [0.0 if a is None else a for a in ours]
        assert ours_as_trl == pytest.approx(trl.flatten().tolist(), abs=1e-9)


class TestEffectiveShare:
    def test_shares_add_up_to_one(self, v1_report):
        assert sum(v1_report["effective_share"]) == pytest.approx(1.0)
        assert v1_report["effective_rows"] == v1_report["rollouts"]
        assert [item["effective_share"] for item in v1_report["signals"]] == \
            v1_report["effective_share"]

    def test_informative_signals_carry_the_share(self, v1_report):
        judges = sum(signal(v1_report, name)["effective_share"] for name in JUDGES)
        assert judges + signal(v1_report, "preference")["effective_share"] > 0.98

    def test_shares_are_none_when_the_total_has_no_spread_within_groups(self):
        specs = [SignalSpec("judge", ABSOLUTE, 1.0)]
        values = [{specs[0].key: 0.3}, {specs[0].key: 0.3}, {specs[0].key: 0.8},
                  {specs[0].key: 0.8}]
        report = rubric_diagnostics(specs, values, ["a", "a", "b", "b"])
        assert report["effective_share"] == [None]
        assert report["advantages"]["zero_groups"] == 1.0


class TestPearson:
    def test_known_value_on_pairwise_complete_rows(self):
        assert pearson([1, 2, 3, None], [2, 4, 6, 100]) == pytest.approx(1.0)
        assert pearson([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
        x, y = [1.0, 2.0, 4.0, 7.0], [2.0, 1.0, 5.0, 6.0]
        assert pearson(x, y) == pytest.approx(float(np.corrcoef(x, y)[0, 1]))

    def test_undefined_is_none(self):
        assert pearson([0.5, 0.5, 0.5], [1, 2, 3]) is None
        assert pearson([1, None], [None, 2]) is None
        assert pearson([], []) is None


class TestJsonSafe:
    @pytest.mark.parametrize("values, labels", [
        ([{V1[3].key: 0.4}], ["only"]),
        ([{} for _ in range(5)], list("aabbc")),
        ([{spec.key: None for spec in V1} for _ in range(4)], ["one"] * 4),
        ([], []),
    ], ids=["one rollout", "no values", "all none in one group", "empty"])
    def test_degenerate_inputs_give_json_without_nan(self, values, labels):
        report = rubric_diagnostics(V1, values, labels)
        json.dumps(report, allow_nan=False)
        assert report["rollouts"] == len(values)
        assert len(report["signals"]) == len(V1)

    def test_full_report_is_json_safe_in_every_mode(self):
        values, labels = v1_batch(seed=5, groups=6, size=4)
        advantages = {}
        for mode in ("group", "batch", "none"):
            report = rubric_diagnostics(V1, values, labels, scale_rewards=mode)
            # Strict JSON (no NaN or infinity) that reads back as the very report.
            assert json.loads(json.dumps(report, allow_nan=False)) == report
            assert report["rollouts"] == 24 and report["total"]["n"] == 24
            advantages[mode] = report["advantages"]["values"]
            assert None not in advantages[mode]
        assert advantages["group"] != advantages["batch"] != advantages["none"]

    def test_all_none_rollouts_have_no_total_and_no_advantage(self):
        report = rubric_diagnostics(V1, [{} for _ in range(3)], ["a"] * 3)
        assert report["total"]["n"] == 0 and report["total"]["mean"] is None
        assert report["advantages"]["values"] == [None] * 3
        assert report["advantages"]["zero_groups"] is None
        assert report["advantages"]["histogram"] == {"edges": [], "counts": []}

    def test_report_keys(self, v1_report):
        assert set(v1_report) >= {"rollouts", "groups", "group_sizes", "signals", "correlation",
                                  "redundant", "effective_share", "effective_rows", "total",
                                  "advantages"}
        assert v1_report["group_sizes"] == {"min": 8, "median": 8.0, "max": 8}
        assert set(v1_report["signals"][0]) >= {
            "name", "kind", "key", "weight", "weight_share", "n", "missing", "missing_share",
            "mean", "std", "within_std", "zero_spread_groups", "effective_share", "flags",
            "redundant_with"}

    def test_mismatched_lengths_are_refused(self):
        with pytest.raises(ValueError, match="group labels"):
            rubric_diagnostics(V1, [{}], ["a", "b"])


class TestReaching:
    """The rubric race's arithmetic: a centred mean, and the first step at or above a level."""

    def test_a_centred_mean_uses_what_exists_at_the_ends(self):
        assert smoothed([0.0, 3.0, 6.0, 3.0]) == [1.5, 3.0, 4.0, 4.5]
        assert smoothed([1.0, 2.0], window=1) == [1.0, 2.0]
        with pytest.raises(ValueError, match="window must be at least 1"):
            smoothed([1.0], window=0)

    def test_one_lucky_point_does_not_reach_a_level(self):
        steps = [0, 5, 10, 15, 20, 25]
        values = [0.2, 0.6, 0.2, 0.3, 0.5, 0.5]
        # Unsmoothed, step 5 would count; the centred mean first reaches 0.43 at step 20.
        assert first_reaching(steps, values, 0.43, window=1) == 5
        assert first_reaching(steps, values, 0.43) == 20
        assert first_reaching(steps, values, 0.9) is None
        with pytest.raises(ValueError, match="6 steps but 2 values"):
            first_reaching(steps, [0.1, 0.2], 0.1)
