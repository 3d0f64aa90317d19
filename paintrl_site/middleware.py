"""Site-wide middleware of our own."""
from __future__ import annotations

import logging

from django.conf import settings
from django.core.exceptions import BadRequest, PermissionDenied, SuspiciousOperation
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse
from django.template.loader import render_to_string
from django.urls import Resolver404, get_resolver, resolve
from django.utils.log import log_response

logger = logging.getLogger(__name__)

RETRY_AFTER_S = 30


class DatabaseUnavailableMiddleware:
    """A view that loses the database answers 503 with a short page and
    Retry-After, not a 500 or a traceback: the outage is not the user's
    fault, and the request can simply be repeated (each write is one
    transaction, so nothing half-done is left behind). The page is rendered
    without the request's context, which would need the database again."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view, args, kwargs):
        # The session's user is loaded lazily, usually first by the login
        # check's process_view, whose exceptions never reach process_exception:
        # load it here, where a lost database can still be answered.
        try:
            request.user.is_authenticated  # noqa: B018  (loads the user)
        except (OperationalError, InterfaceError) as exc:
            return self._unavailable(request, exc)
        return None

    def process_exception(self, request, exception):
        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        return self._unavailable(request, exception)

    def _unavailable(self, request, exception) -> HttpResponse:
        logger.warning("database unavailable for %s %s: %s", request.method, request.path,
                       " ".join(str(exception).split()))
        response = HttpResponse(render_to_string("503.html", {"retry_s": RETRY_AFTER_S}),
                                status=503)
        response["Retry-After"] = str(RETRY_AFTER_S)
        return response


class SiteErrorPagesMiddleware:
    """With DEBUG on (the demo's default profile), a missing page and a server
    error answer with the site's own 404 and 500 pages, as they do with DEBUG
    off: Django's debug pages list every URL pattern or show a traceback, a
    developer's view and not the product's. The pages are the URL conf's
    handler404 and handler500, so both profiles show the same ones.
    PAINTRL_DEBUG_PAGES=1 brings Django's debug pages back.

    A 500 is still logged with its traceback (django.request, as Django logs
    it); a 403 needs nothing here, since Django serves templates/403.html with
    DEBUG on too."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if self._active():
            # An address no URL pattern matches fails before any view runs, where
            # process_exception never sees it: resolve it here, as the handler will.
            try:
                resolve(request.path_info, getattr(request, "urlconf", None))
            except Resolver404 as missing:
                return self._page(request, 404, missing)
        return self.get_response(request)

    def process_exception(self, request, exception):
        if not self._active():
            return None
        if isinstance(exception, Http404):
            return self._page(request, 404, exception)
        if isinstance(exception, (PermissionDenied, BadRequest, SuspiciousOperation,
                                  OperationalError, InterfaceError)):
            return None  # Django's 403/400 pages, or DatabaseUnavailableMiddleware's 503
        response = self._page(request, 500, exception)
        # As Django logs an uncaught exception (with its traceback), and only once:
        # log_response marks the response logged, so the handler does not again.
        log_response("Internal Server Error: %s", request.path, response=response,
                     request=request, exception=exception)
        return response

    @staticmethod
    def _active() -> bool:
        return settings.DEBUG and not settings.PAINTRL_DEBUG_PAGES

    @staticmethod
    def _page(request, status: int, exception) -> HttpResponse:
        handler = get_resolver(getattr(request, "urlconf", None)).resolve_error_handler(status)
        return handler(request, exception) if status == 404 else handler(request)
