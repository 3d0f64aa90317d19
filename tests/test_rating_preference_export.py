"""The preference export (rating/preference_export.py): comparisons and grades
as (prompt, chosen, rejected) pairs with their pictures, split by sketch,
loaded offline by `datasets` and checked against TRL's preference format; and
(training tier) taken as they are by TRL's RewardTrainer and DPOTrainer."""
from __future__ import annotations

import io
import zipfile

import pytest
import torch
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.urls import reverse
from PIL import Image
from transformers import Qwen3Config, Qwen3ForCausalLM, Qwen3ForSequenceClassification
from trl import DPOConfig, DPOTrainer, RewardConfig, RewardTrainer
from trl.data_utils import is_conversational, maybe_extract_prompt

from rating import preference_export
from rating.services import comparison_submit, curator_get_or_create, grade_record
from rating.splits import SplitConfig, split_of
from sketches import services as sketch_services
from sketches.models import Render
from training.policy.build import tokenizer_train

PROMPT = "a red kite over the hills"
# Everything in train: the rows of a small fixture are then known exactly.
ALL_TRAIN = SplitConfig(test_fraction=1e-12, validation_fraction=1e-12)


def png_bytes(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 6), colour).save(buffer, format="PNG")
    return buffer.getvalue()


def render_of(code: str, colour: str | None, seed: int = 0, prompt: str = PROMPT) -> Render:
    sketch = sketch_services.sketch_create(code=code, prompt=prompt)
    render = Render.objects.create(sketch=sketch, status="ok" if colour else "rejected",
                                   seed=seed, width=8, height=6)
    if colour:
        render.png.save("r.png", ContentFile(png_bytes(colour)))
    return render


@pytest.fixture
def judged(media, db):
    """Three sketches of one prompt (C rejected, no picture) and a second
    render of A's code; alice compares B over A and grades A love, B nope,
    A's twin okay; bob calls A and B a tie."""
    alice, bob = curator_get_or_create(username="alice"), curator_get_or_create(username="bob")
    a = render_of("function setup(){ /* A */ }", "red")
    b = render_of("function setup(){ /* B */ }", "blue")
    c = render_of("function setup(){ /* C */ }", None)
    twin = Render.objects.create(sketch=a.sketch, status="ok", seed=9, width=8, height=6)
    twin.png.save("r.png", ContentFile(png_bytes("green")))
    comparison_submit(curator=alice, left=a, right=b, choice="right")
    comparison_submit(curator=bob, left=a, right=b, choice="tie")
    grade_record(render=a, curator=alice, value="love")
    grade_record(render=b, curator=alice, value="nope")
    grade_record(render=c, curator=alice, value="nope")
    grade_record(render=twin, curator=alice, value="okay")
    return {"a": a, "b": b, "c": c, "twin": twin}


def load(datasets, folder, tmp_path, config: str = "default"):
    return datasets.load_dataset(str(folder), config, cache_dir=str(tmp_path / "cache"))


class TestPairs:
    def test_comparisons_and_different_grades_make_pairs_ties_apart(
            self, judged, tmp_path, offline_datasets):
        folder = tmp_path / "prefs"
        counts = preference_export.write_folder(folder, ALL_TRAIN)
        # alice: B over A (compared); A over B, A over C, twin over B, twin over C (graded);
        # A over twin is the same code twice: left out.
        assert counts.rows == {"default": {"train": 5}, "ties": {"train": 1}}
        assert counts.same_code == 1 and counts.across_splits == 0
        pairs = load(offline_datasets, folder, tmp_path)["train"]
        a, b, c, twin = (judged[k] for k in ("a", "b", "c", "twin"))
        assert [(r["source"], r["chosen_render_id"], r["rejected_render_id"],
                 r["chosen_grade"], r["rejected_grade"]) for r in pairs] == [
            ("comparison", b.pk, a.pk, "", ""),
            ("grades", a.pk, b.pk, "love", "nope"),
            ("grades", a.pk, c.pk, "love", "nope"),
            ("grades", twin.pk, b.pk, "okay", "nope"),
            ("grades", twin.pk, c.pk, "okay", "nope")]
        assert {r["curator"] for r in pairs} == {"alice"} and not any(pairs["tie"])
        first = pairs[0]
        assert (first["prompt"], first["chosen"], first["rejected"]) == (
            PROMPT, b.sketch.code, a.sketch.code)
        assert first["chosen_image"].getpixel((0, 0)) == (0, 0, 255)
        assert first["rejected_image"].getpixel((0, 0)) == (255, 0, 0)
        assert pairs[2]["rejected_image"] is None  # C was rejected: no picture, not a blank one
        ties = load(offline_datasets, folder, tmp_path, "ties")["train"]
        assert [(r["curator"], r["tie"], r["chosen_render_id"], r["rejected_render_id"])
                for r in ties] == [("bob", True, a.pk, b.pk)]

    def test_image_columns_are_datasets_images(self, judged, tmp_path, offline_datasets):
        folder = tmp_path / "prefs"
        preference_export.write_folder(folder, ALL_TRAIN)
        features = load(offline_datasets, folder, tmp_path)["train"].features
        assert isinstance(features["chosen_image"], offline_datasets.Image)
        assert isinstance(features["rejected_image"], offline_datasets.Image)

    def test_no_sketch_is_in_two_splits(self, media, db, tmp_path, offline_datasets):
        alice = curator_get_or_create(username="alice")
        renders = [render_of(f"function setup(){{ /* {i} */ }}", "red") for i in range(16)]
        for i, render in enumerate(renders):
            grade_record(render=render, curator=alice, value=("love", "okay", "nope")[i % 3])
        folder = tmp_path / "prefs"
        counts = preference_export.write_folder(folder)
        loaded = load(offline_datasets, folder, tmp_path)
        sketches = {name: set(split["chosen_sketch_id"]) | set(split["rejected_sketch_id"])
                    for name, split in loaded.items()}
        names = list(sketches)
        assert len(names) >= 2  # 16 sketches at the default fractions land on both sides
        for i, name in enumerate(names):
            for other in names[i + 1:]:
                assert not sketches[name] & sketches[other]
        # Every pair of different grades is written or counted as left out.
        different = sum(1 for i in range(16) for j in range(i + 1, 16) if i % 3 != j % 3)
        assert counts.total + counts.across_splits == different
        by_sketch = {r.sketch_id: r.sketch.code_sha256 for r in renders}
        for name, ids in sketches.items():
            assert {split_of(by_sketch[i], SplitConfig()) for i in ids} == {name}

    def test_simulated_grades_do_not_join_people_s(self, media, db, tmp_path):
        alice = curator_get_or_create(username="alice")
        robot = curator_get_or_create(username="simulated-curator")
        a, b, c = (render_of(f"function setup(){{ /* {k} */ }}", "red") for k in "abc")
        grade_record(render=a, curator=alice, value="love")
        grade_record(render=b, curator=alice, value="nope")
        grade_record(render=a, curator=robot, value="nope", source="simulated")
        grade_record(render=c, curator=robot, value="love", source="simulated")
        counts = preference_export.write_folder(tmp_path / "prefs", ALL_TRAIN)
        assert counts.rows == {"default": {"train": 1}}

    def test_nothing_to_export_is_refused(self, media, db, tmp_path):
        with pytest.raises(ValueError, match="no comparison or pair"):
            preference_export.write_folder(tmp_path / "prefs")


class TestTrlConventions:
    """TRL's preference format (trl/data_utils.py and its dataset formats
    guide): standard (not conversational) text, an explicit prompt, no column
    its trainers read as something else."""

    def test_rows_are_standard_preference_with_an_explicit_prompt(
            self, judged, tmp_path, offline_datasets):
        folder = tmp_path / "prefs"
        preference_export.write_folder(folder, ALL_TRAIN)
        row = load(offline_datasets, folder, tmp_path)["train"][0]
        assert not is_conversational(row)
        text = {k: row[k] for k in ("prompt", "chosen", "rejected")}
        # An explicit prompt is kept as it is (an implicit one would be cut out of both sides).
        assert maybe_extract_prompt(text) == text
        assert all(isinstance(v, str) and v for v in text.values())
        columns = set(row)
        # RewardTrainer subtracts a "margin" column; DPOTrainer treats "image"/"images" as vision.
        assert not columns & {"margin", "image", "images"}


class TestInterfaces:
    def test_command_writes_the_folder_and_refuses_stdout(self, judged, tmp_path,
                                                          offline_datasets):
        err = io.StringIO()
        call_command("export_grades", "--format", "preference", "-o", str(tmp_path / "p"),
                     stderr=err)
        assert "preference pairs" in err.getvalue()
        assert (tmp_path / "p" / "README.md").read_text().startswith("---\nconfigs:\n")
        with pytest.raises(Exception, match="needs --output"):
            call_command("export_grades", "--format", "preference")

    def test_view_serves_the_folder_as_a_zip(self, client, staff, judged, tmp_path,
                                             offline_datasets):
        client.force_login(staff)
        response = client.get(reverse("rating:export_preferences"))
        assert response.status_code == 200
        assert response["Content-Type"] == "application/zip"
        archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
        archive.extractall(tmp_path / "unzipped")
        loaded = load(offline_datasets, tmp_path / "unzipped" / "paintrl-preferences", tmp_path)
        assert sum(len(split) for split in loaded.values()) >= 1

    def test_curators_are_refused(self, client, db):
        client.force_login(curator_get_or_create(username="dora"))
        assert client.get(reverse("rating:export_preferences")).status_code == 403


@pytest.mark.training
class TestTrlTrainers:
    """RewardTrainer and DPOTrainer take the export as loaded, one step each,
    on a tiny Qwen3 built here (nothing downloaded)."""

    def test_reward_and_dpo_trainers_take_it_as_it_is(self, judged, tmp_path,
                                                      offline_datasets):
        folder = tmp_path / "prefs"
        preference_export.write_folder(folder, ALL_TRAIN)
        train = load(offline_datasets, folder, tmp_path)["train"]
        tokenizer = tokenizer_train(list(train["chosen"]) + [PROMPT], vocab_size=300)
        torch.manual_seed(0)
        config = Qwen3Config(vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64,
                             num_hidden_layers=1, num_attention_heads=2, num_key_value_heads=1,
                             head_dim=16, pad_token_id=tokenizer.pad_token_id,
                             eos_token_id=tokenizer.eos_token_id, num_labels=1)
        common = {"max_steps": 1, "per_device_train_batch_size": 2, "report_to": [],
                  "use_cpu": True, "save_strategy": "no", "logging_strategy": "no"}
        reward = RewardTrainer(model=Qwen3ForSequenceClassification(config),
                               args=RewardConfig(output_dir=str(tmp_path / "rm"), **common),
                               train_dataset=train, processing_class=tokenizer)
        assert reward.train().global_step == 1
        policy = Qwen3ForCausalLM(config)
        reference = Qwen3ForCausalLM(config)
        reference.load_state_dict(policy.state_dict())
        dpo = DPOTrainer(model=policy, ref_model=reference,
                         args=DPOConfig(output_dir=str(tmp_path / "dpo"), **common),
                         train_dataset=train, processing_class=tokenizer)
        assert dpo.train().global_step == 1
