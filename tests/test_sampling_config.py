"""The sampling settings, defined once (training/sampling/config.py) and
shared by every job that samples a policy: a run (RunConfig), its probe, a
prompt optimisation and a calibration. The copies these replaced checked
differently (a calibration let a NaN temperature through, an optimisation a
0-token budget and any chat template arguments); each job now refuses the
same values with the same words. And each setting stands in at most two
places in the code: the config's field and the rows' model field."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from training.calibration.config import CalibrationConfig, CalibrationConfigError
from training.models import PromptOptimisation, TrainingRun
from training.optimiser.services import _budget_problems
from training.runs.config import RunConfig, RunConfigError
from training.sampling.config import SamplingConfig, SamplingConfigError

ROOT = Path(__file__).resolve().parent.parent
BAD = [({"temperature": float("nan")}, "temperature must be positive, got nan"),
       ({"temperature": 0.0}, "temperature must be positive, got 0.0"),
       ({"max_completion_length": 0}, "max_completion_length must be at least 1, got 0"),
       ({"chat_template_kwargs": ["enable_thinking"]},
        "chat_template_kwargs must be a JSON object")]


def good() -> dict:
    return SamplingConfig.of(TrainingRun()).to_dict()


def calibration(**changes) -> CalibrationConfig:
    return CalibrationConfig(
        policy={"label": "p", "path": "/p", "run": None}, judge={"id": 1},
        prompts=["a house"], system_prompt={"text": "draw"}, samples_per_prompt=2,
        renders="process", **{**good(), **changes})


class TestOneCheck:
    @pytest.mark.parametrize("bad, said", BAD)
    def test_every_job_refuses_the_same_values_in_the_same_words(self, bad, said):
        with pytest.raises(SamplingConfigError, match=re.escape(said)):
            SamplingConfig(**{**good(), **bad})
        with pytest.raises(RunConfigError, match=re.escape(said)):
            RunConfig(**{**RunConfig.from_run(TrainingRun()).to_dict(), **bad})
        with pytest.raises(CalibrationConfigError, match=re.escape(said)):
            calibration(**bad)
        job = PromptOptimisation(**bad)
        assert any(said in problem for problem in _budget_problems(job, 3))

    def test_a_new_jobs_defaults_sample(self):
        assert SamplingConfig.of(TrainingRun()) == SamplingConfig.of(PromptOptimisation())
        assert _budget_problems(PromptOptimisation(), 3) == []

    def test_a_stored_config_refuses_what_it_does_not_know_and_fills_what_came_later(self):
        with pytest.raises(SamplingConfigError, match=r"unknown \['top_k'\]"):
            SamplingConfig.from_dict({**good(), "top_k": 5})
        old = {k: v for k, v in good().items() if k != "chat_template_kwargs"}
        assert SamplingConfig.from_dict(old).chat_template_kwargs == {}


class TestSharedByTheJobs:
    def test_the_wider_configs_extend_it_and_never_declare_a_sampling_setting_again(self):
        names = set(SamplingConfig.names())
        for config in (RunConfig, CalibrationConfig):
            assert issubclass(config, SamplingConfig)
            assert names <= set(config.names())
            assert not names & set(vars(config).get("__annotations__", {}))

    def test_a_stored_calibration_round_trips_beside_what_its_launch_recorded(self):
        config = calibration(temperature=0.5)
        stored = {**config.to_dict(), "versions": {"torch": "2"}, "launched": "today",
                  "prompt_set": {"id": 1, "name": "p"}}
        assert CalibrationConfig.from_stored(stored) == config
        with pytest.raises(CalibrationConfigError, match=r"unknown \['vibes'\]"):
            CalibrationConfig.from_stored({**stored, "vibes": 1})

    def test_each_sampling_setting_is_declared_once(self):
        """Its config's field, which declares the rows' model field too
        (config_base.settings_model); read by everyone else, never declared
        again, on a model or a form."""
        sources = [p for p in (ROOT / "training").rglob("*.py") if "migrations" not in p.parts]
        for name in SamplingConfig.names():
            declared = re.compile(rf"^\s+{name}\s*(:[^=]+)?=\s*(models\.|forms\.|setting\()",
                                  re.M)
            places = [p.relative_to(ROOT).as_posix() for p in sources
                      for _ in declared.finditer(p.read_text())]
            assert places == ["training/sampling/config.py"], name
