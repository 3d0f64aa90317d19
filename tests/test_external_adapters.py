"""The engines' adapters (training/external/adapters/): TRL's async reward
function, verl's async compute_score and OpenRLHF's remote reward model,
each called as that engine calls it (its wire format read from its own
source: TRL installed here, verl and OpenRLHF not, see
docs/external-trainers.md), first on their own, then against the live
service with a real render worker."""
from __future__ import annotations

import asyncio
import inspect
import json
import re
import threading
import urllib.request
from types import SimpleNamespace

import pytest
import torch
from django.contrib.auth.models import Permission
from trl.trainer.utils import is_async_callable

from api.tokens import token_create
from sketches.input_rules import CLIENT_KEY_PATTERN
from tests.lab_data import presets_ensure
from tests.rating_data import curator_create
from tests.sketch_files import read_sketch
from tests.workers import broker_use
from training.external.adapters import openrlhf_rm, verl_reward
from training.external.adapters.client import RewardClient, batch_key, filled
from training.external.adapters.trl_reward import PaintrlReward, message_text
from training.external.services import external_run_open
from training.models import ExternalItem, ExternalRun, Judge, Rubric

pytestmark = pytest.mark.usefixtures("fleet_watch_fresh")

GATES = [{"name": "gate", "kind": "gate", "weight": 1},
         {"name": "length", "kind": "length", "weight": 1,
          "params": {"mode": "bound", "max_tokens": 5000}}]


class TestOnTheirOwn:
    def test_a_missing_total_becomes_its_group_s_mean_and_is_flagged(self):
        rewards, missing = filled([1.0, None, 0.5, None, None], ["a", "a", "a", "b", "b"])
        assert rewards == [1.0, 0.75, 0.5, 0.0, 0.0]
        assert missing == [False, True, False, True, True]

    def test_a_batch_s_key_is_the_service_s_and_names_the_batch(self):
        items = [{"prompt": "p", "completion": "c", "group": "g"}]
        key = batch_key("openrlhf", 12, items)
        assert re.fullmatch(CLIENT_KEY_PATTERN, key)
        assert key == batch_key("openrlhf", 12, items) != batch_key("openrlhf", 13, items)
        assert re.fullmatch(CLIENT_KEY_PATTERN, batch_key("verl", None, items))

    def test_trl_takes_the_reward_function_for_an_async_one(self):
        reward = PaintrlReward(RewardClient("http://127.0.0.1:9", "run", "token"))
        assert is_async_callable(reward) and reward.__name__ == "paintrl"
        assert message_text([{"role": "user", "content": "a kite"}]) == "a kite"

    def test_verl_takes_compute_score_for_an_async_one_with_its_keywords(self):
        assert inspect.iscoroutinefunction(verl_reward.compute_score)
        inspect.signature(verl_reward.compute_score).bind(
            data_source="paint", solution_str="x", ground_truth=None, extra_info={},
            reward_router_address=None, reward_model_tokenizer=None)
        item = verl_reward.sample_item("code", {"prompt": "a kite", "index": 7})
        assert item == {"prompt": "a kite", "completion": "code", "group": "7"}
        with pytest.raises(ValueError, match="extra_info\\['prompt'\\]"):
            verl_reward.sample_item("code", {"index": 7})

    def test_openrlhf_s_request_becomes_items_with_the_prompt_cut_off(self):
        body = {"query": ["<user>a kite<bot>brush.line(1)", "<user>a boat<bot>x"],
                "prompts": ["<user>a kite<bot>", "<user>a boat<bot>"],
                "labels": ["a kite", ""]}
        assert openrlhf_rm.request_items(body) == [
            {"prompt": "a kite", "completion": "brush.line(1)", "group": "<user>a kite<bot>"},
            {"prompt": "<user>a boat<bot>", "completion": "x", "group": "<user>a boat<bot>"}]
        with pytest.raises(ValueError, match="as long as each other"):
            openrlhf_rm.request_items({"query": ["a"], "prompts": ["a", "b"], "labels": None})


@pytest.fixture
def live_service(live_server, render_worker, monkeypatch):
    """An open external run on the live server, a token that may score it, and
    the adapters' environment pointing at them."""
    broker_use()
    presets_ensure()
    local = Judge.objects.get(name="local")
    run = external_run_open(run=ExternalRun.objects.create(
        name="engines", rubric=Rubric.objects.create(name="gates", signals=GATES),
        judge=local, scorer=local))
    user = curator_create("trainer", staff=True)
    user.user_permissions.add(Permission.objects.get(codename="score_externalrun"))
    monkeypatch.setenv("PAINTRL_URL", live_server.url)
    monkeypatch.setenv("PAINTRL_EXTERNAL_RUN", run.name)
    monkeypatch.setenv("PAINTRL_TOKEN", token_create(user=user, name="engines")[1])
    return run


class TestAgainstTheLiveService:
    def test_each_engine_gets_its_rewards_in_its_own_shape(self, live_service):
        good, bad = read_sketch("good/lines.js"), read_sketch("hostile/chat_reply_no_code.txt")

        # TRL: awaited with prompts, completions and the trainer's state, as GRPOTrainer does.
        trl_totals = asyncio.run(PaintrlReward()(
            prompts=[[{"role": "user", "content": "a red kite"}]] * 2,
            completions=[[{"role": "assistant", "content": good}],
                         [{"role": "assistant", "content": bad}]],
            completion_ids=[[1], [2]], trainer_state=SimpleNamespace(global_step=3)))
        assert trl_totals == [1.0, 0.5]

        # verl: one call per sample, all at once under asyncio.gather, gathered into one batch.
        async def verl_step():
            return await asyncio.gather(*[verl_reward.compute_score(
                data_source="paint", solution_str=text, ground_truth=None,
                extra_info={"prompt": "a red kite", "index": 0}) for text in (good, bad, good)])

        verl_results = asyncio.run(verl_step())
        assert [r["score"] for r in verl_results] == [1.0, 0.5, 1.0]
        assert {tuple(sorted(r)) for r in verl_results} == {("paintrl_unavailable", "score")}

        # OpenRLHF: a JSON POST with no Authorization header, as remote_rm_fn sends it.
        proxy = openrlhf_rm.server(RewardClient.from_env(), port=0)
        threading.Thread(target=proxy.serve_forever, daemon=True).start()
        try:
            request = urllib.request.Request(
                f"http://127.0.0.1:{proxy.server_address[1]}/get_reward", method="POST",
                headers={"Content-Type": "application/json"}, data=json.dumps({
                    "query": ["<user>a red kite<bot>" + good, "<user>a red kite<bot>" + bad],
                    "prompts": ["<user>a red kite<bot>"] * 2,
                    "labels": ["a red kite"] * 2}).encode())
            with urllib.request.urlopen(request, timeout=300) as response:
                answer = json.loads(response.read())
        finally:
            proxy.shutdown()
        assert torch.tensor(answer["rewards"]).tolist() == [1.0, 0.5]
        assert answer["scores"] == answer["rewards"]
        assert answer["extra_logs"] == {"paintrl_unavailable": [0.0, 0.0]}

        # Three batches, seven items, each stored once as a rollout of the external run.
        assert live_service.batches.count() == 3
        assert ExternalItem.objects.count() == 7

    def test_a_trl_grpo_step_trains_on_the_service_s_rewards(self, live_service, test_policy,
                                                             tmp_path):
        """GRPOTrainer itself, on the test policy, with PaintrlReward as its
        reward function: one step's completions go to the service as one
        batch, each group under its prompt, and TRL logs the rewards."""
        from datasets import Dataset
        from transformers import AutoModelForCausalLM, AutoTokenizer
        from trl import GRPOConfig, GRPOTrainer

        prompts = ["a red kite", "a boat at dusk"]
        trainer = GRPOTrainer(
            model=AutoModelForCausalLM.from_pretrained(test_policy),
            processing_class=AutoTokenizer.from_pretrained(test_policy),
            reward_funcs=[PaintrlReward()],
            train_dataset=Dataset.from_list(
                [{"prompt": [{"role": "user", "content": p}]} for p in prompts]),
            args=GRPOConfig(output_dir=str(tmp_path), per_device_train_batch_size=4,
                            num_generations=2, max_completion_length=48, max_steps=1,
                            logging_steps=1, report_to=[], use_cpu=True, bf16=False,
                            disable_tqdm=True, save_strategy="no", dataloader_num_workers=0,
                            shuffle_dataset=False))
        trainer.train()

        [batch] = live_service.batches.all()
        assert (batch.step, batch.size, batch.status) == (0, 4, "done")
        items = list(ExternalItem.objects.filter(batch=batch).order_by("index"))
        assert sorted({i.prompt for i in items}) == sorted(prompts)
        assert all(i.render_id is not None for i in items)
        # Each prompt's two completions are one group, so they render at one seed.
        seeds = {}
        for i in items:
            seeds.setdefault(i.group, set()).add(i.render.seed)
        assert len(seeds) == 2 and all(len(s) == 1 for s in seeds.values())
        logged = trainer.state.log_history[0]
        totals = [i.total for i in items if i.total is not None]
        assert logged["rewards/paintrl/mean"] == pytest.approx(sum(totals) / len(totals))

