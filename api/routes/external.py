"""The reward service (training.external): a trainer that is not ours posts
batches of (prompt, completion) items to an open external run and gets each
item's total, signals, gate verdict and render back. The caller is staff
holding the permission to score external runs (a service account)."""
from __future__ import annotations

from typing import Annotated

from django.db.models import Count
from django.http import Http404
from ninja import Field, Router, Schema
from ninja.pagination import paginate

from sketches.input_rules import ClientKey, Text
from training.external.services import (
    ExternalError,
    Item,
    batch_answer,
    external_batch_score,
)
from training.models import ExternalRun

from ..auth import STAFF
from ..errors import Problem, ProblemOut
from ..inputs import BodyIn
from ..pagination import Page

router = Router(tags=["reward service"])
SCORE = "training.score_externalrun"
# A prompt is a sentence or a paragraph; a GRPO prompt set's longest is a few
# hundred characters. The bound keeps a stray document out of every Sketch row.
PROMPT_MAX = 4_000
# A completion is a whole sketch: the article's v1 policy wrote about 13,500
# tokens (some 50,000 characters) before v2 cut it below 2,000 tokens; twice
# the longest seen leaves room and still refuses a runaway generation.
COMPLETION_MAX = 100_000
GROUP_MAX = 200
STEP_MAX = 2**31 - 1


class ItemIn(BodyIn):
    prompt: Annotated[Text, Field(max_length=PROMPT_MAX)]
    completion: Annotated[Text, Field(max_length=COMPLETION_MAX)]
    group: Annotated[Text, Field(max_length=GROUP_MAX)] = ""


class BatchIn(BodyIn):
    client_key: ClientKey
    step: Annotated[int, Field(ge=0, le=STEP_MAX, strict=True)] | None = None
    items: list[ItemIn]


class GateOut(Schema):
    status: str
    violations: list[str]


class ItemOut(Schema):
    index: int
    total: float | None
    signals: dict[str, float | None]
    gate: GateOut
    render_id: int | None
    sketch_id: int | None


class BatchOut(Schema):
    run: str
    client_key: str
    step: int | None
    replayed: bool
    items: list[ItemOut]


class ExternalRunOut(Schema):
    name: str
    status: str
    rubric: str
    brush: str
    seed: int
    signals: list
    dropped_signals: list
    yardstick: dict | None  # what was frozen of it at opening: id, version, role
    batches: int


def _run(name: str, queryset=None) -> ExternalRun:
    run = (ExternalRun.objects if queryset is None else queryset).filter(name=name).first()
    if run is None:
        raise Http404(f"there is no external run {name!r}")
    return run


def _runs():
    return ExternalRun.objects.select_related("rubric").annotate(batch_count=Count("batches"))


def _run_out(run: ExternalRun) -> dict:
    return {"name": run.name, "status": run.status, "rubric": str(run.rubric),
            "brush": run.brush, "seed": run.seed, "signals": run.signals,
            "dropped_signals": run.dropped_signals,
            "yardstick": (run.yardstick_plan or {}).get("yardstick"), "batches": run.batch_count}


@router.post("/external-runs/{name}/rewards",
             response={200: BatchOut, 409: ProblemOut, 429: ProblemOut, 503: ProblemOut},
             auth=STAFF.needs(SCORE),
             summary="Score a batch of completions (idempotent by client_key)")
def external_rewards(request, name: str, data: BatchIn):
    run = _run(name)
    items = [Item(prompt=i.prompt, completion=i.completion, group=i.group) for i in data.items]
    try:
        batch, scored = external_batch_score(run=run, client_key=data.client_key,
                                             step=data.step, items=items)
    except ExternalError as error:
        raise Problem(error.status, error.detail, error.problems,
                      retry_after=error.retry_after) from error
    return {"run": run.name, "client_key": batch.client_key, "step": batch.step,
            "replayed": not scored, "items": batch_answer(batch)}


@router.get("/external-runs", response=list[ExternalRunOut], auth=STAFF)
@paginate(Page)
def external_runs_list(request):
    return [_run_out(run) for run in _runs()]


@router.get("/external-runs/{name}", response=ExternalRunOut, auth=STAFF)
def external_run_status(request, name: str):
    return _run_out(_run(name, _runs()))
