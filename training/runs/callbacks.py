"""What the trainer tells the run as it goes: a TrainingStep row per optimizer
step, the run's progress and heartbeat, checkpoints saved, and the cancel
flag obeyed at the step boundary. In a multi-process run the main process
tells it, and every process stops at the boundary it chose (ranks.py).

How a step's time is split (TrainingStep.times, seconds):
- total: on_step_begin to on_step_end, one optimizer step;
- generate: time inside GRPOTrainer._generate (tokenising prompts, sampling
  completions, decoding), measured by engine.TimedGRPOTrainer;
- render, judge, store: the reward function's three phases (rewards.py);
- update: from the reward function's return to on_step_end: advantages, the
  loss's forward and backward passes and the optimizer step;
- other: total minus the rest (padding, the reference model's log-probs when
  beta > 0, fetching the batch), so the parts always add up to total.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from transformers import TrainerCallback

from jobs.estimates import estimate_left, samples_from_durations
from jobs.lease import JobSuperseded
from jobs.lease import Lease as JobLease

from ..models import TrainingRun, TrainingStep
from . import ranks

Status = TrainingRun.Status

class RunSuperseded(JobSuperseded):
    """Another worker owns the run now (it was resumed or cancelled as
    stalled while this one was slow): this worker stops and writes nothing."""


class RunLease(JobLease):
    """This worker's claim on a run (jobs.lease): every write goes through
    `beat`, which only touches the run while this worker still owns it. In a
    multi-process run the worker holds the claim and its main training
    process writes through it (supervisor.py)."""

    superseded = RunSuperseded

    def __init__(self, run_id: int, token: str):
        super().__init__(model=TrainingRun, pk=run_id, token=token)
        self.run_id = run_id


@dataclass
class StepClock:
    """Seconds spent in each phase of the current step (module docstring)."""

    started: float | None = None
    generate: float = 0.0
    render: float = 0.0
    judge: float = 0.0
    store: float = 0.0
    reward_ended: float | None = None

    def start(self) -> None:
        self.started, self.reward_ended = time.perf_counter(), None
        self.generate = self.render = self.judge = self.store = 0.0

    def times(self, now: float) -> dict[str, float]:
        total = now - (self.started if self.started is not None else now)
        update = now - self.reward_ended if self.reward_ended is not None else 0.0
        parts = {"generate": self.generate, "render": self.render, "judge": self.judge,
                 "store": self.store, "update": update}
        parts["other"] = max(0.0, total - sum(parts.values()))
        return {key: round(value, 3) for key, value in {**parts, "total": total}.items()}


@dataclass
class StepBook:
    """Shared by the reward function and the callback: the clock, each step's
    reward summary (rewards.step_summary) until its row is written, and the
    notices of the judges."""

    clock: StepClock = field(default_factory=StepClock)
    summaries: dict[int, dict] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)

    def notice(self, text: str) -> None:
        """Say `text` in the run's notices, once however often it recurs."""
        if text not in self.notices:
            self.notices.append(text)


class RunCallback(TrainerCallback):
    """Records each step and obeys the cancel flag; see the module docstring.
    Every process of a multi-process run calls it; only the main one writes,
    and every process follows its cancel decision, so all of them stop after
    the same step."""

    def __init__(self, *, lease: RunLease, book: StepBook, max_steps: int,
                 progress_extra: dict | None = None):
        self.lease, self.book, self.max_steps = lease, book, max_steps
        self.progress_extra = dict(progress_extra or {})  # kept in every progress row
        self.cancelled = False
        self._times: dict[int, dict] = {}
        self._step_seconds: list[float] = []

    def on_train_begin(self, args, state, control, **kwargs):
        if ranks.is_main():
            self.lease.beat(force=True,
                            progress=self._progress(state.global_step, stage="training"))

    def on_step_begin(self, args, state, control, **kwargs):
        self.book.clock.start()

    def on_step_end(self, args, state, control, **kwargs):
        stop = False
        if ranks.is_main():
            times = self.book.clock.times(time.perf_counter())
            self._times[state.global_step] = times
            self._step_seconds.append(times["total"])
            self.lease.beat(force=True)
            stop = state.global_step < self.max_steps and self.lease.cancel_requested()
        # A process that stopped alone would leave the others waiting in the
        # next step's collectives: all of them follow the main one.
        if ranks.from_main(stop):
            # Stop here, and keep this step's weights so a resume continues from it.
            self.cancelled = True
            control.should_save = True
            control.should_training_stop = True
        return control

    def on_log(self, args, state, control, logs=None, **kwargs):
        logs = logs or {}
        if "loss" not in logs or not ranks.is_main():  # not a step, or not the writer
            return
        step = state.global_step
        summary = self.book.summaries.pop(step, {})
        TrainingStep.objects.update_or_create(
            run_id=self.lease.run_id, step=step,
            defaults={**summary, "metrics": metrics_clean(logs),
                      "times": self._times.pop(step, {})})
        self.lease.beat(force=True, progress=self._progress(
            step, stage="training", reward_mean=summary.get("reward_mean")))

    def on_save(self, args, state, control, **kwargs):
        if ranks.is_main():
            self.lease.beat(force=True, checkpoint_step=state.global_step)

    def _progress(self, step: int, *, stage: str, reward_mean: float | None = None) -> dict:
        last = self._step_seconds[-1] if self._step_seconds else None
        # The pace of the recent steps, not the mean since the start: the first
        # step also loads the model (None until there are enough steps to tell).
        left = estimate_left(samples_from_durations(self._step_seconds),
                             total=len(self._step_seconds) + max(0, self.max_steps - step))
        eta = round(left.seconds, 1) if left.known else None
        return {**self.progress_extra, "stage": stage, "step": step,
                "max_steps": self.max_steps, "eta_s": eta,
                "last_step_s": round(last, 2) if last is not None else None,
                "reward_mean": reward_mean, "notices": list(self.book.notices)}


def metrics_clean(logs: dict) -> dict[str, float | None]:
    """The trainer's numbers, JSON-safe: NaN and infinities become None (TRL
    logs NaN for a mean over no values, e.g. a step whose rewards were all None)."""
    clean = {}
    for key, value in logs.items():
        if value is None:  # TRL's own "no value" (a mean over nothing)
            clean[key] = None
        elif isinstance(value, int | float) and not isinstance(value, bool):
            clean[key] = float(value) if math.isfinite(value) else None
    return clean
