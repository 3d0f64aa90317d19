"""The curation page and the snapshot pages.

Who may do what: curators and staff may look (the pool, its balance, the
near-duplicates, the snapshots, and download an export); only staff change it
(pins, the rule, dropping a duplicate, freezing a snapshot): anyone else's
POST gets 403. Curators see each render's tier but not its grade counts: the
tier is the pool's decision, the counts are other curators' verdicts (see
sketches.access for why those stay with staff). Panels of higher apps on a
snapshot's page (its calibrations) come from the functions settings name
(pool.snapshot_panels)."""
from __future__ import annotations

import tempfile

from django.contrib import messages
from django.core.files.storage import default_storage
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from sketches.access import curator_required, staff_required
from sketches.models import Render

from . import selectors, services
from .export import snapshot_export_zip, snapshot_folder_name
from .forms import DuplicateForm, FreezeForm, PinForm, RenderForm, RuleForm
from .models import PoolMember, PoolSnapshot
from .rules import pool_rule_current
from .snapshot_panels import snapshot_panels_for

# The export zip stays in memory up to this size, then spills to a temporary file.
SPOOL_BYTES = 32 * 1024 * 1024


# --- The curation page ---------------------------------------------------

@require_GET
@curator_required
def curate(request):
    return _curate_page(request)


def _curate_page(request, *, status: int = 200, error: str = "", forms: dict | None = None,
                 fragment: bool = False):
    """The page, or only its #pool-body fragment (htmx swaps after a change).
    Fingerprints the overview had to compute go to a task to be stored: the
    request itself writes nothing."""
    staff = request.user.is_staff
    overview = selectors.pool_overview()
    if overview.fingerprints_unstored:
        services.render_fingerprints_queue(render_ids=overview.fingerprints_unstored)
    context = {
        "overview": overview,
        "snapshots": selectors.snapshots_list(),
        "staff": staff,
        "error": error,
    }
    if staff:
        rule = pool_rule_current()
        context.update({
            "pins": selectors.pins_recent(),
            "rules": selectors.rules_recent(),
            "pin_form": PinForm(initial={"action": "in"}),
            "rule_form": RuleForm(initial=rule.as_dict() | {"note": ""}),
            "freeze_form": FreezeForm(),
        })
        context.update(forms or {})
    template = "pool/curate.html#pool-body" if fragment else "pool/curate.html"
    return render(request, template, context, status=status)


def _changed(request, message: str):
    """After a change: the fresh fragment for htmx, else back to the page."""
    messages.success(request, message)
    if request.htmx:
        return _curate_page(request, fragment=True)
    return redirect("pool:curate")


def _refused(request, error: str, forms: dict | None = None):
    """A change that could not be made: say why, on the page or in the fragment.
    htmx only swaps 2xx answers, so the fragment comes back with 200."""
    if request.htmx:
        return _curate_page(request, error=error, forms=forms, fragment=True)
    return _curate_page(request, status=400, error=error, forms=forms)


@require_POST
@staff_required(reason="Only staff can change the pool.")
def pin(request):
    form = PinForm(request.POST)
    if not form.is_valid():
        return _refused(request, form_errors(form), {"pin_form": form})
    data = form.cleaned_data
    target = Render.objects.filter(pk=data["render"]).first()
    if target is None:
        return _refused(request, f"there is no render {data['render']}", {"pin_form": form})
    try:
        services.pool_pin(render=target, action=data["action"], tier=data["tier"],
                          reason=data["reason"], user=request.user)
    except services.PoolError as exc:
        return _refused(request, str(exc), {"pin_form": form})
    where = f"into the {data['tier']} tier" if data["action"] == "in" else "out of the pool"
    return _changed(request, f"Render {target.pk} pinned {where}.")


@require_POST
@staff_required(reason="Only staff can change the pool.")
def unpin(request):
    form = RenderForm(request.POST)
    if not form.is_valid():
        return _refused(request, form_errors(form))
    target = get_object_or_404(Render, pk=form.cleaned_data["render"])
    if not services.pool_unpin(render=target):
        return _refused(request, f"render {target.pk} has no pin")
    return _changed(request, f"Render {target.pk} unpinned: its grades decide again.")


@require_POST
@staff_required(reason="Only staff can change the pool.")
def drop_duplicate(request):
    form = DuplicateForm(request.POST)
    if not form.is_valid():
        return _refused(request, form_errors(form))
    pair = list(Render.objects.filter(pk__in=[form.cleaned_data["first"],
                                              form.cleaned_data["second"]]))
    if len(pair) != 2:
        return _refused(request, "one of the two renders no longer exists")
    pinned = services.duplicate_drop_weaker(first=pair[0], second=pair[1], user=request.user)
    return _changed(request, f"Render {pinned.render_id} pinned out: {pinned.reason}.")


@require_POST
@staff_required(reason="Only staff can change the pool.")
def rule_edit(request):
    form = RuleForm(request.POST)
    if not form.is_valid():
        return _refused(request, "the rule was not changed: " + form_errors(form),
                        {"rule_form": form})
    try:
        rule = services.pool_rule_edit(user=request.user, **form.cleaned_data)
    except services.PoolError as exc:
        return _refused(request, str(exc), {"rule_form": form})
    return _changed(request, f"Rule {rule.pk} is in force.")


@require_POST
@staff_required(reason="Only staff can freeze a pool snapshot.")
def freeze(request):
    form = FreezeForm(request.POST)
    if not form.is_valid():
        return _refused(request, form_errors(form), {"freeze_form": form})
    try:
        snapshot = services.snapshot_freeze(user=request.user, **form.cleaned_data)
    except services.PoolError as exc:
        return _refused(request, str(exc), {"freeze_form": form})
    messages.success(request, f"Snapshot {snapshot.name!r} frozen with "
                              f"{snapshot.counts.get('total', 0)} members.")
    return redirect("pool:snapshot", pk=snapshot.pk)


def form_errors(form) -> str:
    """A form's errors in one line, for a message."""
    return "; ".join(f"{'' if field == '__all__' else field + ': '}{' '.join(errors)}"
                     for field, errors in form.errors.items())


# --- Snapshots -------------------------------------------------------------

@require_GET
@curator_required
def snapshot_detail(request, pk: int):
    snapshot = get_object_or_404(PoolSnapshot.objects.select_related("created_by",
                                                                      "derived_from"), pk=pk)
    return snapshot_page(request, snapshot)


def snapshot_page(request, snapshot: PoolSnapshot, *, status: int = 200):
    """A snapshot's page with its panels (a panel's own view may answer with
    it, as a refused form's answer)."""
    panels = snapshot_panels_for(request, snapshot)
    badges = {member: badge for panel in panels for member, badge in panel.badges.items()}
    by_subject = [(subject, [(m, badges.get(m.pk)) for m in members])
                  for subject, members in selectors.snapshot_members_by_subject(snapshot)]
    return render(request, "pool/snapshot.html", {
        "snapshot": snapshot, "panels": panels, "by_subject": by_subject}, status=status)


@require_GET
@curator_required
def member_png(request, pk: int):
    """A member's PNG from the path the snapshot copied, so the snapshot stays
    viewable after its render is deleted."""
    member = get_object_or_404(PoolMember.objects.only("png"), pk=pk)
    if not member.png or not default_storage.exists(member.png):
        raise Http404("this member's image is gone")
    return FileResponse(default_storage.open(member.png, "rb"), content_type="image/png")


@require_GET
@curator_required
def snapshot_export(request, pk: int):
    snapshot = get_object_or_404(PoolSnapshot, pk=pk)
    spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
    snapshot_export_zip(snapshot, spool)
    spool.seek(0)
    return FileResponse(spool, as_attachment=True, content_type="application/zip",
                        filename=f"{snapshot_folder_name(snapshot)}.zip")
