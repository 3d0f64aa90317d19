"""The reward model's settings, read in one place (defaults live in
paintrl_site/settings.py, which reads the environment)."""
from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


def backbone_path() -> Path | None:
    """A local folder holding a transformers vision model (CLIP, SigLIP, ViT...)
    whose embeddings the reward model may learn a head on; None when unset.
    Nothing is downloaded: the folder must already hold config and weights."""
    value = getattr(settings, "PAINTRL_REWARD_BACKBONE", "") or ""
    if not value:
        return None
    path = Path(value)
    if not (path / "config.json").is_file():
        raise ImproperlyConfigured(
            f"PAINTRL_REWARD_BACKBONE={value!r} is not a folder with a transformers "
            "config.json (save one with model.save_pretrained(folder))")
    return path


def feature_cache_dir() -> Path | None:
    """Where decoded, downscaled renders are kept between runs (None: memory only)."""
    value = getattr(settings, "PAINTRL_REWARD_CACHE_DIR", None)
    if value == "":
        return None
    return Path(value) if value else Path(settings.MEDIA_ROOT) / "reward_cache"


def torch_threads() -> int:
    """Torch threads for training and scoring (pool/reward/train.py records why
    the default is 1)."""
    threads = getattr(settings, "PAINTRL_REWARD_THREADS", 1)
    if threads < 1:
        raise ImproperlyConfigured(f"PAINTRL_REWARD_THREADS must be at least 1, got {threads}")
    return threads
