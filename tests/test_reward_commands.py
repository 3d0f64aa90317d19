"""`train_reward_model` end to end on a small graded set: it trains here,
prints progress and the held-out accuracy, activates and scores; --queue
leaves the training to the short worker."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from pool.models import RewardModel
from sketches.models import Render
from tests.reward_data import toy_graded_renders


@pytest.mark.django_db
class TestTrainRewardModelCommand:
    def test_trains_activates_and_scores_in_process(self, media, capsys):
        toy_graded_renders(45)
        call_command("train_reward_model", "--epochs", "5", "--image-size", "32",
                     "--source", "human", "--activate")
        out = capsys.readouterr().out
        assert "epoch   5/5" in out and "held-out pairwise accuracy" in out
        assert "Activated v1; scored 45 renders." in out
        model = RewardModel.objects.get()
        assert model.status == "done" and model.active
        assert Render.objects.filter(taste_score__isnull=False).count() == 45

    def test_queue_only_creates_the_job(self, django_capture_on_commit_callbacks, capsys):
        with django_capture_on_commit_callbacks() as callbacks:
            call_command("train_reward_model", "--queue", "--activate")
        assert "Queued reward model v1" in capsys.readouterr().out
        model = RewardModel.objects.get()
        assert model.status == "queued" and model.config["activate"] is True
        assert len(callbacks) == 1

    def test_a_failed_training_is_a_command_error(self, media):
        with pytest.raises(CommandError, match="failed"):
            call_command("train_reward_model", "--source", "simulated", "--epochs", "1")


@pytest.mark.django_db
class TestScoreRendersCommand:
    def test_scores_only_what_the_active_model_has_not_scored(self, media, capsys):
        import random

        from tests.reward_data import toy_render

        with pytest.raises(CommandError, match="no reward model is active"):
            call_command("score_renders")
        toy_graded_renders(45)
        call_command("train_reward_model", "--epochs", "2", "--image-size", "32",
                     "--source", "human", "--activate")
        toy_render(grade="love", rng=random.Random(9), index=500)  # finished after activation
        capsys.readouterr()
        call_command("score_renders")
        assert "Scored 1 renders" in capsys.readouterr().out
        call_command("score_renders", "--all")
        assert "Scored 46 renders" in capsys.readouterr().out
