"""What each process of a multi-process run does once Django is set up
(rank_main.py starts it): join the others, check the launcher started as
many as the run asks for, and train through the worker's claim."""
from __future__ import annotations

import logging
from pathlib import Path

from accelerate import PartialState

from ..models import TrainingRun
from ..sampling.device import device_choose
from .callbacks import RunLease
from .config import RunConfig
from .job import run_train

logger = logging.getLogger("training.runs.rank_main")


def rank_train(*, run_id: int, token: str, checkpoint: str | None,
               progress_extra: dict) -> None:
    run = TrainingRun.objects.select_related("snapshot").get(pk=run_id)
    grpo = RunConfig.from_launched(run.launched_config)
    # On CPUs accelerate joins the processes (gloo) only when told they are CPUs.
    state = PartialState(cpu=device_choose(grpo.device) == "cpu")
    try:
        if state.num_processes != grpo.processes:
            config = (f" (accelerate config {grpo.accelerate_config})"
                      if grpo.accelerate_config else "")
            raise LaunchMismatch(f"the run asks for {grpo.processes} processes and accelerate "
                                 f"launch started {state.num_processes}{config}: a config "
                                 "whose distributed_type is NO starts one")
        logger.info("run %s: process %s of %s on %s", run.pk, state.process_index,
                    state.num_processes, state.device)
        run_train(run=run, lease=RunLease(run_id=run.pk, token=token),
                  checkpoint=Path(checkpoint) if checkpoint else None,
                  progress_extra=progress_extra)
    finally:
        state.destroy_process_group()


class LaunchMismatch(RuntimeError):
    """accelerate launch did not start the processes the run asks for."""
