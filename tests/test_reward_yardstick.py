"""A yardstick: a reward model trained on grades disjoint from another
model's training split (none of its train renders, nor any render sharing a
sketch code with one), refused with the reason where that leaves too little
or the other model cannot be read; the admin's action queues one.

Real reward-model training (tests/reward_data.py's toy renders, whose grade
follows their hue), in this process: the short worker's task calls the same
service."""
from __future__ import annotations

import random

import pytest
from django.urls import reverse

from jobs.runner import job_run_here
from pool.models import RewardModel
from pool.reward import services
from pool.reward.data import TEST, TRAIN, VALIDATION
from pool.reward.disjoint import DisjointError
from pool.reward.selectors import yardstick_newest
from rating.models import Grade
from rating.services import curator_get_or_create, grade_record
from sketches.models import Render
from tests.reward_data import GRADES, SMALL_CONFIG, toy_graded_renders, toy_render

# 120 toy renders: the judge holds out about 42 of them (35 %), enough for the
# yardstick's own three splits to each hold two grades.
JUDGE_RENDERS = 120


def trained(job: RewardModel) -> RewardModel:
    done = job_run_here(kind="reward_model", pk=job.pk)
    assert done.status == RewardModel.Status.DONE, done.error
    return done


def judge_train() -> RewardModel:
    """A judge's reward model (under the test's `media`)."""
    toy_graded_renders(JUDGE_RENDERS)
    return trained(services.reward_model_create(config=SMALL_CONFIG, queue=False))


def graded_toy(index: int) -> Render:
    """A toy render graded by the same curator, of toy sketch `index`'s code
    (toy_render names its code by index: an index already used shares it)."""
    grade = GRADES[index % 3]
    render = toy_render(grade=grade, rng=random.Random(index), index=index, seed=1)
    grade_record(render=render, curator=curator_get_or_create(username="alice"), value=grade,
                 source=Grade.Source.APP)
    return render


def all_ids(reward_model: RewardModel) -> set[str]:
    return {key for ids in reward_model.training_data["render_ids"].values() for key in ids}


def codes(ids) -> set[str]:
    return set(Render.objects.filter(pk__in=[int(i) for i in ids])
               .values_list("sketch__code_sha256", flat=True))


@pytest.mark.django_db
class TestDisjointData:
    def test_a_yardstick_never_sees_the_judges_train_split_nor_its_sketch_codes(
            self, media):
        judge = judge_train()
        split = judge.training_data["render_ids"]
        train_ids = set(split[TRAIN])
        # Graded since the judge trained: a second render of six of its train
        # sketches' code (left out), and twelve sketches of new code (learnt from).
        twins = [graded_toy(int(Render.objects.get(pk=pk).sketch.prompt.split()[1]))
                 for pk in sorted(train_ids, key=int)[:6]]
        fresh = [graded_toy(500 + i) for i in range(12)]

        yardstick = trained(services.reward_model_yardstick_create(reward_model=judge,
                                                                   queue=False))
        seen = all_ids(yardstick)
        assert not seen & train_ids  # by render
        assert not codes(seen) & codes(train_ids)  # by sketch code
        assert not seen & {str(r.pk) for r in twins}
        assert {str(r.pk) for r in fresh} <= seen
        # What the judge held out is the yardstick's to learn from and measure on.
        assert set(split[VALIDATION]) | set(split[TEST]) <= seen
        assert yardstick.config["disjoint_from"] == judge.version
        assert yardstick.config["split_seed"] == judge.config["split_seed"] + 1
        assert yardstick.config["image_size"] == SMALL_CONFIG["image_size"]  # trained alike
        assert not yardstick.config["activate"] and not yardstick.active
        assert yardstick.training_data["disjoint_from"] == {
            "version": judge.version, "left_out": len(train_ids) + len(twins),
            "graded": JUDGE_RENDERS + len(twins) + len(fresh)}
        assert yardstick.metrics["heldout_pairwise_accuracy"] is not None
        assert yardstick_newest(judge) == yardstick and yardstick_newest(yardstick) is None

    def test_refused_when_the_other_version_does_not_exist_or_has_not_finished(
            self, media):
        toy_graded_renders(45)
        with pytest.raises(DisjointError, match="there is no reward model v9 to train a "
                                                "yardstick disjoint from"):
            services.reward_model_create(config={**SMALL_CONFIG, "disjoint_from": 9})
        queued = services.reward_model_create(config=SMALL_CONFIG, queue=False)
        with pytest.raises(DisjointError, match=f"reward model v{queued.version} is queued: "
                                                "only a finished model records"):
            services.reward_model_yardstick_create(reward_model=queued, queue=False)
        assert RewardModel.objects.count() == 1

    def test_refused_when_nothing_outside_the_judges_train_split_is_graded(
            self, media):
        judge = judge_train()
        split = judge.training_data["render_ids"]
        Grade.objects.filter(render_id__in=[int(i) for i in split[VALIDATION] + split[TEST]]
                             ).delete()
        with pytest.raises(DisjointError, match=rf"v{judge.version} trained on "
                                                rf"{len(split[TRAIN])} of the "
                                                rf"{len(split[TRAIN])} graded renders.*the 0 "
                                                "left are too few for a yardstick"):
            services.reward_model_yardstick_create(reward_model=judge, queue=False)

    def test_the_judges_split_seed_is_refused(self, media):
        judge = judge_train()
        with pytest.raises(DisjointError, match="split_seed 0 is the seed v1 split its grades "
                                                "with"):
            services.reward_model_create(config={**SMALL_CONFIG, "disjoint_from": judge.version},
                                         queue=False)

    def test_a_yardstick_job_refuses_when_the_grades_changed_since_it_was_queued(
            self, media):
        judge = judge_train()
        yardstick = services.reward_model_yardstick_create(reward_model=judge, queue=False)
        split = judge.training_data["render_ids"]
        Grade.objects.filter(render_id__in=[int(i) for i in split[VALIDATION] + split[TEST]]
                             ).delete()
        failed = job_run_here(kind="reward_model", pk=yardstick.pk)
        assert failed.status == RewardModel.Status.FAILED
        assert "DisjointError" in failed.error and "too few for a yardstick" in failed.error


@pytest.mark.django_db
class TestAdminAction:
    CHANGELIST = reverse("admin:pool_rewardmodel_changelist")

    def act(self, client, *models: RewardModel):
        return client.post(self.CHANGELIST, {"action": "train_yardstick_selected",
                                             "_selected_action": [m.pk for m in models]},
                           follow=True)

    def test_the_action_queues_a_yardstick_on_the_short_worker(
            self, media, admin_client, django_capture_on_commit_callbacks):
        judge = judge_train()
        with django_capture_on_commit_callbacks() as callbacks:
            page = self.act(admin_client, judge).content.decode()
        yardstick = RewardModel.objects.get(version=judge.version + 1)
        assert f"Training yardstick v{yardstick.version} on the short worker" in page
        assert yardstick.status == RewardModel.Status.QUEUED
        assert yardstick.config["disjoint_from"] == judge.version
        assert yardstick.created_by.username == "admin"
        assert len(callbacks) == 1  # the reward_model job, on the short queue
        trained(yardstick)
        change = admin_client.get(reverse("admin:pool_rewardmodel_change", args=[yardstick.pk]))
        assert f"A yardstick:</b> none of v{judge.version}'s train split" in (
            change.content.decode())

    def test_a_refusal_is_an_error_message(self, media, admin_client):
        queued = services.reward_model_create(config=SMALL_CONFIG, queue=False)
        page = self.act(admin_client, queued).content.decode()
        assert "is queued: only a finished model records the renders it trained on" in page
        assert RewardModel.objects.count() == 1
