"""The reward model learns: a toy grading whose grade follows a visible
property is learnt well above chance on held-out renders, the same seed gives
the same model, the split keeps a sketch's renders together, and the metrics
say what they claim."""
from __future__ import annotations

import random

import numpy as np
import pytest
import torch

from jobs.runner import job_run_here
from pool.reward import services
from pool.reward.config import TrainConfig
from pool.reward.data import (
    GradedItem,
    GradedSet,
    SplitConfig,
    mean_ordinals,
    ordered_pairs,
    split_of,
)
from pool.reward.features import decode, load_images
from pool.reward.metrics import (
    accuracy_interval,
    evidence_warning,
    grade_boundaries,
    pairwise_accuracy,
    probability_calibration,
)
from pool.reward.model import Scorer
from pool.reward.train import TrainingCancelled, fit, new_scorer
from tests.reward_data import GRADES, SMALL_CONFIG, toy_graded_renders, toy_png


def toy_tensors(count: int, seed: int = 0, size: int = 32):
    rng = random.Random(seed)
    images = np.stack([decode(toy_png(GRADES[i % 3], rng), size) for i in range(count)])
    return torch.from_numpy(images), torch.tensor([i % 3 for i in range(count)],
                                                  dtype=torch.float32)


def small_fit(seed: int = 0, **overrides):
    images, grades = toy_tensors(90)
    config = TrainConfig.from_dict({**SMALL_CONFIG, "seed": seed, **overrides})
    scorer = new_scorer(config)
    result = fit(scorer, train_images=images[:60], train_grades=grades[:60],
                 validation_images=images[60:75], validation_grades=grades[60:75],
                 config=config)
    return result, images, grades


class TestLearning:
    def test_a_toy_grading_by_colour_is_learnt_well_above_chance(self):
        result, images, grades = small_fit()
        held_out = result.scorer.score(images[75:]).numpy()
        assert pairwise_accuracy(held_out, grades[75:].numpy()) >= 0.8

    def test_the_same_seed_gives_the_same_model_and_another_seed_another(self):
        first, images, _ = small_fit(seed=3)
        again, _, _ = small_fit(seed=3)
        other, _, _ = small_fit(seed=4)
        assert torch.equal(first.scorer.score(images), again.scorer.score(images))
        assert not torch.equal(first.scorer.score(images), other.scorer.score(images))

    def test_early_stopping_keeps_the_best_epoch(self):
        result, _, _ = small_fit(max_epochs=60, patience=3)
        accuracies = [row["validation_accuracy"] for row in result.history]
        assert result.stopped_by == "early stopping"
        assert result.epochs_run == result.best_epoch + 3
        assert accuracies[result.best_epoch - 1] == max(accuracies)

    def test_a_stop_request_ends_training_between_epochs(self):
        images, grades = toy_tensors(30)
        config = TrainConfig.from_dict(SMALL_CONFIG)
        asked = []

        def should_stop() -> bool:
            asked.append(1)
            return len(asked) > 2

        with pytest.raises(TrainingCancelled) as stopped:
            fit(new_scorer(config), train_images=images, train_grades=grades,
                validation_images=images, validation_grades=grades, config=config,
                should_stop=should_stop)
        assert stopped.value.epochs_run == 2

    def test_weights_round_trip_through_bytes(self):
        result, images, _ = small_fit(max_epochs=2)
        restored = Scorer.from_bytes(result.scorer.to_bytes())
        assert torch.allclose(restored.score(images), result.scorer.score(images))


class TestData:
    def test_renders_of_one_sketch_share_a_split_and_the_split_is_stable(self):
        config = SplitConfig(test_fraction=0.3, validation_fraction=0.2, seed=1)
        sides = {split_of(f"sketch-{i}", config) for _ in range(3) for i in [7]}
        assert len(sides) == 1
        items = tuple(GradedItem(key=str(i), group=f"sketch-{i // 2}", png="", grade=i % 3)
                      for i in range(200))
        parts = GradedSet(items=items, split_config=config).split()
        for indices in parts.values():
            groups = {items[i].group for i in indices}
            others = {items[i].group for name, idx in parts.items() for i in idx
                      if idx is not indices}
            assert not groups & others
        assert 0.2 < len(parts["test"]) / 200 < 0.4

    def test_mean_grade_averages_curators_and_pairs_order_better_first(self):
        means = mean_ordinals([(1, "love"), (1, "okay"), (2, "nope")])
        assert means == {1: (1.5, 2), 2: (0.0, 1)}
        pairs = ordered_pairs([0.0, 2.0, 1.0, 2.0])
        assert sorted(map(tuple, pairs.tolist())) == [(1, 0), (1, 2), (2, 0), (3, 0), (3, 2)]

    def test_bad_config_names_the_values(self):
        with pytest.raises(ValueError, match="test_fraction .* validation_fraction"):
            TrainConfig(test_fraction=0.7, validation_fraction=0.5)
        with pytest.raises(ValueError, match="unknown training settings"):
            TrainConfig.from_dict({"epochs": 3})

    def test_non_square_renders_are_padded_not_stretched(self, tmp_path):
        from PIL import Image

        path = tmp_path / "wide.png"
        Image.new("RGB", (80, 40), (0, 0, 0)).save(path)
        image = load_images([path], 16)[0]
        assert image.shape == (3, 16, 16)
        assert image[:, 0, :].min() == 255 and image[:, 8, :].max() == 0


class TestMetrics:
    def test_pairwise_accuracy_counts_ties_as_half(self):
        assert pairwise_accuracy(np.array([0.0, 1.0, 2.0]), np.array([0, 1, 2])) == 1.0
        assert pairwise_accuracy(np.array([2.0, 1.0, 0.0]), np.array([0, 1, 2])) == 0.0
        assert pairwise_accuracy(np.array([1.0, 1.0]), np.array([0, 2])) == 0.5

    def test_calibration_of_confident_right_scores_is_near_perfect(self):
        scores, grades = np.array([0.0, 10.0, 20.0] * 5), np.array([0, 1, 2] * 5)
        result = probability_calibration(scores, grades)
        assert result["pairs"] == 75 and result["ece"] < 0.01

    def test_the_interval_holds_the_accuracy_and_narrows_with_more_renders(self):
        rng = np.random.default_rng(3)
        widths = []
        for n in (30, 300):
            grades = rng.integers(0, 3, n).astype(float)
            scores = grades + rng.normal(0, 1.0, n)
            low, high = accuracy_interval(scores, grades)
            assert low < pairwise_accuracy(scores, grades) < high
            widths.append(high - low)
        assert widths[1] < widths[0] / 2
        assert accuracy_interval(np.array([1.0, 2.0]), np.array([1, 1])) is None

    def test_too_little_evidence_is_named_with_its_sample(self):
        few = {"pairs": 4, "renders": 4, "pairwise_accuracy_interval": [1.0, 1.0]}
        assert "too little to measure: 4 held-out pairs of 4 renders" in evidence_warning(few)
        chance = {"pairs": 200, "renders": 30, "pairwise_accuracy_interval": [0.48, 0.66]}
        assert evidence_warning(chance).startswith("not distinguishable from chance")
        wide = {"pairs": 200, "renders": 30, "pairwise_accuracy_interval": [0.56, 0.80]}
        assert evidence_warning(wide).startswith("too imprecise")
        good = {"pairs": 2000, "renders": 150, "pairwise_accuracy_interval": [0.77, 0.87]}
        assert evidence_warning(good) is None
        assert evidence_warning({"pairs": 20, "renders": 9}).startswith("too little")
        small = {"pairs": 45, "renders": 12, "pairwise_accuracy_interval": [0.90, 1.0]}
        assert evidence_warning(small).startswith("too little to measure")
        assert evidence_warning(None) == "it has no held-out measurement"

    def test_boundaries_fall_between_the_grades(self):
        scores = np.array([-2.0, -1.5, 0.0, 0.5, 2.0, 2.5])
        bounds = grade_boundaries(scores, np.array([0, 0, 1, 1, 2, 2]))
        assert -1.5 < bounds["nope|okay"] < 0.0 and 0.5 < bounds["okay|love"] < 2.0


@pytest.mark.django_db
class TestTrainingJob:
    def test_a_job_trains_on_the_grades_and_records_metrics_data_and_weights(
            self, media):
        toy_graded_renders(90)
        job = services.reward_model_create(config=SMALL_CONFIG, queue=False)
        done = job_run_here(kind="reward_model", pk=job.pk)
        assert done.status == "done", done.error
        assert done.metrics["heldout_pairwise_accuracy"] >= 0.8
        assert set(done.metrics["test"]["by_grade"]) == {"nope", "okay", "love"}
        assert done.metrics["simulated_grades"] is False
        data = done.training_data
        ids = [i for split in data["render_ids"].values() for i in split]
        assert len(ids) == len(set(ids)) == data["renders"] == 90
        assert data["sources"] == ["app", "import"] and len(data["sha256"]) == 64
        assert done.weights and (media / done.weights.name).stat().st_size > 0
        assert done.progress["stage"] == "done" and done.started and done.finished

    def test_versions_count_up(self):
        first = services.reward_model_create(queue=False)
        second = services.reward_model_create(queue=False)
        assert (first.version, second.version) == (1, 2)
        assert first.status == "queued" and first.config["max_epochs"] == 40
