"""Writes for the pool: pins, rule versions, snapshots (frozen from the
pool, or derived from a calibrated one), dropping the weaker of two
near-duplicates, and storing the renders' fingerprints. Views, the admin,
commands and tasks call these. A derive takes the members to keep and what
chose them; which members a calibration keeps is the training app's."""
from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Sequence

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count
from kombu.exceptions import OperationalError

from jobs.dispatch import task_send
from rating.models import Grade
from rating.selectors import renders_gradable
from rating.sources import grade_sources, grades_simulated
from sketches.models import Render

from .models import (
    PoolMember,
    PoolPin,
    PoolRule,
    PoolSnapshot,
    RenderFingerprint,
    Tier,
)
from .phash import FINGERPRINT_VERSION, Fingerprint
from .rules import pool_entries, pool_rule_current, render_strength
from .selectors import render_fingerprints

logger = logging.getLogger(__name__)


class PoolError(ValueError):
    """A pool change that cannot be made as asked; the message says why."""


@transaction.atomic
def pool_pin(*, render: Render, action: str, reason: str, tier: str = Tier.LOVE,
             user=None) -> PoolPin:
    """Pin `render` in (to `tier`) or out of the pool, whatever its grades.
    A render has at most one pin: pinning again replaces it."""
    if action not in PoolPin.Action.values:
        raise PoolError(f"unknown pin action {action!r}: expected one of "
                        f"{', '.join(PoolPin.Action.values)}")
    if tier not in Tier.values:
        raise PoolError(f"unknown tier {tier!r}: expected one of {', '.join(Tier.values)}")
    reason = " ".join((reason or "").split())
    if not reason:
        raise PoolError("a pin needs a reason: say why the grades are overruled")
    if action == PoolPin.Action.IN and not renders_gradable().filter(pk=render.pk).exists():
        raise PoolError(f"render {render.pk} cannot join the pool: it has no image "
                        f"that passed the gate (status {render.status})")
    pin, _ = PoolPin.objects.update_or_create(
        render=render, defaults={"action": action, "tier": tier, "reason": reason,
                                 "created_by": user})
    return pin


def pool_unpin(*, render: Render) -> bool:
    """Remove `render`'s pin, so its grades decide again. True if it had one."""
    deleted, _ = PoolPin.objects.filter(render=render).delete()
    return bool(deleted)


def pool_rule_edit(*, love_share: float, okay_tier: bool, min_grades: int,
                   min_per_subject: int, note: str = "", user=None) -> PoolRule:
    """A new version of the rule; it is in force from now on, and the earlier
    versions stay as the record (snapshots copy the rule they were made under)."""
    rule = PoolRule(love_share=love_share, okay_tier=okay_tier, min_grades=min_grades,
                    min_per_subject=min_per_subject, note=note.strip(), created_by=user)
    try:
        rule.full_clean(exclude=["created_by"])
    except ValidationError as exc:
        raise PoolError("; ".join(f"{field}: {' '.join(errors)}" for field, errors
                                  in exc.message_dict.items())) from exc
    rule.save()
    return rule


def pool_rule_default_save() -> PoolRule:
    """The rule in force, saved: before staff have saved a rule, the default
    (pool.rules.pool_rule_current) is stored here, where a write needs to
    name it (a snapshot records its rule's id)."""
    rule = pool_rule_current()
    if rule.pk is None:
        rule.save()
    return rule


@transaction.atomic
def snapshot_freeze(*, name: str, note: str = "", user=None) -> PoolSnapshot:
    """Freeze the pool as it is now into an immutable, named snapshot: each
    member's tier, subject, prompt, code, seed and PNG path are copied, so later
    grades, pins, rule changes or edits leave the snapshot as it was. The rule
    is copied too, with whose grades were counted ("human" or "simulated")."""
    name = _snapshot_name(name)
    rule = pool_rule_default_save()
    entries = pool_entries(rule)
    if not entries:
        raise PoolError("the pool is empty: there is nothing to freeze")
    codes = dict(Render.objects.filter(pk__in=[e.render.pk for e in entries])
                 .values_list("pk", "sketch__code"))
    counts = Counter((e.tier, e.subject) for e in entries)
    snapshot = _snapshot_create(
        name=name, note=note.strip(), created_by=user,
        rule={"id": rule.pk, **rule.as_dict(),
              "grades": "simulated" if grades_simulated() else "human"},
        counts=_counts_summary(counts))
    PoolMember.objects.bulk_create([
        PoolMember(snapshot=snapshot, render=e.render, tier=e.tier, subject=e.subject,
                   prompt=e.render.sketch.prompt, code=codes[e.render.pk], seed=e.render.seed,
                   png=e.render.png.name, pinned=e.pinned)
        for e in entries])
    return snapshot


@transaction.atomic
def snapshot_derive(*, parent: PoolSnapshot, member_ids: Iterable[int], derivation: dict,
                    name: str, note: str = "", user=None) -> PoolSnapshot:
    """Freeze a new snapshot of `parent`'s members whose ids are `member_ids`,
    recorded as derived from it: its rule, and each kept member's tier,
    subject, prompt, code, seed and PNG, are copied as they were frozen.
    `derivation` says what chose them (its `summary` finishes the page's
    sentence "the N of its M members ..."), stored with how many were kept
    (`kept`). The pool knows nothing of what chose them: a calibration
    (training.calibration.services.calibration_snapshot_derive) is one."""
    name = _snapshot_name(name)
    members = list(parent.members.filter(pk__in=list(member_ids)).order_by("pk"))
    if not members:
        raise PoolError(f"a snapshot derived from {parent.name!r} needs at least one of its "
                        "members")
    snapshot = _snapshot_create(
        name=name, note=note.strip(), created_by=user, rule=parent.rule,
        counts=_counts_summary(Counter((m.tier, m.subject) for m in members)),
        derived_from=parent, derivation={**derivation, "kept": len(members)})
    PoolMember.objects.bulk_create([
        PoolMember(snapshot=snapshot, render_id=m.render_id, tier=m.tier, subject=m.subject,
                   prompt=m.prompt, code=m.code, seed=m.seed, png=m.png, pinned=m.pinned)
        for m in members])
    return snapshot


def _snapshot_name(name: str) -> str:
    """A new snapshot's name, whitespace tidied; refused when blank, too long or taken."""
    name = " ".join((name or "").split())
    if not name:
        raise PoolError("a snapshot needs a name")
    limit = PoolSnapshot._meta.get_field("name").max_length
    if len(name) > limit:
        raise PoolError(f"a snapshot name has at most {limit} characters, got {len(name)}")
    if PoolSnapshot.objects.filter(name=name).exists():
        raise PoolError(f"a snapshot named {name!r} exists already: snapshots never change, "
                        "so choose a new name")
    return name


def _snapshot_create(**fields) -> PoolSnapshot:
    try:
        with transaction.atomic():
            return PoolSnapshot.objects.create(**fields)
    except IntegrityError as exc:  # the same name frozen at the same moment
        raise PoolError(f"a snapshot named {fields['name']!r} exists already") from exc


def _counts_summary(counts: Counter) -> dict:
    """{"love": n, "okay": n, "total": n, "subjects": {subject: {"love": n, "okay": n}}}"""
    summary: dict = {tier: 0 for tier in Tier.values}
    subjects: dict[str, dict[str, int]] = {}
    for (tier, subject), n in sorted(counts.items()):
        summary[tier] += n
        subjects.setdefault(subject, {t: 0 for t in Tier.values})[tier] += n
    summary["total"] = sum(counts.values())
    summary["subjects"] = subjects
    return summary


def duplicate_weaker(first: Render, second: Render) -> tuple[Render, Render]:
    """(weaker, stronger) of two renders: the weaker has fewer love grades,
    then (on a tie) the lower taste score (none counts lowest), then is older."""
    loves = dict(Grade.objects.filter(render__in=[first, second], value=Grade.Value.LOVE,
                                      source__in=grade_sources())
                 .values("render").annotate(n=Count("pk")).values_list("render", "n"))
    weaker, stronger = sorted((first, second),
                              key=lambda r: render_strength(r, loves.get(r.pk, 0)))
    return weaker, stronger


@transaction.atomic
def duplicate_drop_weaker(*, first: Render, second: Render, user=None) -> PoolPin:
    """Pin the weaker of two near-duplicates out of the pool, saying which
    render it duplicates. Returns the pin."""
    if first.pk == second.pk:
        raise PoolError("a render is not a near-duplicate of itself")
    weaker, stronger = duplicate_weaker(first, second)
    return pool_pin(render=weaker, action=PoolPin.Action.OUT,
                    reason=f"near duplicate of render {stronger.pk}", user=user)


def render_fingerprints_store(*, renders: Iterable[Render]) -> dict[int, Fingerprint]:
    """Store the fingerprints of `renders` that are missing or stale (pool.phash)
    and return them all by render id; a render whose PNG cannot be read is
    left out. Storing twice writes the same values, so a task delivered twice,
    or two at once, is harmless."""
    renders = {render.pk: render for render in renders}
    read = render_fingerprints(renders.values())
    fresh = []
    for pk in read.unstored:
        phash, layout = read.by_render[pk].hex()
        fresh.append(RenderFingerprint(render_id=pk, version=FINGERPRINT_VERSION,
                                       png=renders[pk].png.name, phash=phash, layout=layout))
    if fresh:
        RenderFingerprint.objects.bulk_create(
            fresh, update_conflicts=True, unique_fields=["render"],
            update_fields=["version", "png", "phash", "layout"])
    return read.by_render


def render_fingerprints_queue(*, render_ids: Sequence[int]) -> None:
    """Have a default-queue worker store these renders' fingerprints once the current
    transaction commits (pool.tasks.render_fingerprints_store_task). For the
    pool page, which computed them without storing: a broker that cannot be
    reached is logged, not raised, since the page has what it needs."""
    ids = sorted(render_ids)

    def unsent(exc: Exception) -> None:
        if not isinstance(exc, OperationalError):
            raise exc
        logger.warning("fingerprints of %d renders not queued: %s", len(ids), exc)

    task_send("pool.tasks.render_fingerprints_store_task", ids, on_error=unsent)
