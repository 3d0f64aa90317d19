"""Writes for grades. Views, imports and commands call these; none of them
touch Grade rows directly."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from sketches.access import curator_group_name
from sketches.models import Render

from .conf import claim_ttl
from .models import (
    Claim,
    Comparison,
    Grade,
    GradeChange,
    GradeReceipt,
    GradingSettings,
    PairClaim,
    Skip,
)
from .pair_queue import pair_claim
from .queue import render_claim
from .selectors import GRADING_SETTINGS_CACHE_KEY


def curator_group() -> Group:
    group, _ = Group.objects.get_or_create(name=curator_group_name())
    return group


def curator_get_or_create(*, username: str):
    """A curator by name, created without a usable password when new (grades
    imported from elsewhere name curators who may never log in here)."""
    User = get_user_model()
    user, created = User.objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    user.groups.add(curator_group())
    return user


def grade_record(*, render: Render, curator, value: str, shown_ms: int | None = None,
                 source: str = Grade.Source.APP) -> Grade:
    """Set `curator`'s grade of `render`, keeping the previous value in the
    history. Recording the same value again changes nothing."""
    return _grade_write(render=render, curator=curator, value=value, shown_ms=shown_ms,
                        source=source)[0]


# Atomic on its own, wherever it is called from (the row lock needs a
# transaction); inside a caller's (_grade_submit's) it joins that one, with no
# savepoint to pay for on every grade.
@transaction.atomic(savepoint=False)
def _grade_write(*, render: Render, curator, value: str, shown_ms: int | None,
                 source: str) -> tuple[Grade, str]:
    """grade_record's work: the grade and its history row in one transaction;
    also returns the value the grade had before ("" when new)."""
    if value not in Grade.Value.values:
        raise ValueError(f"unknown grade {value!r}: "
                         f"expected one of {', '.join(Grade.Value.values)}")
    grade = (Grade.objects.select_for_update()
             .filter(render=render, curator=curator).first())
    if grade is None:
        grade = Grade.objects.create(render=render, curator=curator, value=value,
                                     shown_ms=shown_ms, source=source)
        GradeChange.objects.create(grade=grade, previous="", value=value, changed_by=curator)
        return grade, ""
    previous = grade.value
    if previous != value:
        GradeChange.objects.create(grade=grade, previous=previous, value=value,
                                   changed_by=curator)
        grade.value = value
        grade.save(update_fields=["value", "updated"])
    return grade, previous


def grades_import(*, render: Render, grades: dict[str, str]) -> list[Grade]:
    """Grades made elsewhere, keyed by curator name. The sketches import calls
    this through settings.PAINTRL_IMPORT_GRADES_HANDLER (sketches cannot import
    rating). Raises ValueError on an unknown grade before writing any."""
    for curator, value in grades.items():
        if not isinstance(curator, str) or not curator.strip():
            raise ValueError(f"curator name must be a non-empty string, got {curator!r}")
        if value not in Grade.Value.values:
            raise ValueError(f"unknown grade {value!r} by {curator!r}: "
                             f"expected one of {', '.join(Grade.Value.values)}")
    with transaction.atomic():
        return [grade_record(render=render, curator=curator_get_or_create(username=name.strip()),
                             value=value, source=Grade.Source.IMPORT)
                for name, value in grades.items()]


def grade_submit(*, curator, render: Render, value: str, shown_ms: int | None = None,
                 key: str = "") -> tuple[Grade | None, str]:
    """A grade given on the grading page or by a script: record it and free
    the curator's claim on the render (the grade now holds that seat).
    Returns the grade and the value it had before ("" for a new grade),
    which undo restores.

    `key` is the client's name for this request (the outbox's, a script's).
    A request whose key was applied before is answered from its receipt and
    changes nothing: a retry after a timeout neither counts twice nor
    overwrites a grade given since. Its grade is None if it was withdrawn
    since. Raises ValueError for a key used before for another grade."""
    if not key:
        return _grade_submit(curator=curator, render=render, value=value, shown_ms=shown_ms)
    try:
        with transaction.atomic():
            return _grade_submit(curator=curator, render=render, value=value,
                                 shown_ms=shown_ms, key=key)
    except IntegrityError:
        # The same request again while the first was being saved: the first
        # committed its receipt (or the grade row) first; answer as it did.
        receipt = GradeReceipt.objects.filter(curator=curator, key=key).first()
        if receipt is None:
            raise
        return _receipt_answer(receipt, render=render, value=value)


@transaction.atomic
def _grade_submit(*, curator, render: Render, value: str, shown_ms: int | None,
                  key: str = "") -> tuple[Grade | None, str]:
    if key:
        receipt = GradeReceipt.objects.filter(curator=curator, key=key).first()
        if receipt is not None:
            return _receipt_answer(receipt, render=render, value=value)
    grade, previous = _grade_write(render=render, curator=curator, value=value,
                                   shown_ms=shown_ms, source=Grade.Source.APP)
    # A skip of this render, if any, stays: it is moot once graded (the queue
    # leaves graded renders out), and deleting it here would cost every grade a query.
    Claim.objects.filter(render=render, curator=curator).delete()
    if key:
        GradeReceipt.objects.create(curator=curator, key=key, render=render, value=value,
                                    previous=previous)
    return grade, previous


def _receipt_answer(receipt: GradeReceipt, *, render: Render,
                    value: str) -> tuple[Grade | None, str]:
    """What the request the receipt records answered, as the grade is now."""
    if (receipt.render_id, receipt.value) != (render.pk, value):
        raise ValueError(f"the request key {receipt.key!r} was used for grading render "
                         f"{receipt.render_id} {receipt.value}: send a new key for a new grade")
    grade = Grade.objects.filter(render=render, curator=receipt.curator_id).first()
    return grade, receipt.previous


@transaction.atomic
def grade_undo(*, curator, render: Render, restore: str = "") -> Grade | None:
    """Undo a grade: put back the value it had (`restore`), or, when it had
    none, withdraw it; the render then goes back to the curator, held by a
    claim in the grade's place. Undoing a grade that is already gone does
    nothing, so a retried request is harmless."""
    if restore:
        return grade_record(render=render, curator=curator, value=restore)
    # The withdrawn grade's history goes with it: it was a slip of the key, not
    # an opinion anyone needs to audit.
    deleted, _ = Grade.objects.filter(render=render, curator=curator).delete()
    if deleted:
        Claim.objects.update_or_create(render=render, curator=curator,
                                       defaults={"expires": timezone.now() + claim_ttl()})
    return None


@transaction.atomic
def render_skip(*, curator, render: Render) -> None:
    """Pass a render over: it leaves the curator's queue, and their claim goes
    back so another curator can have it now."""
    Skip.objects.get_or_create(render=render, curator=curator)
    Claim.objects.filter(render=render, curator=curator).delete()


@transaction.atomic
def render_unskip(*, curator, render: Render) -> bool:
    """Undo a skip: the render returns to the curator's queue, and is claimed
    for them if it is still open. True if they hold it again."""
    Skip.objects.filter(render=render, curator=curator).delete()
    return render_claim(curator=curator, render_id=render.pk)


def skips_clear(*, curator) -> int:
    """Bring every render the curator skipped back into their queue."""
    deleted, _ = Skip.objects.filter(curator=curator).delete()
    return deleted


def pair_check(*, left: Render, right: Render) -> None:
    """Raise ValueError unless `left` and `right` can be compared: two
    different renders of one prompt."""
    if left.pk == right.pk:
        raise ValueError(f"render {left.pk} cannot be compared with itself")
    if left.sketch.prompt != right.sketch.prompt:
        raise ValueError(f"renders {left.pk} and {right.pk} answer different prompts: "
                         "only renders of one prompt are compared")


@transaction.atomic
def comparison_submit(*, curator, left: Render, right: Render, choice: str,
                      shown_ms: int | None = None, source: str = Comparison.Source.APP,
                      created=None) -> Comparison:
    """Record `curator`'s choice between two renders of one prompt, on the
    sides they were shown, and free their claim on the pair. A pair compared
    again (a retried request, an import run twice) keeps one row: the
    latest choice, on the latest sides. Raises ValueError for a bad pair or
    choice before writing."""
    if choice not in Comparison.Choice.values:
        raise ValueError(f"unknown choice {choice!r}: "
                         f"expected one of {', '.join(Comparison.Choice.values)}")
    pair_check(left=left, right=right)
    fields = {"left": left, "right": right, "prompt": left.sketch.prompt, "choice": choice,
              "shown_ms": shown_ms, "source": source, "created": created or timezone.now()}
    existing = _pair_rows(Comparison, curator, left.pk, right.pk).select_for_update().first()
    if existing is None:
        comparison = Comparison.objects.create(curator=curator, **fields)
    else:
        for name, value in fields.items():
            setattr(existing, name, value)
        existing.save()
        comparison = existing
    _pair_rows(PairClaim, curator, left.pk, right.pk).delete()
    return comparison


@transaction.atomic
def comparison_undo(*, curator, left: Render, right: Render) -> bool:
    """Withdraw the curator's comparison of a pair; the pair goes back to
    them, held on the same sides, if it is still open. Undoing one already
    gone does nothing (a retried request is harmless). True if they hold
    the pair again."""
    _pair_rows(Comparison, curator, left.pk, right.pk).delete()
    if _pair_rows(PairClaim, curator, left.pk, right.pk).exists():
        return True
    return pair_claim(curator=curator, left_id=left.pk, right_id=right.pk)


def _pair_rows(model, curator, a: int, b: int):
    """The curator's rows of `model` (Comparison, PairClaim) for the pair, on either sides."""
    return model.objects.filter(Q(left_id=a, right_id=b) | Q(left_id=b, right_id=a),
                                curator=curator)


def grading_settings_update(*, overlap: int | None, guidelines: str, updated_by,
                            compare_overlap: int | None = None) -> GradingSettings:
    """Save the site's grading settings (the one row) and drop the cached copy,
    now and again once the transaction commits (so a request that read the old
    row meanwhile cannot leave it cached)."""
    row = GradingSettings(pk=GradingSettings.SINGLETON_PK, overlap=overlap,
                          compare_overlap=compare_overlap, guidelines=guidelines.strip(),
                          updated_by=updated_by)
    row.full_clean(validate_unique=False)
    row.save()
    cache.delete(GRADING_SETTINGS_CACHE_KEY)
    transaction.on_commit(lambda: cache.delete(GRADING_SETTINGS_CACHE_KEY))
    return row
