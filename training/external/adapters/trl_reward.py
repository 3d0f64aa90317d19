"""A TRL reward function backed by the reward service. TRL 1.x (read from
trl/trainer/grpo_trainer.py, 1.16) awaits an async reward function on its
own event loop, with keyword arguments `prompts`, `completions`,
`completion_ids`, `trainer_state` and the dataset's other columns, and
turns a None into NaN, which it leaves out of the group's mean and std, as
paintrl's own runs do: a missing total stays None here.

    from training.external.adapters.trl_reward import PaintrlReward
    trainer = GRPOTrainer(model=..., reward_funcs=[PaintrlReward()], ...)

The generations of one prompt are one group (TRL keeps them together), so
they render at one seed and face the same references; the step is TRL's.
"""
from __future__ import annotations

from training.external.adapters.client import RewardClient, batch_key


def message_text(value) -> str:
    """A standard text, or a conversation's last message's content."""
    if isinstance(value, list):
        return str(value[-1]["content"]) if value else ""
    return str(value)


class PaintrlReward:
    __name__ = "paintrl"  # TRL logs its rewards as rewards/paintrl/...

    def __init__(self, client: RewardClient | None = None, key_prefix: str = "trl"):
        self.client = client or RewardClient.from_env()
        self.key_prefix = key_prefix

    async def __call__(self, prompts, completions, trainer_state=None,
                       **kwargs) -> list[float | None]:
        texts = [message_text(p) for p in prompts]
        items = [{"prompt": text, "completion": message_text(c), "group": text}
                 for text, c in zip(texts, completions, strict=True)]
        step = trainer_state.global_step if trainer_state is not None else None
        answers = await self.client.ascore(
            items, client_key=batch_key(self.key_prefix, step, items), step=step)
        return [answer["total"] for answer in answers]
