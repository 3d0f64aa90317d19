"""Which training process this is, and moving a step's data between the
processes of a multi-process run (`accelerate launch`, supervisor.py).

One process (the main one, rank 0) writes the run's record: heartbeats,
steps, rollouts, the ending. The others train and never write. Data moves
through accelerate's collectives, which every process must call at the same
point of the same step, or all of them wait forever. In a single process
(the run trained in the worker's own) each is the identity, so the same code
serves both.
"""
from __future__ import annotations

from typing import Any


def _state():
    from accelerate import PartialState  # loads torch: only inside a run

    return PartialState()


def is_main() -> bool:
    """The process that writes the run's record (the only one, in a single process)."""
    return _state().is_main_process


def rank() -> int:
    return _state().process_index


def gather_rows(rows: list) -> list:
    """Every process's `rows`, concatenated in rank order, on every process.
    A collective: every process calls it at the same point."""
    from accelerate.utils import gather_object

    return gather_object(rows)


def from_main(value: Any) -> Any:
    """The main process's `value`, on every process (what the others pass is
    ignored). A collective: every process calls it at the same point."""
    from accelerate.utils import broadcast_object_list

    box = [value]
    broadcast_object_list(box, from_process=0)
    return box[0]
