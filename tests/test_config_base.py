"""One declaration per setting (training.config_base.setting): the row's
field, the admin's check, the compare page, the run page's summary and the
calibration form all follow from it. Each test holds a behaviour where two
copies of a setting once disagreed."""
from __future__ import annotations

from dataclasses import fields

import pytest
from django.core.exceptions import ValidationError

from training.calibration.config import CHOSEN, CalibrationConfig
from training.calibration.forms import CalibrationForm
from training.config_base import declared_field, label
from training.models import PromptOptimisation, TrainingRun
from training.optimiser.config import OptimisationConfig
from training.runs.config import RunConfig, RunConfigError

# A value of each kind of setting that is no new run's default.
CHANGED = {bool: lambda v: not v, int: lambda v: v + 3, float: lambda v: v * 2 + 0.125,
           str: lambda v: v + "x", dict: lambda v: {**v, "enable_thinking": False}}


def _changed(run: TrainingRun, name: str):
    field = declared_field(next(f for f in fields(RunConfig) if f.name == name))
    if field.choices:
        return next(value for value, _ in field.choices if value != getattr(run, name))
    return CHANGED[type(getattr(run, name))](getattr(run, name))


class TestTheRowsFields:
    @pytest.mark.parametrize("config, model", [(RunConfig, TrainingRun),
                                               (OptimisationConfig, PromptOptimisation)])
    def test_each_setting_is_the_rows_field_as_declared(self, config, model):
        for f in fields(config):
            declared, field = declared_field(f), model._meta.get_field(f.name)
            assert field.deconstruct()[1:] == declared.deconstruct()[1:], f.name

    def test_the_admin_refuses_what_the_launch_would_in_the_configs_words(self):
        # The row's clean() once checked only chat_template_kwargs, in its own words.
        run = TrainingRun(warmup_steps=9, max_steps=4, chat_template_kwargs=[1])
        with pytest.raises(ValidationError) as refused:
            run.clean()
        said = " ".join(refused.value.messages)
        assert "warmup_steps (9) exceeds max_steps (4)" in said
        assert "chat_template_kwargs must be a JSON object" in said
        with pytest.raises(ValidationError, match="minibatch_size must be at least 1"):
            PromptOptimisation(minibatch_size=0).clean()
        TrainingRun().clean()  # a new run's defaults are valid


class TestChoices:
    def test_each_setting_with_choices_is_checked_against_its_fields_choices(self):
        # The check was a hand list beside the fields: a new choice setting could miss it.
        with_choices = [f.name for f in fields(RunConfig) if declared_field(f).choices]
        assert {"lr_schedule", "scale_rewards", "device", "vllm_mode", "bf16", "renders",
                "brush", "report_to"} == set(with_choices)
        new = RunConfig.from_run(TrainingRun()).to_dict()
        for name in with_choices:
            with pytest.raises(RunConfigError, match=f"{name} must be one of .*got 'nonsense'"):
                RunConfig(**{**new, name: "nonsense"})


@pytest.mark.django_db
class TestWhatThePagesSay:
    @pytest.fixture
    def runs(self):
        from tests.lab_data import presets_ensure
        from tests.run_data import run_create

        presets_ensure()
        return run_create(name="a"), run_create(name="b")

    def test_runs_that_differ_in_any_setting_show_it_on_the_compare_page(self, runs):
        # The compared list once left out brush, bf16, vLLM, the schedule...
        from training.runs.compare import settings_table

        first, second = runs
        for f in fields(RunConfig):
            setattr(second, f.name, _changed(first, f.name))
        differing, _ = settings_table([first, second])
        shown = {row["setting"] for row in differing}
        assert {label(f) for f in fields(RunConfig)} <= shown

    def test_no_setting_changed_from_its_default_is_silent_in_the_run_summary(self, runs):
        # The summary once said only the scale settings someone had listed.
        from training.runs.presenters import run_settings_summary

        run = runs[0]
        for f in fields(RunConfig):
            # The rank is read only when LoRA is on, and said only then.
            run.lora = f.name == "lora_rank"
            before = run_settings_summary(run)
            value = getattr(run, f.name)
            setattr(run, f.name, _changed(run, f.name))
            assert run_settings_summary(run) != before, f.name
            setattr(run, f.name, value)


class TestTheCalibrationForm:
    def test_its_settings_start_at_the_configs_defaults_within_its_bounds(self):
        # The form once held its own defaults beside the launch's and the config's.
        form = CalibrationForm()
        for name in CHOSEN:
            default = next(f.default for f in fields(CalibrationConfig) if f.name == name)
            assert form.fields[name].initial == default, name
        bounded = CalibrationForm({"samples_per_prompt": 65, "per_member": 257, "seed": 0})
        assert not bounded.is_valid()
        assert {"samples_per_prompt", "per_member"} <= set(bounded.errors)
