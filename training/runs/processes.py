"""A tree of processes to stop: the training processes `accelerate launch`
starts (supervisor.py) and the browsers they start.

A process group is not enough to find them: torch's elastic agent starts
each rank in a session of its own, and Playwright each browser in a process
group of its own. So the tree is walked from its root, and every process ever seen in
it is remembered: one whose parent died is re-parented out of the walk, and
is stopped all the same.
"""
from __future__ import annotations

import psutil

# Between SIGTERM and SIGKILL: enough for torch's elastic agent to pass
# SIGTERM on to its ranks and for them to exit.
KILL_GRACE_S = 15.0


class ProcessTree:
    """Every process under `root` that has been seen, as psutil handles
    (which tell a reused pid from the process they saw)."""

    def __init__(self, root: int):
        self.seen: dict[int, psutil.Process] = {}
        try:
            self.root = psutil.Process(root)
        except psutil.NoSuchProcess:
            self.root = None
        self.refresh()

    def refresh(self) -> None:
        """Remember the processes under the root, and under those seen before."""
        for process in [*([self.root] if self.root else []), *self.seen.values()]:
            for found in [process, *_children(process)]:
                self.seen.setdefault(found.pid, found)

    def alive(self) -> list[psutil.Process]:
        return [process for process in self.seen.values() if running(process)]

    def stop(self) -> None:
        """SIGTERM to every process still running, SIGKILL to those left
        KILL_GRACE_S later."""
        self.refresh()
        alive = self.alive()
        for process in alive:
            _signal(process, "terminate")
        _, left = psutil.wait_procs(alive, timeout=KILL_GRACE_S)
        for process in left:
            _signal(process, "kill")
        psutil.wait_procs(left, timeout=KILL_GRACE_S)


def running(process: psutil.Process) -> bool:
    """Still there, and not a zombie waiting for its parent to reap it."""
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _children(process: psutil.Process) -> list[psutil.Process]:
    try:
        return process.children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _signal(process: psutil.Process, how: str) -> None:
    try:
        getattr(process, how)()
    except psutil.NoSuchProcess:
        pass
