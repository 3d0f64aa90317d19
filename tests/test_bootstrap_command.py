"""`manage.py bootstrap_policy` writes a policy that runs can load, and will
not replace one unless told to."""
from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command

from training.policy import policy_load


def test_the_command_writes_a_loadable_policy_and_keeps_it(tmp_path):
    out = tmp_path / "policy"
    call_command("bootstrap_policy", "--size", "test", "--out", str(out), "--steps", "3",
                 "--evaluate", "0", "--count", "40")
    model, tokenizer = policy_load(out)
    assert tokenizer.eos_token and model.config.vocab_size == len(tokenizer)
    assert (out / "paintrl_policy.json").exists()
    with pytest.raises(CommandError, match="already exists"):
        call_command("bootstrap_policy", "--size", "test", "--out", str(out), "--steps", "1",
                     "--evaluate", "0", "--count", "40")
