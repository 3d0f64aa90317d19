"""A run's checkpoint folders on the worker's disk (training.policy.run_dir): the one a
run continues from, and those a resume makes stale. The trainer writes them
(engine: `checkpoint-<step>` every save_steps, `final` at the end); a kill
can leave one half written, which holds no trainer_state.json."""
from __future__ import annotations

import logging
import shutil
from pathlib import Path

from ..models import TrainingRun
from ..policy import FINAL, run_dir

logger = logging.getLogger(__name__)

# The trainer's state in a checkpoint: a folder without it cannot be resumed
# from (a save cut short).
TRAINER_STATE = "trainer_state.json"


def checkpoint_resumable(run: TrainingRun) -> Path | None:
    """The folder of the run's last recorded checkpoint, if a whole one is on
    disk; None: start at step 0 (the run has none, or it is missing)."""
    step = run.checkpoint_step
    if not step:
        return None
    checkpoint = run_dir(run.pk) / f"checkpoint-{step}"
    if not (checkpoint / TRAINER_STATE).is_file():
        logger.warning("run %s: checkpoint %s is missing; starting from step 0", run.pk,
                       checkpoint)
        return None
    return checkpoint


def checkpoints_discard(run: TrainingRun, *, after_step: int) -> None:
    """Delete the run's checkpoint folders after `after_step` (a save a kill
    cut short, or steps a resume trains again) and its final policy."""
    out = run_dir(run.pk)
    if not out.is_dir():
        return
    for folder in out.iterdir():
        number = folder.name.removeprefix("checkpoint-")
        newer = number.isdigit() and int(number) > after_step
        if newer or folder.name == FINAL:
            shutil.rmtree(folder, ignore_errors=True)
