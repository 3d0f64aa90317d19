"""Who is calling: a bearer token (api.tokens) names the user, and each
endpoint names the role it needs, as the pages do (sketches.access): any
user, a curator (grades and compares; staff count as curators), or staff
(import, manage the pool, reward models, runs and jobs). A staff write
also needs the model permission the admin asks for (STAFF.needs): adding an
import, a pin or a reward model, changing a run, deleting a pin; staff read
without one, as on the pages. No token, or one that does not work: 401. A
token whose user lacks the role or the permission: 403."""
from __future__ import annotations

from ninja.security import HttpBearer

from sketches.access import curator_group_name, is_curator

from .tokens import token_user


class RoleRefused(Exception):
    """The token is good but its user lacks the endpoint's role."""


class TokenAuth(HttpBearer):
    """Bearer token authentication that also checks a role. The user is set
    on request.user too, so the services the pages call see the same user."""

    role = "user"

    def authenticate(self, request, token: str):
        user = token_user(token.strip())
        if user is None:
            return None
        request.user = user
        if not self.allowed(user):
            raise RoleRefused(self.refusal(user))
        return user

    def allowed(self, user) -> bool:
        return True

    def refusal(self, user) -> str:
        return ""


class CuratorAuth(TokenAuth):
    role = "curator"

    def allowed(self, user) -> bool:
        return is_curator(user)

    def refusal(self, user) -> str:
        return (f"Only curators can do this: ask staff to add you to the "
                f"{curator_group_name()!r} group.")


class StaffAuth(TokenAuth):
    role = "staff"

    def __init__(self, permission: str = ""):
        super().__init__()
        self.permission = permission  # "app.codename", or "" for staff alone

    def needs(self, permission: str) -> StaffAuth:
        """Staff holding `permission` (superusers hold every one)."""
        return StaffAuth(permission)

    def allowed(self, user) -> bool:
        return user.is_staff and (not self.permission or user.has_perm(self.permission))

    def refusal(self, user) -> str:
        if not user.is_staff:
            return "Only staff can do this."
        return (f"This needs the permission {self.permission!r}, as in the admin: ask an "
                "administrator for it.")


USER, CURATOR, STAFF = TokenAuth(), CuratorAuth(), StaffAuth()
