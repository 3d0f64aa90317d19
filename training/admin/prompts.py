"""System prompts and prompt sets in the admin. "Save as new" gives an edited
system prompt the next version of its name; a prompt set's prompts are edited
as text, one per line."""
from __future__ import annotations

from django import forms
from django.contrib import admin

from ..models import PromptSet, SystemPrompt


@admin.register(SystemPrompt)
class SystemPromptAdmin(admin.ModelAdmin):
    list_display = ("name", "version", "first_line", "preset", "created")
    list_filter = ("preset",)
    search_fields = ("name", "text")
    fields = ("name", "version", "text", "preset", "created")
    readonly_fields = ("version", "preset", "created")
    # As with rubrics: "Save as new" keeps the old text and gives the edit the
    # next version of its name (runs copy the text they used at launch).
    save_as = True

    @admin.display(description="text")
    def first_line(self, prompt: SystemPrompt) -> str:
        return prompt.text.strip().splitlines()[0][:100] if prompt.text.strip() else ""

    def save_model(self, request, obj, form, change):
        if not change:
            obj.preset = False
        super().save_model(request, obj, form, change)


class PromptLinesField(forms.Field):
    """A list of prompts edited as text, one prompt per line (blank lines dropped)."""

    widget = forms.Textarea(attrs={"rows": 20, "cols": 100})

    def prepare_value(self, value):
        return "\n".join(value) if isinstance(value, list | tuple) else value

    def to_python(self, value) -> list[str]:
        if isinstance(value, list):
            return value
        return [line.strip() for line in str(value or "").splitlines() if line.strip()]


class PromptSetForm(forms.ModelForm):
    prompts = PromptLinesField(help_text="One prompt per line; each line is one GRPO group's "
                                         "prompt. Blank lines are dropped.")


@admin.register(PromptSet)
class PromptSetAdmin(admin.ModelAdmin):
    form = PromptSetForm
    list_display = ("name", "prompt_count", "preset", "created")
    list_filter = ("preset",)
    search_fields = ("name", "description")
    fields = ("name", "description", "prompts", "preset", "created")
    readonly_fields = ("preset", "created")

    @admin.display(description="prompts")
    def prompt_count(self, prompt_set: PromptSet) -> int:
        return len(prompt_set.prompts or [])

    def save_model(self, request, obj, form, change):
        if not change:
            obj.preset = False
        super().save_model(request, obj, form, change)
