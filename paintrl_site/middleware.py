"""Site-wide middleware of our own."""
from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError
from django.http import HttpResponse
from django.template.loader import render_to_string

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
