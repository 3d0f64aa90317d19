"""The pool: its rule, pins and snapshots. Curators look (the rule in force,
the snapshots, an export); staff change it (the rule, pins, freezing), as on
the pool pages; a refusal is pool.services' PoolError, word for word."""

import tempfile

from django.http import FileResponse
from ninja import ModelSchema, Router, Status
from ninja.pagination import paginate

from pool import selectors, services
from pool.export import snapshot_export_zip, snapshot_folder_name
from pool.models import PoolMember, PoolPin, PoolSnapshot, Tier
from pool.rules import pool_rule_current
from sketches.input_rules import Id, Tally, Text
from sketches.models import Render

from ..auth import CURATOR, STAFF
from ..errors import Problem
from ..inputs import BodyIn
from ..pagination import Page
from ..schemas import PinOut, RuleOut, SnapshotOut
from .common import one

router = Router(tags=["pool"])
# The export zip stays in memory up to this size, then spills to a temporary file.
SPOOL_BYTES = 32 * 1024 * 1024


class RuleIn(BodyIn):
    love_share: float
    okay_tier: bool
    min_grades: Tally
    min_per_subject: Tally
    note: Text = ""


class PinIn(BodyIn):
    render: Id
    action: PoolPin.Action
    reason: Text
    tier: Tier = Tier.LOVE


class FreezeIn(BodyIn):
    name: Text
    note: Text = ""


class MemberOut(ModelSchema):
    class Meta:
        model = PoolMember
        fields = ["id", "render", "tier", "subject", "prompt", "code", "seed", "pinned"]


def _refused(error: services.PoolError) -> Problem:
    return Problem(400, str(error))


@router.get("/pool/rule", response=RuleOut, auth=CURATOR, summary="The rule in force")
def rule_current(request):
    rule = pool_rule_current()
    return {**rule.as_dict(), "note": rule.note, "id": rule.pk, "created": rule.created}


@router.post("/pool/rule", response={201: RuleOut}, auth=STAFF.needs("pool.add_poolrule"),
             summary="A new version of the rule, in force from now on")
def rule_edit(request, data: RuleIn):
    try:
        rule = services.pool_rule_edit(user=request.user, **data.dict())
    except services.PoolError as error:
        raise _refused(error) from error
    return Status(201, rule)


@router.get("/pool/pins", response=list[PinOut], auth=STAFF)
@paginate(Page)
def pins_list(request):
    return selectors.pins_recent()


@router.post("/pool/pins", response={201: PinOut}, auth=STAFF.needs("pool.add_poolpin"),
             summary="Pin a render in or out of the pool (pinning again replaces the pin)")
def pin_create(request, data: PinIn):
    render = one(Render.objects, data.render, "render")
    try:
        pin = services.pool_pin(render=render, action=data.action, tier=data.tier,
                                reason=data.reason, user=request.user)
    except services.PoolError as error:
        raise _refused(error) from error
    return Status(201, pin)


@router.delete("/pool/pins/{render_id}", response={204: None},
               auth=STAFF.needs("pool.delete_poolpin"),
               summary="Remove a render's pin, so its grades decide again")
def pin_delete(request, render_id: int):
    render = one(Render.objects, render_id, "render")
    if not services.pool_unpin(render=render):
        raise Problem(404, f"render {render.pk} has no pin")
    return Status(204, None)


@router.get("/pool/snapshots", response=list[SnapshotOut], auth=CURATOR)
@paginate(Page)
def snapshots_list(request):
    return selectors.snapshots_list()


@router.post("/pool/snapshots", response={201: SnapshotOut},
             auth=STAFF.needs("pool.add_poolsnapshot"),
             summary="Freeze the pool as it is now into a named snapshot")
def snapshot_freeze(request, data: FreezeIn):
    try:
        snapshot = services.snapshot_freeze(name=data.name, note=data.note, user=request.user)
    except services.PoolError as error:
        raise _refused(error) from error
    return Status(201, snapshot)


@router.get("/pool/snapshots/{pk}", response=SnapshotOut, auth=CURATOR)
def snapshot_detail(request, pk: int):
    return one(PoolSnapshot.objects, pk, "snapshot")


@router.get("/pool/snapshots/{pk}/members", response=list[MemberOut], auth=CURATOR)
@paginate(Page)
def snapshot_members(request, pk: int):
    return one(PoolSnapshot.objects, pk, "snapshot").members.order_by("pk")


@router.get("/pool/snapshots/{pk}/export", auth=CURATOR, response={200: None},
            summary="The snapshot as a zip (pool.export: PNGs, code and a manifest)")
def snapshot_export(request, pk: int):
    snapshot = one(PoolSnapshot.objects, pk, "snapshot")
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    snapshot_export_zip(snapshot, spool)
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, content_type="application/zip",
                        filename=f"{snapshot_folder_name(snapshot)}.zip")
