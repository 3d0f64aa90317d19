"""What a policy is asked: the system prompt it is given and the prompt
sets jobs sample it on."""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import models

from .base import NextVersion


class SystemPrompt(NextVersion, models.Model):
    """The instructions a policy is given before each prompt; versioned like
    rubrics, and copied into a run at launch."""

    name = models.CharField(max_length=80)
    version = models.PositiveIntegerField(blank=True)
    text = models.TextField()
    preset = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name", "-version"]
        constraints = [models.UniqueConstraint(fields=["name", "version"],
                                               name="system_prompt_name_version_unique")]


class PromptSet(models.Model):
    """The prompts a run trains on, one per GRPO group."""

    name = models.CharField(max_length=120, unique=True)
    prompts = models.JSONField(default=list, help_text="A list of prompt strings.")
    description = models.TextField(blank=True)
    preset = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def clean(self):
        if not isinstance(self.prompts, list) or not self.prompts or not all(
                isinstance(p, str) and p.strip() for p in self.prompts):
            raise ValidationError({"prompts": "a non-empty list of non-empty strings"})

    def __str__(self) -> str:
        return f"{self.name} ({len(self.prompts)} prompts)"
