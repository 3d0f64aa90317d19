"""System prompt optimisations (GEPA) and the candidates they found."""
from __future__ import annotations

from django.db import models

from ..optimiser.config import OptimisationSettings
from .base import LaunchedJob
from .prompts import PromptSet, SystemPrompt
from .scoring import Judge, Rubric


class PromptOptimisation(LaunchedJob, OptimisationSettings):
    """A system prompt evolved by GEPA (the `gepa` package) against a rubric:
    each candidate prompt is scored by sampling the policy with it on the
    prompt set, rendering and scoring the samples; a reflection model (an
    OpenAI-compatible chat endpoint) reads the scores, the gate's violations
    and the unknown brush methods, and writes the next candidate. A draft
    until launched; run by training.optimiser.job on the train worker."""

    prompt_set = models.ForeignKey(PromptSet, on_delete=models.PROTECT, related_name="+",
                                   help_text="Each prompt is one example GEPA scores.")
    seed_prompt = models.ForeignKey(SystemPrompt, on_delete=models.PROTECT, related_name="+",
                                    verbose_name="seed system prompt",
                                    help_text="The candidate GEPA starts from.")
    rubric = models.ForeignKey(Rubric, on_delete=models.PROTECT, related_name="+")
    reflection = models.ForeignKey(
        Judge, on_delete=models.PROTECT, related_name="+", verbose_name="reflection model",
        help_text="An openai judge row: its base URL, model, key variable, timeout and retries "
                  "are the reflection model's (blank ones fall back to PAINTRL_JUDGE_*).")

    class Meta(LaunchedJob.Meta):
        verbose_name = "system prompt optimisation"

    def __str__(self) -> str:
        return self.name or f"prompt optimisation {self.pk}"


class PromptCandidateQuerySet(models.QuerySet):
    """Accepted candidates and rejected proposals: a rejected one has no index
    (PromptCandidate), the one mark of which is which."""

    def accepted(self) -> PromptCandidateQuerySet:
        return self.filter(index__isnull=False)

    def rejected(self) -> PromptCandidateQuerySet:
        return self.filter(index__isnull=True)


class PromptCandidate(models.Model):
    """One of GEPA's proposals. An accepted one is a candidate GEPA keeps (its
    program index `index`; 0 is the seed): its per-prompt results are on the
    whole prompt set, and it may be on GEPA's Pareto front (best on at least
    one prompt). A rejected one was no better than its parent on the
    minibatch both were scored on, so GEPA dropped it without an index or a
    score on the whole prompt set: its results and mean are on that minibatch
    only, beside its parent's mean there (parent_minibatch_score)."""

    optimisation = models.ForeignKey(PromptOptimisation, on_delete=models.CASCADE,
                                     related_name="candidates")
    index = models.PositiveIntegerField(
        null=True, blank=True,
        help_text="GEPA's candidate index (0: the seed); none for a proposal GEPA rejected.")
    text = models.TextField()
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="children")
    iteration = models.PositiveIntegerField(help_text="GEPA's iteration that found it.")
    metric_calls = models.PositiveIntegerField(
        default=0, help_text="Metric calls spent when it was found.")
    results = models.JSONField(
        default=list, help_text="Per prompt (for a rejected proposal, per prompt of its "
                                "minibatch): score, samples judged, gate passes, unknown "
                                "methods, violations.")
    mean_score = models.FloatField(help_text="The mean of its per-prompt scores.")
    parent_minibatch_score = models.FloatField(
        null=True, blank=True,
        help_text="A rejected proposal's parent's mean score on the same minibatch.")
    gate_pass = models.FloatField(null=True, help_text="Share of its samples the gate passed.")
    unknown_method_rate = models.FloatField(
        null=True, help_text="Share of its samples calling a brush method that does not exist.")
    on_front = models.BooleanField(default=False, help_text="On GEPA's Pareto front.")
    system_prompt = models.ForeignKey(
        SystemPrompt, null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The system prompt revision it was saved as.")
    created = models.DateTimeField(auto_now_add=True)

    objects = PromptCandidateQuerySet.as_manager()

    class Meta:
        ordering = ["optimisation", "index"]
        constraints = [models.UniqueConstraint(fields=["optimisation", "index"],
                                               condition=models.Q(index__isnull=False),
                                               name="prompt_candidate_unique")]

    @property
    def accepted(self) -> bool:
        return self.index is not None

    def __str__(self) -> str:
        if not self.accepted:
            return f"proposal rejected at iteration {self.iteration} of {self.optimisation}"
        return f"candidate {self.index} of {self.optimisation}"
