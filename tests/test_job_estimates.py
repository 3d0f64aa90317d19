"""jobs.estimates: time left from the pace of the recent work, and
"estimating…" until there is enough of it."""
from __future__ import annotations

import pytest

from jobs.estimates import ESTIMATING, Estimate, estimate_left, samples_from_durations


class TestSteadyWork:
    def test_a_steady_pace_gives_the_time_left_at_that_pace(self):
        samples = [(t * 10.0, float(t)) for t in range(31)]  # one unit every 10 s
        assert estimate_left(samples, total=100).seconds == pytest.approx(700)

    def test_finished_work_has_nothing_left(self):
        assert estimate_left([(0.0, 0.0), (5.0, 3.0)], total=3).seconds == 0


class TestWorkThatChangedPace:
    def test_a_slow_first_step_is_forgotten(self):
        # The demo's run: a first step of 8 min (loading), then 1 min a step.
        samples = samples_from_durations([480] + [60] * 10)
        estimate = estimate_left(samples, total=111)
        assert estimate.seconds == pytest.approx(100 * 60)  # not the mean's ~100 x 98 s

    def test_work_that_slowed_down_is_estimated_at_the_new_pace(self):
        fast = [(t * 1.0, float(t)) for t in range(600)]  # 1 a second for 10 min
        slow = [(600.0 + t * 10, 600.0 + t) for t in range(1, 61)]  # then 1 per 10 s
        estimate = estimate_left(fast + slow, total=760)
        assert estimate.seconds == pytest.approx(100 * 10)


class TestTooLittleData:
    def test_nothing_done_yet_is_estimating(self):
        assert estimate_left([], total=10).seconds is None
        assert estimate_left([(0.0, 0.0)], total=10).seconds is None

    def test_one_unit_done_is_estimating(self):
        samples = samples_from_durations([480])
        assert estimate_left(samples, total=3).text() == ESTIMATING

    def test_a_few_seconds_of_work_is_estimating(self):
        samples = [(0.0, 0.0), (2.0, 50.0)]
        assert estimate_left(samples, total=1000).seconds is None


class TestText:
    @pytest.mark.parametrize(("seconds", "text"), [
        (None, "estimating…"), (20, "less than a minute left"), (240, "about 4 min left"),
        (3 * 3600, "about 3 h left"), (5400 + 720, "about 1.7 h left")])
    def test_the_words(self, seconds, text):
        assert Estimate(seconds).text() == text


class TestARunsTimeLeft:
    """training.runs.callbacks writes the run's eta_s from the estimator."""

    def callback(self, max_steps: int, step_seconds: list[float]):
        from training.runs.callbacks import RunCallback, StepBook

        callback = RunCallback(lease=None, book=StepBook(), max_steps=max_steps)
        callback._step_seconds = step_seconds
        return callback

    def test_a_slow_first_step_does_not_inflate_the_estimate(self):
        progress = self.callback(111, [480] + [60] * 10)._progress(11, stage="training")
        assert progress["eta_s"] == pytest.approx(100 * 60)

    def test_after_one_step_it_is_estimating(self):
        assert self.callback(3, [480])._progress(1, stage="training")["eta_s"] is None

    @pytest.mark.django_db
    def test_the_run_page_says_estimating_until_the_pace_is_known(self, staff_client, client):
        from django.urls import reverse

        from tests.run_data import run_create

        run = run_create(progress={"stage": "training", "step": 1, "max_steps": 4,
                                   "eta_s": None})
        text = client.get(reverse("training:run", args=[run.pk])).content.decode()
        assert "(25%), time left: estimating…" in text


class TestPolicyBuild:
    """A build's time left is SFT's own pace: the corpus and tokenizer before
    it are not part of it."""

    def progress(self, *, done: float, sft_elapsed_s: float, setup_s: float):
        from datetime import timedelta

        from django.utils import timezone

        from training.models import PolicyBuild
        from training.policy.selectors import policy_build_progress

        started = timezone.now() - timedelta(seconds=setup_s + sft_elapsed_s)
        return policy_build_progress(PolicyBuild(
            status="running", started=started,
            progress={"done": done, "sft_elapsed_s": sft_elapsed_s}))

    def test_setup_time_does_not_count(self):
        # 13 min in, 8 of them setup, SFT 5 min in and half done: 5 min left.
        progress = self.progress(done=0.5, sft_elapsed_s=300, setup_s=480)
        assert progress.paced and progress.eta_s == pytest.approx(300)

    def test_too_little_sft_is_estimating(self):
        progress = self.progress(done=0.01, sft_elapsed_s=3, setup_s=480)
        assert progress.eta_s is None
