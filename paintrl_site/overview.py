"""What the home page shows: how far rendering and grading have come. The
project package may read every app (the apps themselves only read downwards)."""
from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count

from jobs.estimates import WINDOW_S, Estimate, estimate_left
from pool.models import PoolSnapshot, RewardModel
from pool.reward.metrics import evidence_warning
from pool.reward.selectors import reward_model_active
from rating.models import Grade
from rating.selectors import renders_gradable, renders_open
from sketches import selectors as sketch_selectors
from training.models import TrainingRun

# The render pace is counted over the estimator's window (renders finish
# several a minute: five minutes holds enough of them to measure).
RENDER_WINDOW_S = int(WINDOW_S)


@dataclass(frozen=True)
class RenderProgress:
    counts: dict[str, int]
    per_minute: float

    @property
    def done(self) -> int:
        return self.counts["ok"] + self.counts["rejected"] + self.counts["unavailable"]

    @property
    def total(self) -> int:
        return self.done + self.counts["pending"]

    @property
    def eta(self) -> Estimate:
        """Time left at the pace of the last RENDER_WINDOW_S (jobs.estimates)."""
        recent = self.per_minute * RENDER_WINDOW_S / 60
        return estimate_left([(0.0, 0.0), (RENDER_WINDOW_S, recent)],
                             total=recent + self.counts["pending"])

    @property
    def minutes_left(self) -> int | None:
        if not self.counts["pending"] or not self.eta.known:
            return None
        return max(1, round(self.eta.seconds / 60))


@dataclass(frozen=True)
class GradingTotals:
    """Grades across all curators (rating.selectors.GradingProgress is one
    curator's progress through the queue)."""

    by_value: dict[str, int]
    graded_renders: int
    gradable_renders: int
    curators: int

    @property
    def ungraded(self) -> int:
        return max(0, self.gradable_renders - self.graded_renders)


def render_progress() -> RenderProgress:
    return RenderProgress(counts=sketch_selectors.render_status_counts(),
                          per_minute=sketch_selectors.render_rate_per_minute(RENDER_WINDOW_S))


def renders_waiting(curator) -> int:
    """Renders waiting for this curator: what their grading page counts down
    (not graded or skipped by them, seats left under the overlap)."""
    return renders_open(renders_gradable(), curator=curator).count()


def grading_progress() -> GradingTotals:
    by_value = {value: 0 for value in Grade.Value.values}
    for row in Grade.objects.values("value").annotate(n=Count("id")):
        by_value[row["value"]] = row["n"]
    gradable = renders_gradable()
    return GradingTotals(
        by_value=by_value,
        graded_renders=gradable.filter(grades__isnull=False).distinct().count(),
        gradable_renders=gradable.count(),
        curators=Grade.objects.values("curator").distinct().count(),
    )


@dataclass(frozen=True)
class RewardModelState:
    """The reward model that scores renders and answers the local judge, or
    what is missing: the newest finished one waits to be activated."""

    active: RewardModel | None
    newest_done: RewardModel | None

    @property
    def warning(self) -> str | None:
        if self.active is None:
            return None
        return evidence_warning((self.active.metrics or {}).get("test"))


def reward_model_state() -> RewardModelState:
    done = RewardModel.objects.filter(status=RewardModel.Status.DONE).only(
        "pk", "version", "active", "metrics")
    return RewardModelState(active=reward_model_active(),
                            newest_done=done.order_by("-version").first())


# The loop as a newcomer walks it, in order: each step needs the ones before
# it (a snapshot needs loved renders, a run needs a snapshot, an active reward
# model and a policy).
LOOP_STEPS = ("grade", "pool", "reward_model", "policy", "run")


@dataclass(frozen=True)
class LoopProgress:
    """Which steps of the loop are done, for the home page's "What to do
    next": the first step not done is the one to take now."""

    done: dict[str, bool]

    @property
    def next(self) -> str | None:
        return next((step for step in LOOP_STEPS if not self.done[step]), None)

    @property
    def state(self) -> dict[str, str]:
        """Each step as "done", "next" or "" (later), for the page's marks."""
        return {step: "done" if self.done[step] else "next" if step == self.next else ""
                for step in LOOP_STEPS}


def loop_progress(*, grading: GradingTotals, reward_model: RewardModelState,
                  policy_ready: bool) -> LoopProgress:
    """Done means the step's result exists: a loved render (the pool is made
    of them), a frozen snapshot, an active reward model, a built policy, a
    finished run."""
    return LoopProgress(done={
        "grade": grading.by_value["love"] > 0,
        "pool": PoolSnapshot.objects.exists(),
        "reward_model": reward_model.active is not None,
        "policy": policy_ready,
        "run": TrainingRun.objects.filter(status=TrainingRun.Status.DONE).exists(),
    })
