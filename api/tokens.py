"""Making, checking and revoking API tokens.

A token is 32 random bytes (urlsafe base64) after the fixed PREFIX, so a
leaked one is easy to recognise in logs and secret scanners. Only its
SHA-256 is stored: a plain hash is enough for a value with 256 bits of
entropy (a slow password hash guards low-entropy secrets, and would cost
every API request its time). The token is returned once, by token_create."""
from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from .models import ApiToken

PREFIX = "prl_"
# How much of the token the pages show beside its name (the prefix and 4 more).
SHOWN = len(PREFIX) + 4
# last_used is written at most this often per token: a script polling every
# second would otherwise write a row per request.
LAST_USED_EVERY = timedelta(minutes=1)
MAX_NAME = ApiToken._meta.get_field("name").max_length


class TokenError(ValueError):
    """A token that cannot be made or revoked as asked; the message says why."""


def token_digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


@transaction.atomic
def token_create(*, user, name: str, created_by=None) -> tuple[ApiToken, str]:
    """A new token for `user`; returns the row and the token itself, which
    is not stored and cannot be shown again."""
    name = " ".join((name or "").split())
    if not name:
        raise TokenError("a token needs a name: say what will use it")
    if len(name) > MAX_NAME:
        raise TokenError(f"a token name has at most {MAX_NAME} characters, got {len(name)}")
    if not user.is_active:
        raise TokenError(f"{user} is not an active user")
    raw = PREFIX + secrets.token_urlsafe(32)
    token = ApiToken.objects.create(user=user, name=name, prefix=raw[:SHOWN],
                                    digest=token_digest(raw), created_by=created_by or user)
    return token, raw


def token_revoke(*, token: ApiToken, by=None) -> ApiToken:
    """Stop `token` working. Its owner and staff may (`by` None: a management
    command, run by whoever runs the site); revoking twice changes nothing."""
    if by is not None and not (by.is_staff or by.pk == token.user_id):
        raise TokenError("only the token's owner or staff can revoke it")
    ApiToken.objects.filter(pk=token.pk, revoked__isnull=True).update(revoked=timezone.now())
    token.refresh_from_db()
    return token


def token_user(raw: str):
    """The active user a token acts for, or None (unknown, revoked, or the
    user deactivated)."""
    if not raw or not raw.startswith(PREFIX):
        return None
    token = (ApiToken.objects.select_related("user")
             .filter(digest=token_digest(raw), revoked__isnull=True).first())
    if token is None or not token.user.is_active:
        return None
    now = timezone.now()
    if token.last_used is None or now - token.last_used > LAST_USED_EVERY:
        ApiToken.objects.filter(pk=token.pk).update(last_used=now)
    return token.user


def tokens_of(user):
    return ApiToken.objects.filter(user=user).order_by("-created")
