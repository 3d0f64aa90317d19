"""The overoptimisation curve (training/runs/overoptimisation.py): the
yardstick on each step's rollouts against the reward, smoothed, with where
gold stopped rising said only on the evidence; on the run page and the
compare page for a run whose probe the gold judge scores."""
from __future__ import annotations

import html
import math

import pytest
from django.urls import reverse

from tests.run_data import fresh, make_run
from training.models import TrainingRun, TrainingStep
from training.runs.callbacks import StepBook
from training.runs.overoptimisation import (
    MIN_STEPS,
    CurvePoint,
    curve_summary,
    curve_verdict,
    run_curve,
)
from training.runs.rewards import RubricReward


def wobble(step: int) -> float:
    """A fixed, zero-mean ripple: a curve that is not a straight line."""
    return 0.01 * math.sin(1.7 * step)


def points(gold, proxy, steps: int = 40, kl=None) -> list[CurvePoint]:
    return [CurvePoint(step=s, proxy=proxy(s) + wobble(s + 3), gold=gold(s) + wobble(s),
                       kl=None if kl is None else kl(s)) for s in range(1, steps + 1)]


def rising(step: int) -> float:
    return 0.3 + 0.004 * step


def peaked(step: int) -> float:
    return 0.3 + 0.006 * min(step, 15) - 0.004 * max(0, step - 15)


class TestSummary:
    def test_gold_rising_with_the_proxy_is_no_turn(self):
        summary = curve_summary(points(gold=rising, proxy=rising))
        assert not summary["stopped_rising"]
        assert summary["gold_trend"]["slope"] > 0 and summary["gold_trend"]["t"] > 3
        assert summary["end_gold"] > summary["start_gold"]
        assert curve_verdict(summary).startswith("gold rose over the run")

    def test_gold_falling_while_the_proxy_rises_is_where_it_stopped_rising(self):
        summary = curve_summary(points(gold=peaked, proxy=rising))
        assert summary["stopped_rising"]
        assert 12 <= summary["peak_step"] <= 18
        assert summary["gold_after_peak"]["slope"] < 0 < summary["proxy_after_peak"]["slope"]
        verdict = curve_verdict(summary)
        assert verdict.startswith(f"gold stopped rising at step {summary['peak_step']}")
        assert "while the proxy went on" in verdict

    def test_both_falling_after_a_peak_is_not_the_proxy_outrunning_gold(self):
        summary = curve_summary(points(gold=peaked, proxy=peaked))
        assert not summary["stopped_rising"]

    def test_a_peak_in_the_runs_last_fifth_is_the_curves_end_not_a_turn(self):
        late = [CurvePoint(step=s, proxy=rising(s), gold=peaked(s - 22), kl=None)
                for s in range(1, 41)]
        summary = curve_summary(late)
        assert summary["peak_step"] > 32 and not summary["stopped_rising"]

    def test_too_few_steps_say_nothing_and_kl_is_kept_where_measured(self):
        assert curve_summary(points(gold=rising, proxy=rising, steps=MIN_STEPS - 1)) is None
        assert curve_summary(points(gold=rising, proxy=rising))["kl"] is None
        with_kl = curve_summary(points(gold=rising, proxy=rising, kl=lambda s: 0.001 * s))
        assert with_kl["kl"][:3] == [0.001, 0.002, 0.003]


GOLD_PLAN = {"every": 5, "yardstick": {
    "id": 1, "version": 9, "role": "gold",
    "gold": {"recipe": 1, "painter": {"seeds": [3000000, 3002399], "size": 256,
                                      "sketches": 2400},
             "renders": 2400, "weights_sha256": "ab" * 32, "heldout_pairwise_accuracy": 0.93}},
    "judge_reward_model": 3, "prompts": ["a red barn"], "samples": 1, "seeds": [0],
    "references": []}


@pytest.mark.django_db
class TestPages:
    def gold_run(self, tmp_path, *, kl: bool = False) -> TrainingRun:
        """A finished run whose probe the gold judge scored: gold peaks at step
        15 while the reward keeps rising."""
        run = make_run(tmp_path, status=TrainingRun.Status.DONE, probe_every=5)
        TrainingRun.objects.filter(pk=run.pk).update(launched_config={"probe": GOLD_PLAN})
        TrainingStep.objects.bulk_create(
            TrainingStep(run=run, step=p.step, reward_mean=p.proxy, yardstick_mean=p.gold,
                         metrics={"loss": 0.1, **({"kl": 0.002 * p.step} if kl else {})})
            for p in points(gold=peaked, proxy=rising))
        return fresh(run)

    def page(self, client, run: TrainingRun) -> str:
        return html.unescape(client.get(reverse("training:run", args=[run.pk])).content.decode())

    def test_the_run_page_shows_gold_against_proxy_and_where_gold_stopped_rising(
            self, staff_client, media, tmp_path):
        run = self.gold_run(tmp_path)
        assert [p.step for p in run_curve(run)] == list(range(1, 41))
        page = self.page(staff_client, run)
        section = page[page.index('id="overoptimisation"'):page.index('id="probe"')]
        assert "<h2>Gold against proxy</h2>" in section
        assert "gold judge v9, 0.930 held-out accuracy on the painter's tiers" in section
        assert 'aria-label="Gold and proxy per step"' in section
        assert 'aria-label="Gold against proxy"' in section
        assert 'aria-label="Gold against KL"' not in section  # beta 0: no KL measured
        summary = curve_summary(run_curve(run))
        assert f"Gold stopped rising at step {summary['peak_step']}" in section
        # The probe section names the gold judge too.
        assert ("scored by gold judge v9, 0.930 held-out accuracy on the painter's tiers "
                "(disjoint by sketch code from v3, the judge's reward model)") in page

    def test_with_kl_measured_gold_is_drawn_against_it(self, staff_client, media, tmp_path):
        run = self.gold_run(tmp_path, kl=True)
        page = self.page(staff_client, run)
        assert 'aria-label="Gold against KL"' in page
        assert "KL from the start policy" in page

    def test_a_run_with_few_steps_scored_says_what_the_curve_needs(self, staff_client, media,
                                                                   tmp_path):
        run = make_run(tmp_path, status=TrainingRun.Status.RUNNING, probe_every=5)
        TrainingRun.objects.filter(pk=run.pk).update(launched_config={"probe": GOLD_PLAN})
        page = self.page(staff_client, run)
        assert "No step scored yet" in page
        TrainingStep.objects.create(run=run, step=1, reward_mean=0.3, yardstick_mean=0.4)
        page = self.page(staff_client, run)
        assert "1 step scored: the smoothed curve and its verdict need 12." in page

    def test_the_compare_page_draws_each_runs_gold(self, staff_client, media, tmp_path):
        run, other = self.gold_run(tmp_path), make_run(tmp_path, status=TrainingRun.Status.DONE)
        page = html.unescape(staff_client.get(reverse("training:runs_compare"),
                                {"run": [run.pk, other.pk]}).content.decode())
        assert "aria-label=\"Gold (the yardstick on each step's rollouts)\"" in page
        assert f"tiny (#{run.pk})" in page


class TestRolloutScores:
    def reward(self, yardstick) -> RubricReward:
        return RubricReward(run_id=1, specs=[], context=None, num_generations=2,
                            scale_rewards="group", seed=0, renderer=None, lease=None,
                            book=StepBook(notices=[]), yardstick=yardstick)

    def test_the_mean_leaves_out_what_has_no_score(self):
        reward = self.reward(lambda outcomes: [0.0, None, 0.6])
        assert reward._yardstick_mean(["a", "b", "c"]) == pytest.approx(0.3)
        assert self.reward(lambda outcomes: [None])._yardstick_mean(["a"]) is None
        assert self.reward(None)._yardstick_mean(["a"]) is None

    def test_a_yardstick_that_fails_loses_the_score_not_the_step(self):
        def broken(outcomes):
            raise OSError("weights file gone")

        reward = self.reward(broken)
        assert reward._yardstick_mean(["a"]) is None
        assert reward.book.notices == [
            "the yardstick could not score the rollouts (OSError: weights file gone)"]
