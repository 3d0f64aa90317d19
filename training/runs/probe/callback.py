"""When the probe is taken: at step 0, before the first update (unless a
resume finds it stored), and after every probe_every-th optimizer step, on
the main process only (the others wait for it at their next collective).

A probe is an instrument, not the run: one that fails is logged and said in
the run's notices, and training goes on. A run this worker no longer holds
(callbacks.RunSuperseded) still stops it."""
from __future__ import annotations

import logging

from transformers import TrainerCallback

from ...models import Probe
from .. import ranks
from ..callbacks import RunLease, RunSuperseded, StepBook
from .samples import ProbePlan, Prober

logger = logging.getLogger(__name__)


class ProbeCallback(TrainerCallback):
    """Takes the run's probes (module docstring); added to the trainer by
    engine.engine_build with the Prober run_prober makes (which scores each
    step's rollouts too: rewards.RubricReward)."""

    def __init__(self, *, trainer, prober: Prober, lease: RunLease, book: StepBook):
        self.trainer, self.prober, self.lease, self.book = trainer, prober, lease, book

    def on_train_begin(self, args, state, control, **kwargs):
        if state.global_step == 0:
            self._probe(0)

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step % self.prober.plan.every == 0:
            self._probe(state.global_step)

    def _probe(self, step: int) -> None:
        if not self.trainer.accelerator.is_main_process:
            return
        if Probe.objects.filter(run_id=self.lease.run_id, step=step).exists():
            return  # taken before this resume
        model = self.trainer.accelerator.unwrap_model(self.trainer.model)
        try:
            self.prober.probe(model=model, tokenizer=self.trainer.processing_class, step=step,
                              beat=self.lease.beat)
        except RunSuperseded:
            raise
        except Exception as exc:  # the probe is lost, the run goes on
            logger.exception("run %s: the probe at step %s failed", self.lease.run_id, step)
            self.book.notice(f"the probe at step {step} failed ({type(exc).__name__}: {exc})")


def run_prober(*, run, renderer) -> Prober | None:
    """The run's Prober, or None when it was launched without a probe or this
    is not the main process (which alone renders and scores)."""
    plan = ProbePlan.from_launched(run.launched_config)
    if plan is None or not ranks.is_main():
        return None
    return Prober(run_id=run.pk, plan=plan, renderer=renderer)
