"""Using a trained reward model: activating one (only one is active),
scoring writes taste_score for finished renders only, and the grading
queue's "most informative first" order exists only while a model is active,
putting renders nearest a grade boundary first."""
from __future__ import annotations

import random

import pytest
from django.conf import settings as django_settings

from jobs.runner import job_run_here
from pool.models import RewardModel
from pool.reward import selectors, services
from pool.reward.scoring import model_label, renders_score
from rating import ordering
from sketches.models import Render
from tests.reward_data import SMALL_CONFIG, toy_graded_renders, toy_render


@pytest.fixture
def trained(media):
    renders = toy_graded_renders(45)
    job = services.reward_model_create(config={**SMALL_CONFIG, "max_epochs": 8}, queue=False)
    job = job_run_here(kind="reward_model", pk=job.pk)
    assert job.status == "done", job.error
    return job, renders


@pytest.mark.django_db
class TestScoring:
    def test_scoring_writes_a_score_for_every_finished_render_only(self, trained):
        job, renders = trained
        rng = random.Random(5)
        pending = toy_render(grade="love", rng=rng, index=900, status="pending")
        rejected = toy_render(grade="love", rng=rng, index=901, status="rejected")
        assert renders_score(reward_model=job) == 45
        scored = Render.objects.filter(taste_score__isnull=False)
        assert set(scored.values_list("taste_model", flat=True)) == {model_label(job)}
        assert scored.count() == 45
        for render in (pending, rejected):
            render.refresh_from_db()
            assert render.taste_score is None and render.taste_model == ""

    def test_scores_rank_the_toy_grades(self, trained):
        job, renders = trained
        renders_score(reward_model=job)
        means = {}
        for grade in ("nope", "okay", "love"):
            scores = Render.objects.filter(grades__value=grade).values_list("taste_score",
                                                                           flat=True)
            means[grade] = sum(scores) / len(scores)
        assert means["nope"] < means["okay"] < means["love"]

    def test_only_one_model_is_active(self, trained, django_capture_on_commit_callbacks):
        job, _ = trained
        second = services.reward_model_create(config={**SMALL_CONFIG, "max_epochs": 2},
                                              queue=False)
        second = job_run_here(kind="reward_model", pk=second.pk)
        with django_capture_on_commit_callbacks() as callbacks:
            services.reward_model_activate(reward_model=job)
            services.reward_model_activate(reward_model=second)
        assert list(RewardModel.objects.filter(active=True)) == [second]
        assert len(callbacks) == 2  # each activation queues scoring on commit

    def test_an_unfinished_model_cannot_be_activated(self):
        queued = services.reward_model_create(queue=False)
        with pytest.raises(ValueError, match="only a finished model"):
            services.reward_model_activate(reward_model=queued)


@pytest.mark.django_db
class TestInformativeOrder:
    def test_the_setting_names_it_and_without_an_active_model_it_is_hidden(self):
        assert django_settings.PAINTRL_INFORMATIVE_ORDER == \
            "pool.reward.selectors.informative_order"
        assert selectors.informative_order(Render.objects.all()) is None
        assert ordering.INFORMATIVE not in ordering.orders_available()

    def test_with_an_active_model_renders_nearest_a_boundary_come_first(self, trained):
        job, renders = trained
        services.reward_model_activate(reward_model=job, score=False)
        renders_score(reward_model=job)
        assert ordering.INFORMATIVE in ordering.orders_available()
        unscored = toy_render(grade="okay", rng=random.Random(1), index=999)
        ordered = list(selectors.informative_order(Render.objects.all()))
        boundaries = list(job.metrics["boundaries"].values())

        def distance(render: Render) -> float:
            return min(abs(render.taste_score - b) for b in boundaries)

        scored = [r for r in ordered if r.taste_score is not None]
        assert [distance(r) for r in scored] == sorted(distance(r) for r in scored)
        assert ordered[-1].pk == unscored.pk  # not scored yet: last
        applied = ordering.order_apply(ordering.INFORMATIVE, Render.objects.all())
        assert [r.pk for r in applied] == [r.pk for r in ordered]

    def test_the_grading_queue_hands_out_renders_in_that_order(self, trained):
        from rating.queue import queue_next
        from rating.selectors import QueueFilter
        from rating.services import curator_get_or_create

        job, _ = trained
        services.reward_model_activate(reward_model=job, score=False)
        renders_score(reward_model=job)
        rng = random.Random(3)
        fresh = [toy_render(grade=("love", "okay", "nope")[i % 3], rng=rng, index=700 + i)
                 for i in range(6)]
        renders_score(reward_model=job, renders=Render.objects.filter(
            pk__in=[r.pk for r in fresh]))
        expected = [r.pk for r in selectors.informative_order(
            Render.objects.filter(pk__in=[r.pk for r in fresh]))]
        batch = queue_next(curator=curator_get_or_create(username="bob"),
                           queue_filter=QueueFilter(order="informative"), want=3)
        assert [entry.render.pk for entry in batch.entries] == expected[:3]
