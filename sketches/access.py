"""Who may do what, for every app: curators (members of the
PAINTRL_CURATOR_GROUP group) grade and edit; staff also import, see everyone's
grades and change the pool. LoginRequiredMiddleware has already sent anonymous
visitors to the login page, so these checks answer 403, and templates/403.html
shows the reason given here: one sentence saying what the page needs.

The curator group exists from the first migrate on (curator_group_ensure runs
after every migrate and flush), so staff only tick it on a user's admin page;
before, a curator's 403 named a group nobody had made yet."""
from __future__ import annotations

from functools import partial, wraps

from django.conf import settings
from django.core.exceptions import PermissionDenied


def curator_group_name() -> str:
    return settings.PAINTRL_CURATOR_GROUP


def curator_group_ensure(**_signal) -> None:
    """Create the curator group if it is missing (a post_migrate receiver:
    sketches.apps). Idempotent; a renamed PAINTRL_CURATOR_GROUP gets its group
    at the next migrate, and the old group is left as it was."""
    from django.contrib.auth.models import Group

    Group.objects.get_or_create(name=curator_group_name())


def is_curator(user) -> bool:
    if user is None or not user.is_authenticated or not user.is_active:
        return False
    return user.is_staff or user.groups.filter(name=curator_group_name()).exists()


def curator_required(view=None, *, reason: str = ""):
    """A view only curators and staff may use; `reason` (a sentence) replaces
    the default one on the 403 page: @curator_required(reason="...")."""
    if view is None:
        return partial(curator_required, reason=reason)

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not is_curator(request.user):
            raise PermissionDenied(reason or (
                f"Only curators can open this page: ask staff to add you to the "
                f"{curator_group_name()!r} group (the admin's Users page, your "
                f"account's Groups)."))
        return view(request, *args, **kwargs)

    return wrapped


def staff_required(view=None, *, reason: str = "Only staff can open this page."):
    """A view only staff may use; `reason` (a sentence) is shown on the 403
    page: @staff_required(reason="Only staff can change the pool."). Pages that
    show every curator's grades are among them: a curator who saw the others'
    grades would no longer grade independently, and independent grades are
    what agreement measures."""
    if view is None:
        return partial(staff_required, reason=reason)

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not request.user.is_staff:
            raise PermissionDenied(reason)
        return view(request, *args, **kwargs)

    return wrapped


def access_context(request) -> dict:
    """A context processor: `is_curator` for the navigation, so it offers only
    the pages the user may open."""
    return {"is_curator": is_curator(getattr(request, "user", None))}
