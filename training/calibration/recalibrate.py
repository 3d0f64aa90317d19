"""A run that re-calibrates its references as it trains (TrainingRun.
recalibrate_every): every N steps the main process measures how often that
step's rendered rollouts beat each member of the run's snapshot, with the
run's judge (measure.py), stores it as a calibration of the snapshot (its run
and step), and draws the following steps' pairwise
references only from the members in the band (pool.band.
references_kept, topped up to the rubric's k). Each step records which
calibration its references came from (TrainingStep.calibration).

The policy changes as it trains, so the band moves with it: a reference it
has come to beat every time leaves the draw, one it never beat may join.

A resumed run draws from the references its last calibration at or before
the resumed step kept, so a resume pays what the first attempt paid."""
from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction
from django.utils import timezone

from pool.band import PER_MEMBER, band_problems, rates_summary, references_kept
from sketches.rendering import OK

from ..models import Calibration
from ..reward.inputs import SignalContext, SignalInput
from ..reward.kinds import PAIRWISE
from ..reward.rubric import rubric_specs, signal_specs
from ..reward.spec import SignalSpec
from .measure import RolloutPicture, win_rates_measure
from .services import calibration_results_store


def recalibration_problems(run) -> list[str]:
    """What stops a run re-calibrating; [] when it does not or can."""
    if not run.recalibrate_every:
        return []
    problems = band_problems(run.calibration_band_low, run.calibration_band_high)
    try:
        pairwise = [s for s in signal_specs(run.rubric.signals)
                    if s.kind == PAIRWISE and s.weight > 0]
    except ValueError:
        pairwise = [True]  # the rubric's own problem is reported by the launch
    if not pairwise:
        problems.append(f"recalibrate_every is {run.recalibrate_every} but rubric {run.rubric} "
                        "has no weighted pairwise signal to draw references for: set it to 0")
    if run.snapshot is None:
        problems.append("re-calibration measures the members of the run's pool snapshot: "
                        "choose one")
    return problems


def recalibration_launched(run) -> dict | None:
    """launched_config["recalibration"]: the cadence, band and comparisons
    per member; None when the run does not re-calibrate."""
    if not run.recalibrate_every:
        return None
    return {"every": run.recalibrate_every,
            "band": [run.calibration_band_low, run.calibration_band_high],
            "per_member": PER_MEMBER}


class Recalibrator:
    """Re-calibrates one run's references (module docstring). Lives in the
    main process beside the reward function; narrows `context`'s draw."""

    def __init__(self, *, run_id: int, plan: dict, specs: Sequence[SignalSpec],
                 context: SignalContext, seed: int, judge_name: str, start_step: int = 0):
        self.run_id, self.context, self.seed = run_id, context, seed
        self.judge_name = judge_name
        self.every, (self.low, self.high) = plan["every"], plan["band"]
        self.per_member = plan["per_member"]
        # The draw must still find k references for every pairwise signal.
        self.least = max((s.params["k"] for s in specs if s.kind == PAIRWISE), default=1)
        self.members = list(context.snapshot.members.defer("code").order_by("pk"))
        self.calibration_id: int | None = None
        last = (Calibration.objects.filter(snapshot=context.snapshot, run_id=run_id,
                                           step__lte=start_step,
                                           status=Calibration.Status.DONE)
                .order_by("-created", "-pk").first())
        if last is not None:
            self._use(last.pk, last.config["kept"])

    @classmethod
    def for_run(cls, *, run, config: dict, context: SignalContext | None,
                start_step: int = 0) -> Recalibrator | None:
        plan = config.get("recalibration")
        if not plan or context is None:  # off, or not the main process
            return None
        specs = rubric_specs(config["rubric"]["signals"], run.dropped_signals)
        return cls(run_id=run.pk, plan=plan, specs=specs, context=context,
                   seed=config["grpo"]["seed"], judge_name=config["judge"]["name"],
                   start_step=start_step)

    def after_step(self, step: int, rollouts: Sequence[SignalInput]) -> dict:
        """Re-calibrate from `step`'s rollouts when it is due; the step's
        record (the calibration its references came from, before any new one)."""
        record = {"calibration": self.calibration_id,
                  "references": len(self.context.references_among or self.members)}
        if step % self.every:
            return record
        rendered = [RolloutPicture(r.picture, r.prompt) for r in rollouts
                    if r.status == OK and r.picture is not None]
        if not rendered:
            return {**record, "measured": None,
                    "why": "no rollout rendered: the references stay as they were"}
        calibration = self._measure(step, rendered, rollouts=len(rollouts))
        return {**record, "measured": calibration.pk,
                "kept": len(calibration.config["kept"]), "of": len(self.members)}

    def _measure(self, step: int, rendered: list[RolloutPicture], *,
                 rollouts: int) -> Calibration:
        rates = win_rates_measure(members=self.members, rollouts=rendered,
                                  judge=self.context.judge,
                                  per_member=self.per_member, seed=f"{self.seed}:{step}")
        kept = references_kept({r.member_id: r.win_rate for r in rates}, low=self.low,
                               high=self.high, least=self.least)
        now = timezone.now()
        with transaction.atomic():
            calibration = Calibration.objects.create(
                snapshot=self.context.snapshot, run_id=self.run_id, step=step,
                status=Calibration.Status.DONE, started=now, finished=now,
                config={"band": [self.low, self.high],
                        "per_member": self.per_member, "kept": kept,
                        "policy": {"label": f"run {self.run_id} at step {step}",
                                   "run": self.run_id},
                        "judge": {"name": self.judge_name}},
                progress={"stage": "done", "rollouts": rollouts, "rendered": len(rendered),
                          **rates_summary(rates, self.low, self.high).progress()})
            calibration_results_store(calibration_id=calibration.pk, rates=rates)
        self._use(calibration.pk, kept)
        return calibration

    def _use(self, calibration_id: int, kept: list[int]) -> None:
        """Draw from `kept` from now on; from every member when it is empty
        (the judge answered for no member)."""
        self.calibration_id = calibration_id
        self.context.references_among = frozenset(kept) if kept else None
