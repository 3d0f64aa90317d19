"""Training runs (staff, as the run pages and the admin): create one from
the presets or clone one, each with settings changed; launch, cancel and
resume it (training.runs.services, which refuse with a RunError whose words
the admin shows too); follow its status, steps and rollouts. Creating and
cloning need the permission to add runs, the verbs the permission to change
them, as in the admin and on the run page."""

from ninja import Query, Router, Schema, Status
from ninja.pagination import paginate

from jobs.services import CancelOutcome
from sketches.input_rules import CountParam, JsonObject
from training.models import Rollout, TrainingRun
from training.runs.services import RunError, run_cancel, run_launch, run_resume

from ..auth import STAFF
from ..errors import Problem
from ..inputs import BodyIn
from ..pagination import Page
from ..schemas import CancelOut, RolloutOut, RunDetailOut, RunOut, StepOut
from ..services import RunSettingsInvalid, run_clone_with, run_create
from .common import one

router = Router(tags=["runs"])
ADD, CHANGE = "training.add_trainingrun", "training.change_trainingrun"


class RunIn(BodyIn):
    """Settings by field name (a choice such as rubric or snapshot by its
    id); what is not given comes from the presets, or from the run cloned."""

    settings: JsonObject = {}


class RolloutFilter(Schema):
    step: CountParam | None = None


def _run(pk: int) -> TrainingRun:
    return one(TrainingRun.objects.select_related("rubric"), pk, "run")


def _settings_refused(error: RunSettingsInvalid) -> Problem:
    return Problem(400, "The run was not saved.", error.problems)


@router.post("/runs", response={201: RunDetailOut}, auth=STAFF.needs(ADD),
             summary="A draft run from the presets, with settings changed")
def run_new(request, data: RunIn):
    try:
        return Status(201, run_create(user=request.user, settings=data.settings))
    except RunSettingsInvalid as error:
        raise _settings_refused(error) from error


@router.post("/runs/{pk}/clone", response={201: RunDetailOut}, auth=STAFF.needs(ADD),
             summary="A draft copy of a run, with settings changed")
def run_copy(request, pk: int, data: RunIn):
    try:
        return Status(201, run_clone_with(run=_run(pk), user=request.user, settings=data.settings))
    except RunSettingsInvalid as error:
        raise _settings_refused(error) from error


@router.get("/runs", response=list[RunOut], auth=STAFF)
@paginate(Page)
def runs_list(request):
    return TrainingRun.objects.order_by("-pk")


@router.get("/runs/{pk}", response=RunDetailOut, auth=STAFF,
            summary="A run's settings, status, progress and what it launched with")
def run_status(request, pk: int):
    return _run(pk)


@router.post("/runs/{pk}/launch", response=RunDetailOut, auth=STAFF.needs(CHANGE))
def run_start(request, pk: int):
    try:
        return run_launch(run=_run(pk), user=request.user)
    except RunError as error:
        raise Problem(409, "The run was not launched.", [str(error)]) from error


@router.post("/runs/{pk}/cancel", response=CancelOut, auth=STAFF.needs(CHANGE))
def run_stop(request, pk: int):
    cancel = run_cancel(run=_run(pk))
    if cancel.outcome == CancelOutcome.NOT_LIVE:
        raise Problem(409, cancel.message)
    return {"outcome": str(cancel.outcome), "status": cancel.status, "message": cancel.message}


@router.post("/runs/{pk}/resume", response=RunDetailOut, auth=STAFF.needs(CHANGE))
def run_restart(request, pk: int):
    try:
        return run_resume(run=_run(pk))
    except RunError as error:
        raise Problem(409, "The run was not resumed.", [str(error)]) from error


@router.get("/runs/{pk}/steps", response=list[StepOut], auth=STAFF,
            summary="The run's steps with their rewards, signals and trainer metrics")
@paginate(Page)
def run_steps(request, pk: int):
    return _run(pk).steps.order_by("step")


@router.get("/runs/{pk}/rollouts", response=list[RolloutOut], auth=STAFF)
@paginate(Page)
def run_rollouts(request, pk: int, filters: Query[RolloutFilter]):
    rollouts = Rollout.objects.filter(run=_run(pk)).order_by("step", "group", "index")
    if filters.step is not None:
        rollouts = rollouts.filter(step=filters.step)
    return rollouts
