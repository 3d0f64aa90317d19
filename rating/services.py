"""Writes for grades. Views, imports and commands call these; none of them
touch Grade rows directly."""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import transaction

from sketches.models import Render

from .models import Grade, GradeChange

CURATOR_GROUP = "curator"


def curator_group() -> Group:
    group, _ = Group.objects.get_or_create(name=CURATOR_GROUP)
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


@transaction.atomic
def grade_record(*, render: Render, curator, value: str, shown_ms: int | None = None,
                 source: str = Grade.Source.APP) -> Grade:
    """Set `curator`'s grade of `render`, keeping the previous value in the
    history. Recording the same value again changes nothing."""
    if value not in Grade.Value.values:
        raise ValueError(f"unknown grade {value!r}: expected one of {', '.join(Grade.Value.values)}")
    grade = (Grade.objects.select_for_update()
             .filter(render=render, curator=curator).first())
    if grade is None:
        grade = Grade.objects.create(render=render, curator=curator, value=value,
                                     shown_ms=shown_ms, source=source)
        GradeChange.objects.create(grade=grade, previous="", value=value, changed_by=curator)
        return grade
    if grade.value != value:
        GradeChange.objects.create(grade=grade, previous=grade.value, value=value,
                                   changed_by=curator)
        grade.value = value
        grade.save(update_fields=["value", "updated"])
    return grade


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
