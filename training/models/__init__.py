"""The training app's models, a module per feature (one app, label
"training": the tables and migrations are as they were when this was one
module). Import them from here."""
from __future__ import annotations

from .base import NextVersion, RewardJudges
from .calibrations import Calibration, MemberWinRate
from .external import ExternalBatch, ExternalItem, ExternalRun
from .optimisation import PromptCandidate, PromptCandidateQuerySet, PromptOptimisation
from .policy import PolicyBuild
from .prompts import PromptSet, SystemPrompt
from .replays import Replay, ReplayItem
from .runs import Probe, ProbeSample, Rollout, TrainingRun, TrainingStep
from .scoring import Judge, JudgeVerdict, Rubric

__all__ = [
    "NextVersion", "RewardJudges", "Rubric", "Judge", "JudgeVerdict", "Replay",
    "ReplayItem", "SystemPrompt", "PromptSet", "TrainingRun", "TrainingStep", "Rollout", "Probe",
    "ProbeSample", "Calibration", "MemberWinRate", "PromptOptimisation", "PromptCandidateQuerySet",
    "PromptCandidate", "PolicyBuild", "ExternalRun", "ExternalBatch", "ExternalItem"
]
