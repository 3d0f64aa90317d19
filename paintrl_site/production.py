"""The production profile (PAINTRL_PROFILE=production; docs/operations.md, "Production").

The default profile is for one machine: DEBUG on, a key made per process,
localhost only. This one refuses to start without a real secret key and the
host names, turns DEBUG off, and sends every cookie and page over HTTPS only,
so that `manage.py check --deploy` has nothing to warn about.
tests/test_deploy_profile.py runs that check and the refusals."""
from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
# Django's own bar for a key (check security.W009): at least 50 characters,
# at least 5 different ones, not the "django-insecure-" key startproject writes.
MIN_KEY_LENGTH = 50
MIN_KEY_CHARACTERS = 5
NEW_KEY = "python -c 'import secrets; print(secrets.token_urlsafe(50))'"
ONE_YEAR_S = 365 * 24 * 3600
# Static files come from the app (after `collectstatic`), so one process
# serves the site and no proxy rule has to follow STATIC_URL. It goes right
# after the security middleware, as WhiteNoise's docs ask, so HTTPS and its
# headers apply to static files too.
STATIC_MIDDLEWARE = "whitenoise.middleware.WhiteNoiseMiddleware"
SECURITY_MIDDLEWARE = "django.middleware.security.SecurityMiddleware"


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    return env.get(name, str(default)).strip().lower() in TRUE


def _secret_key(env: Mapping[str, str]) -> str:
    key = env.get("PAINTRL_SECRET_KEY", "")
    if not key.strip():
        raise ImproperlyConfigured(
            f"PAINTRL_PROFILE=production needs PAINTRL_SECRET_KEY from the environment "
            f"(make one with: {NEW_KEY}); it signs sessions and CSRF tokens.")
    if (len(key) < MIN_KEY_LENGTH or len(set(key)) < MIN_KEY_CHARACTERS
            or key.startswith("django-insecure-")):
        raise ImproperlyConfigured(
            f"PAINTRL_SECRET_KEY is too weak for production: it needs at least "
            f"{MIN_KEY_LENGTH} characters, {MIN_KEY_CHARACTERS} of them different "
            f"(make one with: {NEW_KEY}).")
    return key


def _hosts(env: Mapping[str, str]) -> list[str]:
    hosts = [h.strip() for h in env.get("PAINTRL_ALLOWED_HOSTS", "").split(",") if h.strip()]
    if not hosts:
        raise ImproperlyConfigured(
            "PAINTRL_PROFILE=production needs PAINTRL_ALLOWED_HOSTS: the host names the site "
            "answers to, comma-separated (e.g. paintrl.example.org).")
    if "*" in hosts:
        raise ImproperlyConfigured("PAINTRL_ALLOWED_HOSTS may not be '*' in production: "
                                   "name the hosts.")
    return hosts


def _with_static_files(middleware: list[str]) -> list[str]:
    at = middleware.index(SECURITY_MIDDLEWARE) + 1 if SECURITY_MIDDLEWARE in middleware else 0
    return [*middleware[:at], STATIC_MIDDLEWARE, *middleware[at:]]


def production_settings(env: Mapping[str, str], middleware: list[str]) -> dict:
    """The settings the profile replaces (`middleware`: the default profile's
    list); ImproperlyConfigured names what is missing."""
    if _flag(env, "PAINTRL_DEBUG", False):
        raise ImproperlyConfigured("PAINTRL_DEBUG is on, but PAINTRL_PROFILE=production runs "
                                   "with DEBUG off (debug pages show settings and code).")
    values = {
        "DEBUG": False,
        "SECRET_KEY": _secret_key(env),
        "ALLOWED_HOSTS": _hosts(env),
        # Cookies only over HTTPS; scripts never read the session cookie (the
        # pages send the CSRF token from their forms, grading.js included).
        "SESSION_COOKIE_SECURE": True,
        "CSRF_COOKIE_SECURE": True,
        "SESSION_COOKIE_HTTPONLY": True,
        # Every request over HTTPS, and browsers told to remember it.
        "SECURE_SSL_REDIRECT": True,
        "SECURE_HSTS_SECONDS": int(env.get("PAINTRL_HSTS_SECONDS", ONE_YEAR_S)),
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": _flag(env, "PAINTRL_HSTS_INCLUDE_SUBDOMAINS", True),
        "SECURE_HSTS_PRELOAD": _flag(env, "PAINTRL_HSTS_PRELOAD", True),
        # No page of the site inside another site's frame (clickjacking); the
        # renderer's sandbox frames are its own pages, not the site's.
        "X_FRAME_OPTIONS": "DENY",
        "SECURE_CONTENT_TYPE_NOSNIFF": True,
        "SECURE_REFERRER_POLICY": "same-origin",
        "SECURE_CROSS_ORIGIN_OPENER_POLICY": "same-origin",
        "MIDDLEWARE": _with_static_files(middleware),
    }
    if _flag(env, "PAINTRL_BEHIND_TLS_PROXY", False):
        # A proxy in front ends TLS and talks plain HTTP to the app: trust its
        # X-Forwarded-Proto, which it must set (and strip from clients), or the
        # SSL redirect would loop. Only behind such a proxy: otherwise a client
        # could claim HTTPS.
        values["SECURE_PROXY_SSL_HEADER"] = ("HTTP_X_FORWARDED_PROTO", "https")
    return values
