"""One signal of a rubric as scored: its name, kind, weight and checked
parameters; and the error a bad rubric raises."""
from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field


class RubricError(ValueError):
    """A rubric's signal list is not valid; the message says where and why."""


@dataclass(frozen=True)
class SignalSpec:
    name: str
    kind: str
    weight: float
    params: Mapping = field(default_factory=dict)

    @property
    def key(self) -> str:
        """Identifies the computation: two signals with the same kind and
        parameters (in two rubrics compared side by side) are computed once."""
        return f"{self.kind}:{json.dumps(dict(self.params), sort_keys=True)}"
