"""The optional head on a local backbone (PAINTRL_REWARD_BACKBONE): a tiny,
randomly initialised CLIP vision model saved to a temporary folder stands in
for a real checkpoint (nothing can be downloaded here). A head trained on its
embeddings learns the toy grading, and its weights file loads back with the
backbone it names."""
from __future__ import annotations

import pytest
import torch
from django.core.exceptions import ImproperlyConfigured

from jobs.runner import job_run_here
from pool.reward import conf, services
from pool.reward.model import Scorer
from pool.reward.scoring import renders_score, scorer_for
from sketches.models import Render
from tests.reward_data import SMALL_CONFIG, toy_graded_renders


@pytest.fixture
def tiny_backbone(tmp_path_factory):
    from transformers import CLIPImageProcessor, CLIPVisionConfig, CLIPVisionModel

    folder = tmp_path_factory.mktemp("tiny-clip")
    torch.manual_seed(0)
    config = CLIPVisionConfig(hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                              num_attention_heads=4, image_size=32, patch_size=8)
    CLIPVisionModel(config).save_pretrained(folder)
    CLIPImageProcessor(size={"shortest_edge": 32},
                       crop_size={"height": 32, "width": 32}).save_pretrained(folder)
    return folder


@pytest.mark.django_db
class TestBackboneHead:
    def test_a_head_on_local_embeddings_learns_the_toy_grading(self, media, settings,
                                                               tiny_backbone):
        settings.PAINTRL_REWARD_BACKBONE = str(tiny_backbone)
        toy_graded_renders(90)
        job = services.reward_model_create(
            config={**SMALL_CONFIG, "model": "backbone", "max_epochs": 60,
                    "learning_rate": 0.02}, queue=False)
        done = job_run_here(kind="reward_model", pk=job.pk)
        assert done.status == "done", done.error
        assert done.metrics["heldout_pairwise_accuracy"] >= 0.8
        scorer = scorer_for(done)
        assert scorer.kind == "backbone" and scorer.backbone.path == str(tiny_backbone)
        assert renders_score(reward_model=done) == Render.objects.count()

    def test_the_weights_file_holds_the_head_and_names_the_backbone(self, tiny_backbone):
        from pool.reward.model import build_scorer

        scorer = build_scorer("backbone", backbone_path=tiny_backbone)
        restored = Scorer.from_bytes(scorer.to_bytes())
        images = torch.randint(0, 255, (4, 3, 32, 32), dtype=torch.uint8)
        assert torch.allclose(restored.score(images), scorer.score(images))

    def test_a_folder_without_a_model_is_refused_clearly(self, settings, tmp_path):
        settings.PAINTRL_REWARD_BACKBONE = str(tmp_path)
        with pytest.raises(ImproperlyConfigured, match="config.json"):
            conf.backbone_path()
