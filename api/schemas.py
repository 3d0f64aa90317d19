"""What the API answers with. Each schema is the model's own fields (a
foreign key as its id), plus what a script needs to follow on (URLs of the
PNG). Inputs live beside the endpoints that take them."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from django.urls import reverse
from ninja import ModelSchema, Schema

from pool.models import PoolPin, PoolRule, PoolSnapshot
from rating.models import Comparison, Grade
from sketches.models import ImportJob, Render, Sketch
from training.models import Rollout, TrainingRun, TrainingStep
from training.runs.services import run_actions, run_stalled


class SketchOut(ModelSchema):
    class Meta:
        model = Sketch
        fields = ["id", "prompt", "code", "code_sha256", "origin", "parent", "meta", "created"]


class RenderOut(ModelSchema):
    sketch: int
    png_url: str | None
    # The p5.brush calls the picture was painted from (paint by construction).
    calls_url: str | None
    # What the gate flagged without rejecting (Render.flags): painted words.
    flags: dict[str, str]

    class Meta:
        model = Render
        fields = ["id", "seed", "status", "width", "height", "paint_fraction", "brush_calls",
                  "frames", "elapsed_ms", "draw_ms", "renderer_version", "brush",
                  "brush_version", "taste_score",
                  "taste_model", "created", "rendered"]

    @staticmethod
    def resolve_sketch(render: Render) -> int:
        return render.sketch_id

    @staticmethod
    def resolve_png_url(render: Render, context) -> str | None:
        if not render.png:
            return None
        return context["request"].build_absolute_uri(reverse("api:render_png", args=[render.pk]))

    @staticmethod
    def resolve_calls_url(render: Render, context) -> str | None:
        if not render.calls:
            return None
        return context["request"].build_absolute_uri(reverse("api:render_calls",
                                                             args=[render.pk]))


class RenderReportOut(ModelSchema):
    """The gate's verdict on a render, as its page shows it. A JSON field is
    an object in ninja's schema unless it says otherwise: these are lists."""

    final: bool
    violations: list[Any]
    js_errors: list[Any]
    unknown_calls: list[Any]
    flags: dict[str, str]

    class Meta:
        model = Render
        fields = ["id", "status", "violations", "violation_details", "js_errors",
                  "paint_fraction", "brush_calls", "brush_call_counts", "unknown_calls",
                  "frames", "elapsed_ms", "draw_ms", "width", "height", "renderer_version",
                  "brush", "brush_version"]

    @staticmethod
    def resolve_final(render: Render) -> bool:
        return render.is_final


class SketchDetailOut(SketchOut):
    renders: list[RenderOut]

    @staticmethod
    def resolve_renders(sketch: Sketch) -> list[Render]:
        return list(sketch.renders.order_by("pk"))


class ImportJobOut(ModelSchema):
    class Meta:
        model = ImportJob
        fields = ["id", "status", "original_filename", "total", "done", "report", "error",
                  "created", "started", "finished"]


class GradeOut(ModelSchema):
    curator: str

    class Meta:
        model = Grade
        fields = ["id", "render", "value", "shown_ms", "source", "created", "updated"]

    @staticmethod
    def resolve_curator(grade: Grade) -> str:
        return grade.curator.get_username()


class ComparisonOut(ModelSchema):
    curator: str

    class Meta:
        model = Comparison
        fields = ["id", "left", "right", "prompt", "choice", "shown_ms", "source", "created"]

    @staticmethod
    def resolve_curator(comparison: Comparison) -> str:
        return comparison.curator.get_username()


class RuleOut(ModelSchema):
    id: int | None

    class Meta:
        model = PoolRule
        fields = ["love_share", "okay_tier", "min_grades", "min_per_subject", "note", "created"]
        fields_optional = ["created"]


class PinOut(ModelSchema):
    class Meta:
        model = PoolPin
        fields = ["id", "render", "action", "tier", "reason", "created"]


class SnapshotOut(ModelSchema):
    class Meta:
        model = PoolSnapshot
        fields = ["id", "name", "rule", "counts", "note", "derived_from", "derivation",
                  "created"]


class JobOut(Schema):
    """Every job's fields (jobs.models.Job)."""

    id: int
    status: str
    cancel_requested: bool | None
    progress: dict | None
    error: str
    created: datetime
    started: datetime | None
    finished: datetime | None


class RewardModelOut(JobOut):
    version: int
    role: str  # "trained" on grades, or "gold" (the gold judge: never active)
    config: dict
    metrics: dict
    active: bool


class RunOut(ModelSchema):
    actions: list[str]
    stalled: bool
    dropped_signals: list[Any]  # a list, which ninja would declare an object

    class Meta:
        model = TrainingRun
        exclude = ["created_by", "launched_config"]

    @staticmethod
    def resolve_actions(run: TrainingRun) -> list[str]:
        return sorted(run_actions(run))

    @staticmethod
    def resolve_stalled(run: TrainingRun) -> bool:
        return run_stalled(run)


class RunDetailOut(RunOut):
    """A run with what it was launched with (training.runs.services.launched_config)."""

    launched_config: dict


class StepOut(ModelSchema):
    class Meta:
        model = TrainingStep
        exclude = ["run"]


class RolloutOut(ModelSchema):
    class Meta:
        model = Rollout
        fields = ["id", "step", "group", "index", "prompt", "sketch", "render", "values",
                  "total", "advantage", "tokens", "created"]


class LiveJobOut(Schema):
    kind: str
    id: int
    status: str
    queue: str
    position: int | None
    progress: dict | None
    created: datetime


class CancelOut(Schema):
    outcome: str
    status: str
    message: str
