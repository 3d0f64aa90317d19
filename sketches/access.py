"""Who may do what, for every app: curators (members of the
PAINTRL_CURATOR_GROUP group) grade and edit; staff also import, see everyone's
grades and change the pool. LoginRequiredMiddleware has already sent anonymous
visitors to the login page, so these checks answer 403."""
from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.core.exceptions import PermissionDenied


def curator_group_name() -> str:
    return settings.PAINTRL_CURATOR_GROUP


def is_curator(user) -> bool:
    if not user.is_authenticated or not user.is_active:
        return False
    return user.is_staff or user.groups.filter(name=curator_group_name()).exists()


def curator_required(view):
    """A view only curators and staff may use."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not is_curator(request.user):
            raise PermissionDenied(f"this needs membership of the {curator_group_name()!r} group")
        return view(request, *args, **kwargs)

    return wrapped


def staff_required(view):
    """A view only staff may use. Pages that show every curator's grades are
    among them: a curator who saw the others' grades would no longer grade
    independently, and independent grades are what agreement measures."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied("this page is for staff")
        return view(request, *args, **kwargs)

    return wrapped
