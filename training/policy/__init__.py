"""The policy: a causal language model that writes sketches. The built-in
one is built here from the procedural corpus (no hub downloads); any local
Hugging Face checkpoint loads through the same `policy_load`."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings


def builtin_policy_dir() -> Path:
    """Where `manage.py bootstrap_policy` writes the built-in policy."""
    return Path(settings.PAINTRL_POLICY_DIR)


def policy_path(base_model: str) -> Path:
    """The folder a run's `base_model` names: blank is the built-in policy."""
    return Path(base_model) if base_model else builtin_policy_dir()


def run_dir(run_id: int) -> Path:
    """Where a run's checkpoints and trained policy live: MEDIA_ROOT/runs/<id>/."""
    return Path(settings.MEDIA_ROOT) / "runs" / str(run_id)


FINAL = "final"  # a run's trained policy, in its run_dir (runs.engine.final_policy_save)


def trained_policy_dir(run_id: int) -> Path:
    """The policy a finished run trained: a checkpoint folder other jobs may sample."""
    return run_dir(run_id) / FINAL


def policy_parameters(path: str | Path) -> int | None:
    """The checkpoint's parameter count from its safetensors headers (read
    without loading a weight), or None when it has no safetensors files."""
    import json
    import math
    import struct

    total, files = 0, sorted(Path(path).glob("*.safetensors"))
    for file in files:
        with open(file, "rb") as handle:
            (size,) = struct.unpack("<Q", handle.read(8))
            header = json.loads(handle.read(size))
        total += sum(math.prod(entry["shape"]) for name, entry in header.items()
                     if name != "__metadata__")
    return total if files else None


def policy_load(path: str | Path, *, device: str = "cpu"):
    """(model, tokenizer) from a local folder; never downloads."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(path)
    if not (path / "config.json").exists():
        raise FileNotFoundError(
            f"no policy at {path}: run `python manage.py bootstrap_policy` for the built-in one, "
            "or give a local Hugging Face checkpoint folder")
    tokenizer = AutoTokenizer.from_pretrained(path, local_files_only=True)
    dtype = torch.float32 if device == "cpu" else "auto"
    model = AutoModelForCausalLM.from_pretrained(path, local_files_only=True, dtype=dtype)
    return model.to(device), tokenizer
