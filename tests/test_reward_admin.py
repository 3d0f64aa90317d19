"""The reward models in the admin: the train button queues a job, the list
and page show progress and metrics, and cancel and activate work from both."""
from __future__ import annotations

import pytest
from django.urls import reverse

from jobs.runner import job_run_here
from pool.models import RewardModel
from pool.reward import services
from pool.reward.metrics import evidence_warning
from tests.reward_data import SMALL_CONFIG, toy_graded_renders


@pytest.mark.django_db
class TestRewardModelAdmin:
    def test_the_train_button_queues_a_new_version(self, admin_client,
                                                   django_capture_on_commit_callbacks):
        listing = admin_client.get(reverse("admin:pool_rewardmodel_changelist"))
        train_url = reverse("admin:pool_rewardmodel_train")
        assert train_url in listing.content.decode()
        form = admin_client.get(train_url)
        assert form.status_code == 200
        # None is active yet: the form offers to activate this one.
        assert form.context["form"]["activate"].initial is True
        assert b"No model is active now." in form.content
        with django_capture_on_commit_callbacks() as callbacks:
            response = admin_client.post(train_url, {"sources": "auto", "max_epochs": 5,
                                               "image_size": 32, "seed": 1, "model": "cnn"})
        job = RewardModel.objects.get()
        assert response.status_code == 302 and str(job.pk) in response["Location"]
        assert job.config["max_epochs"] == 5 and job.created_by.username == "admin"
        assert len(callbacks) == 1

    def test_progress_shows_and_cancel_stops_a_running_job(self, admin_client):
        job = services.reward_model_create(queue=False)
        RewardModel.objects.filter(pk=job.pk).update(
            status="running", progress={"stage": "training", "epoch": 3, "max_epochs": 40,
                                        "validation_accuracy": 0.71})
        listing = admin_client.get(reverse("admin:pool_rewardmodel_changelist")).content.decode()
        assert "epoch 3/40" in listing and 'http-equiv="refresh"' in listing
        page = admin_client.get(reverse("admin:pool_rewardmodel_change", args=[job.pk]))
        assert "Cancel training" in page.content.decode()
        admin_client.post(reverse("admin:pool_rewardmodel_cancel", args=[job.pk]))
        job.refresh_from_db()
        assert job.cancel_requested and job.status == "running"

    def test_a_finished_model_shows_metrics_and_activates(self, media, admin_client,
                                                          django_capture_on_commit_callbacks):
        toy_graded_renders(45)
        job = services.reward_model_create(config={**SMALL_CONFIG, "max_epochs": 3},
                                           queue=False)
        job_run_here(kind="reward_model", pk=job.pk)
        page = admin_client.get(reverse("admin:pool_rewardmodel_change", args=[job.pk])).content
        assert b"Held-out (test split) pairwise accuracy" in page
        assert b"Activate and score renders" in page
        job.refresh_from_db()
        test = job.metrics["test"]
        low, high = test["pairwise_accuracy_interval"]
        assert f"[{low:.2f}-{high:.2f}] on {test['pairs']} pairs".encode() in page
        # 45 toy renders leave about 12 in the test split: too few to trust,
        # and the page, the list and the activation all say so.
        assert evidence_warning(test) is not None
        assert b"Do not rely on this model" in page
        listing = admin_client.get(reverse("admin:pool_rewardmodel_changelist")).content
        assert b"too little evidence" in listing
        with django_capture_on_commit_callbacks() as callbacks:
            response = admin_client.post(reverse("admin:pool_rewardmodel_changelist"),
                                  {"action": "activate_selected", "_selected_action": [job.pk]},
                                  follow=True)
        job.refresh_from_db()
        assert job.active and len(callbacks) == 1
        assert "trained on too little to trust" in response.content.decode()

    def test_a_model_measured_on_enough_renders_carries_no_warning(self, admin_client):
        job = services.reward_model_create(queue=False)
        RewardModel.objects.filter(pk=job.pk).update(status="done", metrics={
            "heldout_pairwise_accuracy": 0.82, "epochs_run": 9,
            "test": {"pairs": 2400, "renders": 160, "pairwise_accuracy_interval": [0.77, 0.87],
                     "by_grade": {}, "calibration": {"bins": [], "ece": 0.05}}})
        listing = admin_client.get(reverse("admin:pool_rewardmodel_changelist")).content
        assert b"0.820 <small>[0.77-0.87] 2400 pairs</small>" in listing
        assert b"too little evidence" not in listing
        page = admin_client.get(reverse("admin:pool_rewardmodel_change", args=[job.pk])).content
        assert b"Do not rely on this model" not in page
