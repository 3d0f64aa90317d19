"""TimedGRPOTrainer (training/runs/engine.py) times generation by overriding
GRPOTrainer._generate, a private method: TRL 1.16 has no public hook around
generation (its callbacks see a step's start and end, not the generate
inside it). These tests fail, naming TRL's version, when an upgrade moves or
renames that method, before a run's time split silently loses its generate
share."""
from __future__ import annotations

import inspect

import trl
from trl import GRPOTrainer

from training.runs.engine import TimedGRPOTrainer

WHERE = f"TRL {trl.__version__} (requirements.txt pins trl==1.16.0)"
HOW = ("TimedGRPOTrainer._generate (training/runs/engine.py) times it: find where this TRL "
       "generates a batch and time that instead, or a public hook if it now has one")


def test_trl_still_has_the_private_generate_timed_grpo_trainer_overrides():
    original = GRPOTrainer.__dict__.get("_generate")
    assert original is not None, f"{WHERE} has no GRPOTrainer._generate. {HOW}"
    assert "_generate" in TimedGRPOTrainer.__dict__
    ours = list(inspect.signature(TimedGRPOTrainer._generate).parameters)
    theirs = list(inspect.signature(original).parameters)
    assert theirs == ours, f"{WHERE}: GRPOTrainer._generate{theirs}, ours takes {ours}. {HOW}"


def test_trl_generates_each_batch_through_it():
    source = inspect.getsource(GRPOTrainer._generate_and_score_completions)
    assert "self._generate(prompts)" in source, (
        f"{WHERE}: GRPOTrainer._generate_and_score_completions no longer calls "
        f"self._generate(prompts). {HOW}")
