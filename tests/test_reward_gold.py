"""The gold judge (pool/reward/gold.py): painter sketches rendered in the
real Chromium and labelled by their tiers, a scorer trained on them and
saved with its record; registered as a reward model that is never active,
refused where a stored sketch shares its corpus's code; a run's probe takes
it as its yardstick only while it is disjoint from the judge's model."""
from __future__ import annotations

import hashlib
import html
import json

import numpy as np
import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from pool.models import RewardModel
from pool.reward import gold, services
from pool.reward.selectors import gold_newest
from sketches.models import Render, Sketch, code_hash
from sketches.painter import paint
from tests.chromium import make_config
from tests.lab_data import lab_world
from tests.run_data import make_run
from training.runs.probe.plan import probe_launched, probe_problems

# 36 sketches at 128 px: the three tiers, each split holding some, in seconds.
COUNT, SIZE = 36, 128


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """One gold judge built in the real renderer, for the module."""
    folder = tmp_path_factory.mktemp("gold")
    lines: list[str] = []
    record = gold.gold_build(folder, count=COUNT, size=SIZE, renderer=make_config(browsers=2),
                             log=lines.append)
    return folder, record, lines


@pytest.mark.browser
class TestBuild:
    def test_it_learns_the_painters_tiers_and_records_what_it_learnt_from(self, built):
        folder, record, lines = built
        assert record == json.loads((folder / gold.GOLD_RECORD).read_text())
        assert record["painter"] == {"seeds": [gold.GOLD_SEED, gold.GOLD_SEED + COUNT - 1],
                                     "size": SIZE, "sketches": COUNT}
        assert record["renders"] + record["not_rendered"] == COUNT
        assert sum(record["tiers"].values()) == record["renders"]
        assert set(record["tiers"]) == {"good", "fair", "bad"}
        assert sum(record["split"].values()) == record["renders"]
        weights = (folder / gold.GOLD_WEIGHTS).read_bytes()
        assert record["weights_sha256"] == hashlib.sha256(weights).hexdigest()
        # The codes are the painter's own for the seeds rendered, each sketch once.
        painted = {code_hash(paint(s, size=SIZE).code)
                   for s in range(gold.GOLD_SEED, gold.GOLD_SEED + COUNT)}
        codes = gold.gold_codes(folder)
        assert len(codes) == record["renders"] and set(codes) <= painted
        # The tiers the scores were measured on are the painter's, cleanly.
        with np.load(folder / gold.GOLD_CORPUS) as corpus:
            tiers = {code_hash(paint(s, size=SIZE).code):
                     gold.TIER_ORDINALS[paint(s, size=SIZE).meta["quality"]]
                     for s in range(gold.GOLD_SEED, gold.GOLD_SEED + COUNT)}
            assert [tiers[str(c)] for c in corpus["codes"]] == corpus["grades"].tolist()
            assert corpus["images"].shape[1:] == (3, gold.GOLD_TRAIN.image_size,
                                                  gold.GOLD_TRAIN.image_size)
        # Too few renders to say how well it learnt (benchmarks/grpo_bench.py --gold
        # measures the full corpus): here, that it trained and measured itself.
        metrics = record["metrics"]
        assert metrics["epochs_run"] >= metrics["best_epoch"] >= 1
        assert 0.0 <= metrics["train_pairwise_accuracy"] <= 1.0
        assert {"test", "boundaries", "heldout_pairwise_accuracy"} <= set(metrics)
        assert any("held-out pairwise accuracy" in line for line in lines)
        assert any(f"{COUNT} of {COUNT} rendered" in line for line in lines)

    def test_a_retrain_on_its_renders_gives_the_same_weights(self, built, tmp_path):
        folder, record, _ = built
        copy = tmp_path / "copy"
        copy.mkdir()
        (copy / gold.GOLD_CORPUS).write_bytes((folder / gold.GOLD_CORPUS).read_bytes())
        again = gold.gold_build(copy, retrain=True, log=lambda line: None)
        assert again["weights_sha256"] == record["weights_sha256"]
        assert again["painter"]["seeds"] == record["painter"]["seeds"]


@pytest.mark.browser
@pytest.mark.django_db
class TestRegister:
    def test_registered_once_never_active_and_refused_over_shared_code(self, built, media):
        folder, record, _ = built
        codes = set(gold.gold_codes(folder))
        painted = next(p for s in range(gold.GOLD_SEED, gold.GOLD_SEED + COUNT)
                       if code_hash((p := paint(s, size=SIZE)).code) in codes)
        shared = Sketch.objects.create(prompt=painted.prompt, code=painted.code)
        with pytest.raises(services.GoldError, match="1 stored sketches share code with the "
                                                     "gold judge's corpus"):
            services.reward_model_gold_register(folder)
        with pytest.raises(CommandError, match="share code"):
            call_command("bootstrap_gold", out=str(folder), if_missing=True, register=True)
        assert not RewardModel.objects.exists()
        shared.delete()

        model = services.reward_model_gold_register(folder)
        assert (model.role, model.status, model.active) == (RewardModel.Role.GOLD, "done",
                                                             False)
        assert model.metrics == record["metrics"]
        assert model.training_data["gold"] == record
        assert model.training_data["codes"] == gold.gold_codes(folder)
        assert model.weights.read() == (folder / gold.GOLD_WEIGHTS).read_bytes()
        assert services.reward_model_gold_register(folder) == model  # the same weights: once
        assert gold_newest() == model
        with pytest.raises(ValueError, match="is the gold judge"):
            services.reward_model_activate(reward_model=model)

    def test_the_admin_shows_what_it_learnt_from(self, built, media, admin_client):
        folder, record, _ = built
        model = services.reward_model_gold_register(folder)
        listing = html.unescape(admin_client.get(
            reverse("admin:pool_rewardmodel_changelist")).content.decode())
        assert "Gold judge" in listing
        assert f"painter tiers of {record['renders']} renders" in listing
        page = html.unescape(admin_client.get(
            reverse("admin:pool_rewardmodel_change", args=[model.pk])).content.decode())
        assert (f"The gold judge:</b> recipe {gold.GOLD_RECIPE}, the painter's tiers (no noise) "
                f"of {record['renders']} renders of painter seeds {gold.GOLD_SEED} to "
                f"{gold.GOLD_SEED + COUNT - 1} at {SIZE} px") in page
        assert record["weights_sha256"] in page
        admin_client.post(reverse("admin:pool_rewardmodel_changelist"),
                          {"action": "activate_selected", "_selected_action": [model.pk]})
        model.refresh_from_db()
        assert not model.active

    def test_a_probe_takes_it_only_while_it_is_disjoint_from_the_judges_model(
            self, built, media, tmp_path):
        folder, record, _ = built
        world = lab_world(count=60)
        model = services.reward_model_gold_register(folder)
        run = make_run(tmp_path, probe_every=5, yardstick=model, snapshot=world.snapshot)
        assert probe_problems(run) == []
        launched = probe_launched(run)["yardstick"]
        assert launched == {
            "id": model.pk, "version": model.version, "role": "gold",
            "gold": {"recipe": gold.GOLD_RECIPE, "painter": record["painter"],
                     "renders": record["renders"], "weights_sha256": record["weights_sha256"],
                     "heldout_pairwise_accuracy":
                         record["metrics"]["heldout_pairwise_accuracy"]}}
        # A judge model that trained on a sketch of the gold corpus: refused, with why.
        trained_on = world.reward_model.training_data["render_ids"]["train"][0]
        sketch = Render.objects.get(pk=int(trained_on)).sketch
        RewardModel.objects.filter(pk=model.pk).update(
            training_data={**model.training_data, "codes": [sketch.code_sha256]})
        model.refresh_from_db()
        run.yardstick = model
        (problem,) = probe_problems(run)
        assert problem.startswith(f"the gold judge v{model.version} learnt from 1 sketches "
                                  f"the judge's reward model v{world.reward_model.version} "
                                  "trained on")


def test_the_command_refuses_what_it_cannot_build(tmp_path):
    with pytest.raises(CommandError, match="--count must be at least 100"):
        call_command("bootstrap_gold", out=str(tmp_path), count=10)
    with pytest.raises(CommandError, match="--retrain needs the rendered corpus"):
        call_command("bootstrap_gold", out=str(tmp_path), retrain=True)
