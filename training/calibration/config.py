"""A calibration job's settings as one object: checked once at launch, frozen
into pool.models.Calibration.config, read by the worker (worker.py).

The policy and judge are recorded by value (label, path; id, name,
backend): the pool shows a calibration without reading the training app's
rows, and the worker refuses a judge row deleted since the launch."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from pool.calibration import PER_MEMBER

from ..runs.conf import RENDERS


class CalibrationConfigError(ValueError):
    """Settings a calibration cannot run with; `problems` names each, with its values."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class CalibrationConfig:
    # --- what is measured ---------------------------------------------------
    policy: dict  # {"label", "path", "run"}: the folder training.policy.policy_load reads
    judge: dict  # {"id", "name", "backend"}: a training.models.Judge row that compares
    # --- the policy's rollouts ----------------------------------------------
    prompts: list[str]
    system_prompt: dict  # {"id", "label", "text"}
    samples_per_prompt: int  # rollouts of each prompt, drawn at the prompt's seed
    max_completion_length: int  # tokens
    temperature: float
    renders: str = "process"  # the worker's browsers, or "fleet" (PAINTRL_RUN_RENDERS)
    # --- the comparisons ----------------------------------------------------
    per_member: int = PER_MEMBER  # rollouts each member meets (pool.calibration)
    seed: int = 0  # the prompts' sampling and render seeds, and who meets whom
    chat_template_kwargs: dict = field(default_factory=dict)  # e.g. {"enable_thinking": False}

    def __post_init__(self):
        if problems := self.problems():
            raise CalibrationConfigError(problems)

    def problems(self) -> list[str]:
        problems = []
        if not self.prompts or not all(isinstance(p, str) and p.strip() for p in self.prompts):
            problems.append("the prompt set needs a non-empty list of non-empty prompts")
        if self.samples_per_prompt < 1:
            problems.append(f"samples_per_prompt must be at least 1, got "
                            f"{self.samples_per_prompt}")
        if self.per_member < 1:
            problems.append(f"comparisons per member must be at least 1, got {self.per_member}")
        if self.max_completion_length < 1:
            problems.append(f"max_completion_length must be at least 1 token, got "
                            f"{self.max_completion_length}")
        if self.temperature <= 0:
            problems.append(f"temperature {self.temperature:g} must be above 0 (rollouts are "
                            "sampled)")
        if self.renders not in RENDERS:
            problems.append(f"renders must be one of {', '.join(RENDERS)}, got {self.renders!r}")
        if not isinstance(self.chat_template_kwargs, dict):
            problems.append("chat_template_kwargs must be a JSON object")
        return problems

    @property
    def rollouts(self) -> int:
        return len(self.prompts) * self.samples_per_prompt

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> CalibrationConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{key: value for key, value in data.items() if key in names})
