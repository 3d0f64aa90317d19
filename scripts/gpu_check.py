"""The GPU check (scripts/gpu_check.sh runs this): short GRPO runs of the
built-in policy on a CUDA machine, through the admin's launch service, each
printing its step times.

1. baseline: one process, transformers' generate;
2. vllm-colocate: vLLM generates inside the training process;
3. processes-2: `accelerate launch` with 2 processes (needs 2 GPUs; skipped,
   saying so, with fewer).

The rubric is the gate and a length ramp, so no reward model or pool
snapshot is needed: this checks the machinery, not the taste. Runs are
trained by the train task in this process (Celery eager), against a
throwaway SQLite database and media folder.

    .venv/bin/python scripts/gpu_check.py --policy DIR [--steps 3] [--only NAME]

`--device cpu` runs the baseline check on the CPU: a smoke test of this
script on a machine without a GPU.
"""
# ruff: noqa: E402  (Django is set up before the project's imports)
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RUBRIC = [{"name": "gate", "kind": "gate", "weight": 0.5},
          {"name": "length", "kind": "length", "weight": 0.5,
           "params": {"mode": "ramp", "target_tokens": 200}}]
CHECKS = {
    "baseline": {},
    "vllm-colocate": {"use_vllm": True, "vllm_mode": "colocate",
                      "vllm_gpu_memory_utilization": 0.3},
    "processes-2": {"processes": 2},
}


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--policy", required=True, help="the built-in policy's folder")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--only", choices=sorted(CHECKS), action="append",
                        help="run only this check (repeatable)")
    parser.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    return parser.parse_args()


def run_check(name: str, settings: dict, *, policy: str, steps: int, device: str) -> None:
    import torch

    # After main()'s django.setup() on the scratch database the arguments chose.
    from training.models import Judge, PromptSet, Rubric, SystemPrompt, TrainingRun, TrainingStep
    from training.presets import LOCAL_JUDGE, PROMPT_SET_NAME, SYSTEM_PROMPT_NAME
    from training.runs.services import RunError, run_launch

    if device == "cpu" and settings:
        print(f"\n{name}: skipped on the CPU")
        return
    if device == "cuda" and settings.get("processes", 1) > torch.cuda.device_count():
        print(f"\n{name}: skipped, {settings['processes']} processes need as many GPUs and this "
              f"machine has {torch.cuda.device_count()}")
        return
    local = Judge.objects.get(name=LOCAL_JUDGE)
    run = TrainingRun.objects.create(
        name=f"gpu-check {name}", base_model=policy,
        prompt_set=PromptSet.objects.get(name=PROMPT_SET_NAME),
        system_prompt=SystemPrompt.objects.filter(name=SYSTEM_PROMPT_NAME).first(),
        rubric=Rubric.objects.create(name=f"gpu-check {name}", signals=RUBRIC),
        judge=local, scorer=local, num_generations=8, prompts_per_step=2, max_steps=steps,
        max_completion_length=256, save_steps=steps, device=device, **settings)
    started = time.monotonic()
    try:
        run_launch(run=run)  # eager Celery: the train task runs here
    except RunError as error:
        print(f"\n{name}: refused at launch: {error}")
        return
    run.refresh_from_db()
    print(f"\n{name}: {run.status} in {time.monotonic() - started:.0f} s"
          + (f"\n  error: {run.error}" if run.error else ""))
    rows = list(TrainingStep.objects.filter(run=run).order_by("step"))
    for row in rows:
        times = ", ".join(f"{key} {value:.1f}" for key, value in row.times.items())
        print(f"  step {row.step}: reward {row.reward_mean}, gate {row.gate_pass}; s: {times}")
    if rows:
        print(f"  median step {statistics.median(r.times['total'] for r in rows):.1f} s")


def main() -> None:
    args = arguments()
    scratch = tempfile.TemporaryDirectory(prefix="paintrl-gpu-check-")
    os.environ["DATABASE_URL"] = f"sqlite:///{scratch.name}/check.sqlite3"
    os.environ["PAINTRL_MEDIA_ROOT"] = f"{scratch.name}/media"
    os.environ["PAINTRL_CELERY_EAGER"] = "1"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paintrl_site.settings")
    import django

    django.setup()
    import torch
    from django.core.management import call_command

    if args.device == "cuda":
        if not torch.cuda.is_available():
            raise SystemExit("no CUDA GPU here: this check is for a GPU machine "
                             "(--device cpu smoke-tests the script)")
        print(f"{torch.cuda.device_count()} x {torch.cuda.get_device_name(0)}, torch "
              f"{torch.__version__}")
    call_command("migrate", verbosity=0)
    try:
        for name in args.only or CHECKS:
            run_check(name, CHECKS[name], policy=args.policy, steps=args.steps,
                      device=args.device)
    finally:
        scratch.cleanup()


if __name__ == "__main__":
    main()
