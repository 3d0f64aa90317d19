"""Who is calling: a bearer token (api.tokens) names the user, and each
endpoint names the role it needs, as the pages do (sketches.access): any
user, a curator (grades and compares; staff count as curators), or staff
(import, manage the pool, reward models, runs and jobs). No token, or one
that does not work: 401. A token whose user lacks the role: 403."""
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
            raise RoleRefused(self.refusal())
        return user

    def allowed(self, user) -> bool:
        return True

    def refusal(self) -> str:
        return ""


class CuratorAuth(TokenAuth):
    role = "curator"

    def allowed(self, user) -> bool:
        return is_curator(user)

    def refusal(self) -> str:
        return (f"Only curators can do this: ask staff to add you to the "
                f"{curator_group_name()!r} group.")


class StaffAuth(TokenAuth):
    role = "staff"

    def allowed(self, user) -> bool:
        return user.is_staff

    def refusal(self) -> str:
        return "Only staff can do this."


USER, CURATOR, STAFF = TokenAuth(), CuratorAuth(), StaffAuth()
