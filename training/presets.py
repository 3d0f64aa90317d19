"""Installs what a fresh database needs to score with no setup: the v1 and v2
rubrics and the local judge. Run by a data migration, and safe to run again
(existing rows are left as they are, edits included)."""
from __future__ import annotations

from .rubrics import PRESETS

LOCAL_JUDGE = "local"


def presets_install(rubric_model, judge_model) -> None:
    for name, preset in PRESETS.items():
        rubric_model.objects.get_or_create(
            name=name, version=1,
            defaults={"description": preset["description"], "signals": preset["signals"],
                      "preset": True})
    judge_model.objects.get_or_create(name=LOCAL_JUDGE, defaults={"backend": "local",
                                                                  "api_key_env": ""})
