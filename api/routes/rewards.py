"""Reward models (staff with the admin's permissions): train a new version, follow it,
activate a finished one (which then scores every render), cancel one."""

from ninja import Router, Status
from ninja.pagination import paginate

from pool.models import RewardModel
from pool.reward.services import reward_model_activate, reward_model_cancel, reward_model_create
from sketches.input_rules import JsonObject

from ..auth import STAFF
from ..errors import Problem
from ..inputs import BodyIn
from ..pagination import Page
from ..schemas import CancelOut, RewardModelOut
from .common import one

router = Router(tags=["reward models"])
# The admin's: its train view needs the first, its cancel and activate actions the second.
ADD, CHANGE = "pool.add_rewardmodel", "pool.change_rewardmodel"


class RewardModelIn(BodyIn):
    config: JsonObject = {}
    activate: bool = False


@router.post("/reward-models", response={201: RewardModelOut}, auth=STAFF.needs(ADD),
             summary="Train a new version on the grades (queued on the short worker)")
def reward_model_train(request, data: RewardModelIn):
    try:
        reward_model = reward_model_create(created_by=request.user, config=data.config,
                                           activate=data.activate)
    except ValueError as error:  # TrainConfig's and disjoint.DisjointError's words
        raise Problem(400, "The reward model was not created.", [str(error)]) from error
    return Status(201, reward_model)


@router.get("/reward-models", response=list[RewardModelOut], auth=STAFF)
@paginate(Page)
def reward_models_list(request):
    return RewardModel.objects.order_by("-version")


@router.get("/reward-models/{pk}", response=RewardModelOut, auth=STAFF)
def reward_model_status(request, pk: int):
    return one(RewardModel.objects, pk, "reward model")


@router.post("/reward-models/{pk}/activate", response=RewardModelOut, auth=STAFF.needs(CHANGE),
             summary="Make a finished model the active one; it then scores every render")
def reward_model_make_active(request, pk: int):
    reward_model = one(RewardModel.objects, pk, "reward model")
    try:
        return reward_model_activate(reward_model=reward_model)
    except ValueError as error:
        raise Problem(409, str(error)) from error


@router.post("/reward-models/{pk}/cancel", response=CancelOut, auth=STAFF.needs(CHANGE))
def reward_model_stop(request, pk: int):
    cancel = reward_model_cancel(reward_model=one(RewardModel.objects, pk, "reward model"))
    return {"outcome": str(cancel.outcome), "status": cancel.status, "message": cancel.message}
