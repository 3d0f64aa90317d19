"""A verl reward function backed by the reward service:

    custom_reward_function.path=training/external/adapters/verl_reward.py
    custom_reward_function.name=compute_score

verl's reward loop (read from verl/experimental/reward_loop/reward_manager/,
naive and rate_limited) calls an async `compute_score` once per sample, with
the keywords `data_source`, `solution_str`, `ground_truth`, `extra_info`
(and `reward_router_address`, `reward_model_tokenizer` where a reward router
is set), all the batch's samples at once under asyncio.gather; it takes a
float, or a dict whose "score" is the reward and whose other keys (the same
for every sample) become per-sample metrics. So the calls that arrive
together are gathered into one batch for the service (`WINDOW_S`, at most
`BATCH_MAX` items).

What verl does not pass, the dataset gives through `extra_info`: "prompt"
(what the sketch was asked to paint; required) and the group (a sample's
"uid" or the dataset row's "index": the n samples of one prompt share it).
verl needs a number for every sample: a missing total becomes its group's
mean in the batch (client.filled: no advantage under GRPO's group baseline)
and "paintrl_unavailable" is 1.0, so the share shows in verl's metrics.
"""
from __future__ import annotations

import asyncio
import weakref

from training.external.adapters.client import RewardClient, batch_key, filled

# How long the first call of a batch waits for its companions. verl starts
# every sample's call in one asyncio.gather, so they arrive within
# milliseconds; 50 ms gathers them and adds little to a step of seconds.
WINDOW_S = 0.05
# A GRPO step of 32 prompts x 8 samples: the service's default bound
# (PAINTRL_REWARD_BATCH_MAX); a larger step is sent as several batches.
BATCH_MAX = 256


class _Gatherer:
    """The calls waiting to be sent together, on one event loop. (Plain
    classes: verl may load this file without registering it as a module,
    and dataclasses look their module up.)"""

    def __init__(self, client: RewardClient):
        self.client = client
        self.waiting: list[tuple[dict, asyncio.Future]] = []
        self.timer: asyncio.TimerHandle | None = None

    def add(self, item: dict) -> asyncio.Future:
        loop = asyncio.get_running_loop()
        answer = loop.create_future()
        self.waiting.append((item, answer))
        if len(self.waiting) >= BATCH_MAX:
            self._send()
        elif self.timer is None:
            self.timer = loop.call_later(WINDOW_S, self._send)
        return answer

    def _send(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        batch, self.waiting = self.waiting, []
        if batch:
            asyncio.get_running_loop().create_task(self._score(batch))

    async def _score(self, batch: list[tuple[dict, asyncio.Future]]) -> None:
        items = [item for item, _ in batch]
        try:
            answers = await self.client.ascore(items, client_key=batch_key("verl", None, items))
        except Exception as error:  # each sample's call raises it: verl logs and handles it
            for _, answer in batch:
                answer.set_exception(error)
            return
        rewards, missing = filled([a["total"] for a in answers], [i["group"] for i in items])
        for (_, answer), reward, gone in zip(batch, rewards, missing, strict=True):
            answer.set_result({"score": reward, "paintrl_unavailable": float(gone)})


# One per event loop (verl keeps one per reward manager); gone with its loop.
_gatherers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def sample_item(solution_str: str, extra_info: dict | None) -> dict:
    """The service's item for one verl sample (module docstring)."""
    extra = dict(extra_info or {})
    if not extra.get("prompt"):
        raise ValueError("paintrl needs the prompt in extra_info['prompt']: add it when "
                         "preparing the dataset")
    group = extra.get("uid", extra.get("index", extra["prompt"]))
    return {"prompt": str(extra["prompt"]), "completion": solution_str, "group": str(group)}


async def compute_score(data_source=None, solution_str: str = "", ground_truth=None,
                        extra_info: dict | None = None, **kwargs) -> dict:
    item = sample_item(solution_str, extra_info)
    loop = asyncio.get_running_loop()
    gatherer = _gatherers.get(loop)
    if gatherer is None:
        gatherer = _gatherers[loop] = _Gatherer(RewardClient.from_env())
    return await gatherer.add(item)
