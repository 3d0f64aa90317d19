"""A built policy for tests that need one: the `test` size, trained for a
fixed handful of SFT steps on a small painter corpus (seconds, no renders).
It writes sketch-shaped text, not sketches that pass the gate: tests that
need gate passes use the canned policy (training.policy.canned), which
writes only painter sketches the gate passes.

    def test_something(test_policy):  # the session fixture in tests/conftest.py
        model, tokenizer = policy_load(test_policy)
"""
from __future__ import annotations

import json
import struct
from pathlib import Path

from training.policy.build import policy_bootstrap
from training.policy.sft import SftConfig

# 200 sketches, a 4,096-token vocabulary (so replies stay near 140 tokens) and
# 60 steps of 8: a build of seconds whose loss still falls (docs/benchmarks.md,
# "Measured constants").
TEST_POLICY = {"count": 200, "vocab_size": 4096, "steps": 60, "batch_size": 8}


def test_policy_build(out_dir: Path, *, seed: int = 0) -> dict:
    """Build the test policy in `out_dir`; returns its paintrl_policy.json record."""
    sft = SftConfig(max_steps=TEST_POLICY["steps"], batch_size=TEST_POLICY["batch_size"],
                    learning_rate=5e-3, warmup_steps=5, threads=1, seed=seed)
    return policy_bootstrap(out_dir, size="test", count=TEST_POLICY["count"], seed=seed,
                            vocab_size=TEST_POLICY["vocab_size"], sft=sft, evaluate=0)


# The built-in policy's size (the launch's LoRA check treats it as tiny).
BUILT_IN_PARAMETERS = 5_200_000


def policy_folder_write(out_dir: Path, *, parameters: int = BUILT_IN_PARAMETERS) -> Path:
    """A folder that passes a launch's policy checks and holds no weights: a
    config.json (training.policy.build.policy_exists) and a safetensors file
    whose header alone says `parameters` (training.policy.policy_parameters
    reads only the header). For tests of launches and refusals, which never
    load the policy; the `policy_folder` fixture (tests/conftest.py) is one."""
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "config.json").write_text(json.dumps({"model_type": "qwen3"}))
    header = json.dumps({"embed.weight": {"dtype": "BF16", "shape": [parameters],
                                          "data_offsets": [0, 0]}}).encode()
    (out_dir / "model.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    return out_dir
