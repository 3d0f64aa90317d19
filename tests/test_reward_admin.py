"""The reward models in the admin: the train button queues a job, the list
and page show progress and metrics, and cancel and activate work from both."""
from __future__ import annotations

import pytest
from django.urls import reverse

from pool.models import RewardModel
from pool.reward import services
from tests.reward_data import SMALL_CONFIG, media_settings, toy_graded_renders


@pytest.fixture
def staff(client, django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "pw-long-1")
    client.force_login(user)
    return client


@pytest.mark.django_db
class TestRewardModelAdmin:
    def test_the_train_button_queues_a_new_version(self, staff,
                                                   django_capture_on_commit_callbacks):
        listing = staff.get(reverse("admin:pool_rewardmodel_changelist"))
        train_url = reverse("admin:pool_rewardmodel_train")
        assert train_url in listing.content.decode()
        assert staff.get(train_url).status_code == 200
        with django_capture_on_commit_callbacks() as callbacks:
            response = staff.post(train_url, {"sources": "auto", "max_epochs": 5,
                                               "image_size": 32, "seed": 1, "model": "cnn"})
        job = RewardModel.objects.get()
        assert response.status_code == 302 and str(job.pk) in response["Location"]
        assert job.config["max_epochs"] == 5 and job.created_by.username == "boss"
        assert len(callbacks) == 1

    def test_progress_shows_and_cancel_stops_a_running_job(self, staff):
        job = services.reward_model_create(queue=False)
        RewardModel.objects.filter(pk=job.pk).update(
            status="running", progress={"stage": "training", "epoch": 3, "max_epochs": 40,
                                        "validation_accuracy": 0.71})
        listing = staff.get(reverse("admin:pool_rewardmodel_changelist")).content.decode()
        assert "epoch 3/40" in listing and 'http-equiv="refresh"' in listing
        page = staff.get(reverse("admin:pool_rewardmodel_change", args=[job.pk]))
        assert "Cancel training" in page.content.decode()
        staff.post(reverse("admin:pool_rewardmodel_cancel", args=[job.pk]))
        job.refresh_from_db()
        assert job.cancel_requested and job.status == "running"

    def test_a_finished_model_shows_metrics_and_activates(self, staff, settings, tmp_path,
                                                          django_capture_on_commit_callbacks):
        media_settings(settings, tmp_path)
        toy_graded_renders(45)
        job = services.reward_model_create(config={**SMALL_CONFIG, "max_epochs": 3},
                                           queue=False)
        services.reward_model_train(reward_model_id=job.pk)
        page = staff.get(reverse("admin:pool_rewardmodel_change", args=[job.pk])).content
        assert b"Held-out (test split) pairwise accuracy" in page
        assert b"Activate and score renders" in page
        with django_capture_on_commit_callbacks() as callbacks:
            staff.post(reverse("admin:pool_rewardmodel_changelist"),
                       {"action": "activate_selected", "_selected_action": [job.pk]})
        job.refresh_from_db()
        assert job.active and len(callbacks) == 1
