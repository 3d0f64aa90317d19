"""A run's GRPO settings as one object (training/runs/config.py) and the run
settings read from Django's (training/runs/conf.py): the checks name their
values and are all reported at once, a stored config round-trips and refuses
what it does not know, the object is ordered as the admin's GRPO fieldset,
and the engine's TRL config is built from it."""
from __future__ import annotations

import dataclasses

import pytest
from django.core.exceptions import ImproperlyConfigured

from training.models import TrainingRun
from training.runs import conf
from training.runs.config import RunConfig, RunConfigError
from training.sampling import conf as sampling_conf


def settings_of(**changes) -> dict:
    """A new run's GRPO settings (TrainingRun's defaults), with `changes`."""
    return {**RunConfig.from_run(TrainingRun()).to_dict(), **changes}


class TestChecks:
    def test_a_new_runs_defaults_are_valid_and_round_trip(self):
        config = RunConfig.from_run(TrainingRun())
        assert RunConfig.from_dict(config.to_dict()) == config
        assert config.batch_size == config.num_generations * config.prompts_per_step

    def test_a_check_relating_two_settings_names_both_values(self):
        with pytest.raises(RunConfigError, match=r"warmup_steps \(9\) exceeds max_steps \(4\)"):
            RunConfig(**settings_of(warmup_steps=9, max_steps=4))

    def test_every_problem_is_reported_at_once(self):
        with pytest.raises(RunConfigError) as error:
            RunConfig(**settings_of(num_generations=1, learning_rate=0.0, beta=-1.0,
                                     save_steps=0, temperature=float("nan")))
        assert len(error.value.problems) == 5
        for expected in ("num_generations is 1", "learning_rate must be positive, got 0.0",
                         "beta must be 0 or more, got -1.0", "save_steps must be at least 1, "
                         "got 0", "temperature must be positive, got nan"):
            assert expected in str(error.value)

    def test_lora_rank_is_checked_only_for_a_lora_run(self):
        RunConfig(**settings_of(lora=False, lora_rank=0))
        with pytest.raises(RunConfigError, match="lora_rank must be at least 1.*got 0"):
            RunConfig(**settings_of(lora=True, lora_rank=0))

    def test_a_choice_outside_the_runs_choices_is_refused(self):
        with pytest.raises(RunConfigError, match="device must be one of auto, cpu, cuda, "
                                                  "got 'tpu'"):
            RunConfig(**settings_of(device="tpu"))

    def test_the_object_is_frozen(self):
        config = RunConfig.from_run(TrainingRun())
        with pytest.raises(dataclasses.FrozenInstanceError):
            config.max_steps = 1


class TestScaleSettings:
    def test_the_batch_must_split_into_processes_and_micro_batches(self):
        RunConfig(**settings_of(num_generations=4, prompts_per_step=2, processes=2,
                                 gradient_accumulation_steps=2))
        with pytest.raises(RunConfigError, match=r"the batch \(1 prompts x 6 generations = "
                                                  r"6\) must split evenly into processes \(2\) "
                                                  r"x gradient_accumulation_steps \(2\) = 4"):
            RunConfig(**settings_of(num_generations=6, prompts_per_step=1, processes=2,
                                     gradient_accumulation_steps=2))

    def test_vllm_settings_are_checked(self):
        with pytest.raises(RunConfigError) as error:
            RunConfig(**settings_of(use_vllm=True, device="cpu", vllm_mode="server",
                                     vllm_server_host=" ", vllm_server_port=0,
                                     vllm_gpu_memory_utilization=1.5))
        for expected in ("use_vllm needs a CUDA GPU, and device is cpu",
                         "vLLM server mode needs vllm_server_host",
                         "vllm_server_port must be a TCP port, got 0",
                         "more than 0 and at most 1, got 1.5"):
            assert expected in str(error.value)
        with pytest.raises(RunConfigError, match="vllm_mode must be one of colocate, server"):
            RunConfig(**settings_of(vllm_mode="remote"))

    def test_chat_template_arguments_must_be_an_object(self):
        RunConfig(**settings_of(chat_template_kwargs={"enable_thinking": False}))
        with pytest.raises(RunConfigError, match="chat_template_kwargs must be a JSON object"):
            RunConfig(**settings_of(chat_template_kwargs=["enable_thinking"]))

    def test_a_tracker_that_is_not_installed_is_named_with_its_install(self):
        from importlib.util import find_spec

        if find_spec("wandb") is not None:
            pytest.skip("wandb is installed here")
        config = RunConfig(**settings_of(report_to="wandb"))
        assert config.packages_missing() == [
            "report_to wandb needs the wandb package (pip install wandb)"]
        assert RunConfig(**settings_of()).packages_missing() == []

    def test_the_defaults_train_in_one_process_rendering_in_it(self):
        config = RunConfig.from_run(TrainingRun())
        assert not config.distributed and config.renders == "process"
        assert config.micro_batch_size == config.batch_size
        assert RunConfig(**settings_of(accelerate_config="/etc/fsdp.yaml")).distributed

    def test_the_render_default_comes_from_the_setting(self, settings):
        settings.PAINTRL_RUN_RENDERS = "fleet"
        assert TrainingRun().renders == "fleet"
        settings.PAINTRL_RUN_RENDERS = "cloud"
        with pytest.raises(ImproperlyConfigured, match="PAINTRL_RUN_RENDERS must be one of "
                                                       "process, fleet, got 'cloud'"):
            sampling_conf.renders_default()


class TestStoredConfig:
    def test_a_config_launched_before_the_scale_settings_reads_as_it_trained(self):
        from training.runs.config import LAUNCHED_BEFORE

        old = {k: v for k, v in settings_of(processes=4, renders="fleet").items()
               if k not in LAUNCHED_BEFORE}
        config = RunConfig.from_dict(old)
        assert config.processes == 1 and config.renders == "process" and not config.use_vllm
        assert config.gradient_accumulation_steps == 1 and config.chat_template_kwargs == {}


    def test_unknown_and_missing_settings_are_refused_not_filled_in(self):
        values = settings_of(vibes=1)
        del values["learning_rate"]
        with pytest.raises(RunConfigError, match=r"unknown \['vibes'\], missing "
                                                  r"\['learning_rate'\]"):
            RunConfig.from_dict(values)

    def test_a_launched_run_is_read_from_its_launched_config_not_its_fields(self):
        run = TrainingRun(max_steps=30, launched_config={"grpo": settings_of(max_steps=7)})
        assert RunConfig.from_launched(run.launched_config).max_steps == 7


class TestOneDefinition:
    """Each GRPO setting is one field of RunConfig: the admin's fieldsets,
    the launch (from_run and a clone), the launched config, TRL's arguments
    and the defaults of runs launched before it existed all follow from it."""

    def test_the_admins_run_fieldsets_hold_each_setting_once_each_a_run_field(self):
        from training.admin.runs import RUN_SETTINGS
        from training.runs.config import SECTIONS

        fieldsets = dict(RUN_SETTINGS)
        shown = [name for title, _ in SECTIONS for name in fieldsets[title]["fields"]]
        assert sorted(shown) == sorted(RunConfig.names())
        # Each is a field of the run the config is built from (from_run reads them).
        assert set(shown) <= {field.name for field in TrainingRun._meta.get_fields()}

    def test_a_launch_freezes_and_a_clone_copies_exactly_these_fields(self):
        from training.runs.services import GRPO_FIELDS

        assert GRPO_FIELDS == RunConfig.names()
        assert tuple(RunConfig.from_run(TrainingRun()).to_dict()) == RunConfig.names()

    def test_each_setting_trl_takes_as_it_is_reaches_it_the_rest_are_derived(self, tmp_path):
        from dataclasses import fields

        from training.runs.engine import grpo_args

        config = RunConfig(**settings_of(
            num_generations=3, prompts_per_step=2, max_steps=9, learning_rate=2e-4,
            warmup_steps=1, max_completion_length=77, temperature=0.7, beta=0.01,
            seed=5, save_steps=3, scale_rewards="batch", vllm_server_port=8123,
            vllm_server_host="10.0.0.9", vllm_gpu_memory_utilization=0.4,
            gradient_checkpointing=True, chat_template_kwargs={"enable_thinking": False},
            report_to="tensorboard"))
        args = grpo_args(config, output_dir=tmp_path, device="cpu")
        derived = set()
        for field in fields(RunConfig):
            if field.metadata["trl"] is None:
                derived.add(field.name)
                continue
            value = getattr(config, field.name)
            if field.name == "report_to":
                value = [value]  # transformers keeps the trackers as a list
            assert getattr(args, field.metadata["trl"]) == value, field.name
        # grpo_args derives TRL's arguments from these, or TRL never sees them (the
        # engine, the supervisor and the renderer read them): a new one is named here.
        assert derived == {"prompts_per_step", "lr_schedule", "lora", "lora_rank", "device",
                           "bf16", "processes", "accelerate_config", "renders", "brush"}

    def test_what_runs_launched_before_a_setting_trained_with_is_a_valid_config(self):
        from training.runs.config import LAUNCHED_BEFORE

        assert "chat_template_kwargs" in LAUNCHED_BEFORE  # a sampling setting's too
        config = RunConfig(**settings_of(**LAUNCHED_BEFORE))
        assert {name: getattr(config, name) for name in LAUNCHED_BEFORE} == LAUNCHED_BEFORE


class TestTrainerArguments:
    def test_trls_config_is_built_from_the_runs_settings(self, tmp_path):
        from training.runs.engine import grpo_args

        config = RunConfig(**settings_of(num_generations=4, prompts_per_step=3, max_steps=10,
                                          warmup_steps=2, lr_schedule="constant",
                                          learning_rate=1e-4, save_steps=5, seed=11))
        args = grpo_args(config, output_dir=tmp_path, device="cpu")
        assert args.per_device_train_batch_size == 12 and args.num_generations == 4
        assert args.max_steps == 10 and args.learning_rate == 1e-4 and args.seed == 11
        # A constant schedule with warmup takes transformers' warmup variant.
        assert args.lr_scheduler_type == "constant_with_warmup"
        assert args.warmup_steps == 2 and args.save_steps == 5
        assert args.save_total_limit == conf.keep_checkpoints()
        # One process, no accumulation: the step's batch is generated and trained at once.
        assert args.gradient_accumulation_steps == 1 and args.steps_per_generation == 1
        assert not args.use_vllm and args.report_to == [] and not args.bf16

    def test_the_scale_settings_reach_trl(self, tmp_path):
        from training.runs.engine import grpo_args

        config = RunConfig(**settings_of(
            num_generations=4, prompts_per_step=4, processes=2, gradient_accumulation_steps=2,
            use_vllm=True, vllm_mode="server", vllm_server_host="10.0.0.7",
            vllm_server_port=8011, gradient_checkpointing=True, bf16="off",
            chat_template_kwargs={"enable_thinking": False}, report_to="tensorboard"))
        args = grpo_args(config, output_dir=tmp_path, device="cuda")
        # 16 rollouts = 2 processes x 2 micro-batches of 4, generated once a step.
        assert args.per_device_train_batch_size == 4 and args.gradient_accumulation_steps == 2
        assert args.steps_per_generation == 2
        assert args.use_vllm and args.vllm_mode == "server"
        assert (args.vllm_server_host, args.vllm_server_port) == ("10.0.0.7", 8011)
        assert args.chat_template_kwargs == {"enable_thinking": False}
        assert args.activation_checkpointing and not args.bf16
        assert args.report_to == ["tensorboard"]

    def test_bf16_auto_is_on_only_where_the_gpu_has_it(self):
        import torch

        from training.runs.engine import bf16_on

        assert bf16_on("on", "cpu") and not bf16_on("off", "cuda")
        assert not bf16_on("auto", "cpu")
        assert bf16_on("auto", "cuda") == (torch.cuda.is_available()
                                           and torch.cuda.is_bf16_supported())


class TestRunSettings:
    def test_values_come_from_django_settings(self, settings):
        settings.PAINTRL_RUN_STALE_S = 90
        settings.PAINTRL_RUN_KEEP_CHECKPOINTS = 3
        settings.PAINTRL_RUN_THREADS = 0
        assert conf.stale_s() == 90.0 and conf.keep_checkpoints() == 3
        assert sampling_conf.torch_threads() is None  # 0: torch's default

    @pytest.mark.parametrize("name, value", [("PAINTRL_RUN_STALE_S", 0),
                                             ("PAINTRL_RUN_KEEP_CHECKPOINTS", 0),
                                             ("PAINTRL_RUN_THREADS", -1)])
    def test_a_bad_value_is_improperly_configured(self, settings, name, value):
        setattr(settings, name, value)
        read = {"PAINTRL_RUN_STALE_S": conf.stale_s,
                "PAINTRL_RUN_KEEP_CHECKPOINTS": conf.keep_checkpoints,
                "PAINTRL_RUN_THREADS": sampling_conf.torch_threads}[name]
        with pytest.raises(ImproperlyConfigured, match=name):
            read()
