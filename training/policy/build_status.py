"""What a policy build is doing, for the pages that wait on it.

A build takes minutes (the tiny policy: about 29 beside the demo's renders,
which go first, on two cores), usually on the train worker that `make demo`
queues it to. While it runs, the builder
holds an exclusive lock on `.<name>.build.lock` beside the policy folder
and keeps `.<name>.build.json` up to date: its phase, the share of SFT done,
the loss, or why it failed. The web process reads that file; the lock tells
a live build from one whose process died (a killed process drops its lock).
"""
from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from jobs.estimates import MIN_SECONDS

BUILDING, DONE, FAILED, STOPPED = "building", "done", "failed", "stopped"


class BuildBusy(RuntimeError):
    """Another process is building the same policy."""


@dataclass
class BuildStatus:
    state: str
    message: str = ""
    done: float = 0.0  # share of the SFT budget spent, 0..1
    # Seconds SFT itself has run: the corpus and tokenizer before it take
    # minutes that say nothing about SFT's pace (measured from the build's
    # start, the time left was several times too long).
    sft_elapsed_s: float = 0.0
    step: int = 0
    loss: float | None = None
    started: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)
    # The building thread's nice value (a queued build gives way to renders:
    # training.tasks.policy_bootstrap_task).
    niceness: int | None = None

    @property
    def eta_s(self) -> float | None:
        """Seconds of SFT left at SFT's own pace so far; None ("estimating…")
        before MIN_SECONDS of it, whose first steps warm up."""
        if (self.state != BUILDING or not 0 < self.done < 1
                or self.sft_elapsed_s < MIN_SECONDS):
            return None
        return self.sft_elapsed_s * (1 - self.done) / self.done


def status_path(out: str | Path) -> Path:
    out = Path(out)
    return out.parent / f".{out.name}.build.json"


def _lock_path(out: str | Path) -> Path:
    out = Path(out)
    return out.parent / f".{out.name}.build.lock"


def build_status(out: str | Path) -> BuildStatus | None:
    """The last build's status, with a build whose process is gone marked
    `stopped`; None when no build was ever recorded here."""
    try:
        data = json.loads(status_path(out).read_text())
        status = BuildStatus(**{k: v for k, v in data.items()
                                if k in BuildStatus.__dataclass_fields__})
    except (OSError, ValueError, TypeError):
        return None
    if status.state == BUILDING and not _locked(out):
        status.state = STOPPED
        status.message = f"its process ended at {status.message or 'the start'}"
    return status


class BuildTracker:
    """Writes a build's status as it goes; use as `with build_tracked(out) as tracker`."""

    def __init__(self, out: Path):
        self.out = out
        self.status = BuildStatus(state=BUILDING, message="starting", niceness=os.nice(0))

    def log(self, message: str) -> None:
        self.status.message = message
        self._write()

    def progress(self, p) -> None:
        """An SftProgress: the share done, step and loss."""
        self.status.done, self.status.step, self.status.loss = p.done, p.step, p.loss
        self.status.sft_elapsed_s = p.elapsed_s
        self.status.message = f"training: step {p.step}, loss {p.loss:.3f}"
        self._write()

    def finish(self, state: str, message: str) -> None:
        self.status.state, self.status.message = state, message
        if state == DONE:
            self.status.done = 1.0
        self._write()

    def _write(self) -> None:
        self.status.updated = time.time()
        path = status_path(self.out)
        partial = path.with_name(path.name + f".{os.getpid()}")
        partial.write_text(json.dumps(asdict(self.status)) + "\n")
        partial.replace(path)  # readers never see half a file


@contextmanager
def build_tracked(out: str | Path):
    """Hold the build lock of `out` (BuildBusy if another process holds it)
    and record the build's status: done when the block ends, failed with the
    error when it raises."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(_lock_path(out), "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BuildBusy(f"another process is building the policy in {out}") from None
        tracker = BuildTracker(out)
        tracker._write()
        try:
            yield tracker
        except BaseException as exc:
            tracker.finish(FAILED, f"{type(exc).__name__}: {exc}")
            raise
        tracker.finish(DONE, f"saved in {out}")


def _locked(out: str | Path) -> bool:
    """Whether a live process holds the build lock of `out`."""
    try:
        with open(_lock_path(out), "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(lock, fcntl.LOCK_UN)
            return False
    except OSError:
        return False
