"""The reward model learns from curators' comparisons beside their grades:
comparisons split with the more held-out of their two renders, train with
the same Bradley-Terry loss, and are measured on the held-out ones
(heldout_comparison_accuracy, None when there are none). Ties and skips are
left out; the simulated curator's grades never mix with people's comparisons."""
from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from jobs.runner import job_run_here
from pool.reward import services
from pool.reward.config import TrainConfig
from pool.reward.data import (
    TEST,
    TRAIN,
    VALIDATION,
    ComparedPair,
    GradedItem,
    GradedSet,
    SplitConfig,
    graded_set_from_db,
    split_of,
)
from pool.reward.features import decode
from pool.reward.metrics import comparison_accuracy
from pool.reward.train import ComparedImages, fit, new_scorer
from rating.models import Comparison, Grade
from rating.services import comparison_submit, curator_get_or_create
from sketches.models import Sketch
from tests.reward_data import SMALL_CONFIG, toy_graded_renders, toy_png, toy_render


def group_in(split: str, config: SplitConfig, start: int = 0) -> str:
    """A sketch-code group that data.split_of puts in `split`."""
    return next(f"g{i}" for i in range(start, 10_000) if split_of(f"g{i}", config) == split)


class TestComparisonSplit:
    def test_a_comparison_goes_to_the_more_held_out_split_of_its_renders(self):
        config = SplitConfig()
        groups = {name: group_in(name, config) for name in (TRAIN, VALIDATION, TEST)}
        items = tuple(GradedItem(key=name, group=group, png="", grade=1.0)
                      for name, group in groups.items())
        graded = GradedSet(items=items, split_config=config, comparisons=(
            ComparedPair(TRAIN, TRAIN), ComparedPair(TRAIN, VALIDATION),
            ComparedPair(TEST, TRAIN), ComparedPair(VALIDATION, TEST)))
        parts = graded.comparison_split()
        index = {item.key: i for i, item in enumerate(items)}
        assert parts[TRAIN].tolist() == [[index[TRAIN], index[TRAIN]]]
        assert parts[VALIDATION].tolist() == [[index[TRAIN], index[VALIDATION]]]
        assert parts[TEST].tolist() == [[index[TEST], index[TRAIN]],
                                        [index[VALIDATION], index[TEST]]]

    def test_accuracy_counts_the_winner_scoring_higher_and_is_nan_without_pairs(self):
        scores = np.array([2.0, 1.0, 1.0])
        assert comparison_accuracy(scores, np.array([[0, 1], [2, 0], [1, 2]])) == pytest.approx(
            (1 + 0 + 0.5) / 3)
        assert np.isnan(comparison_accuracy(scores, np.zeros((0, 2), dtype=int)))


def colour_images(grade: str, count: int, seed: int) -> torch.Tensor:
    rng = random.Random(seed)
    return torch.from_numpy(np.stack([decode(toy_png(grade, rng), 32) for _ in range(count)]))


class TestTrainingOnComparisons:
    def fit_with(self, winner: str, loser: str) -> float:
        """Grades rank green (okay) over blue (nope) and say nothing of red;
        comparisons say `winner` beats `loser`. Returns the share of unseen
        red-blue pairs the trained model orders as the comparisons did."""
        graded = torch.cat([colour_images("okay", 30, 1), colour_images("nope", 30, 2)])
        grades = torch.tensor([1.0] * 30 + [0.0] * 30)
        order = torch.randperm(60, generator=torch.Generator().manual_seed(0))
        graded, grades = graded[order], grades[order]
        compared = torch.cat([colour_images(winner, 20, 3), colour_images(loser, 20, 4)])
        pairs = torch.tensor([(i, 20 + j) for i in range(20) for j in range(i % 4, 20, 4)])
        config = TrainConfig.from_dict(SMALL_CONFIG)
        scorer = new_scorer(config)
        fit(scorer, train_images=graded[:45], train_grades=grades[:45],
            validation_images=graded[45:], validation_grades=grades[45:], config=config,
            comparisons=ComparedImages(compared, pairs))
        unseen = torch.cat([colour_images(winner, 10, 5), colour_images(loser, 10, 6)])
        scores = scorer.score(unseen).numpy()
        return comparison_accuracy(scores, np.array([(i, 10 + j) for i in range(10)
                                                     for j in range(10)]))

    def test_the_model_follows_the_comparisons_whichever_way_they_point(self):
        # Red and blue are ranked by the comparisons alone: red over blue, and
        # then blue over red. An untrained or comparison-blind model cannot
        # follow both.
        assert self.fit_with("love", "nope") >= 0.8
        assert self.fit_with("nope", "love") >= 0.8


@pytest.mark.django_db
class TestJobWithComparisons:
    def compare_toys(self, count: int, *, seed: int = 7) -> list:
        """`count` pairs of ungraded toy renders of one prompt each, a red one
        and a blue one, compared by bob: red preferred, on random sides."""
        rng, bob = random.Random(seed), curator_get_or_create(username="bob")
        made = []
        for i in range(count):
            red = toy_render(grade="love", rng=rng, index=1000 + 2 * i)
            blue = toy_render(grade="nope", rng=rng, index=1001 + 2 * i)
            Sketch.objects.filter(pk__in=[red.sketch_id, blue.sketch_id]).update(
                prompt=f"toy pair {i}")
            red.refresh_from_db(), blue.refresh_from_db()
            left, right = (red, blue) if rng.random() < 0.5 else (blue, red)
            comparison_submit(curator=bob, left=left, right=right,
                              choice="left" if left == red else "right")
            made.append((red, blue))
        return made

    def test_a_job_trains_on_grades_and_comparisons_and_measures_both(self, media):
        toy_graded_renders(60)
        made = self.compare_toys(40)
        # A tie and a skip of one more pair: neither trains nor is measured.
        rng, bob = random.Random(3), curator_get_or_create(username="bob")
        a, b = toy_render(grade="okay", rng=rng, index=3000), toy_render(grade="okay", rng=rng,
                                                                           index=3001)
        Sketch.objects.filter(pk__in=[a.sketch_id, b.sketch_id]).update(prompt="toy tie")
        a.refresh_from_db(), b.refresh_from_db()
        comparison_submit(curator=bob, left=a, right=b, choice="tie")
        comparison_submit(curator=curator_get_or_create(username="cy"), left=a, right=b,
                          choice="skip")

        graded = graded_set_from_db(sources="human")
        assert len(graded.items) == 60 and len(graded.comparisons) == len(made) == 40
        assert len(graded.compared_only) == 80  # the red and blue toys nobody graded

        job = services.reward_model_create(config=SMALL_CONFIG, queue=False)
        done = job_run_here(kind="reward_model", pk=job.pk)
        assert done.status == "done", done.error
        metrics, data = done.metrics, done.training_data
        assert metrics["heldout_pairwise_accuracy"] is not None  # the grades' metric stays
        assert sum(data["comparisons"].values()) == 40
        assert metrics["heldout_comparisons"] == data["comparisons"]["test"] > 0
        assert metrics["heldout_comparison_accuracy"] >= 0.8

    def test_without_comparisons_the_accuracy_is_none(self, media):
        toy_graded_renders(45)
        job = services.reward_model_create(config=SMALL_CONFIG, queue=False)
        done = job_run_here(kind="reward_model", pk=job.pk)
        assert done.status == "done", done.error
        assert done.metrics["heldout_comparison_accuracy"] is None
        assert done.metrics["heldout_comparisons"] == 0

    def test_simulated_grades_never_mix_with_peoples_comparisons(self):
        toy_graded_renders(9, source=Grade.Source.SIMULATED)
        self.compare_toys(3)
        assert Comparison.objects.count() == 3
        simulated = graded_set_from_db(sources="simulated")
        assert len(simulated.items) == 9 and simulated.comparisons == ()
