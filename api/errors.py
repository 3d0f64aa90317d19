"""Every refusal answers one JSON shape: {"detail": a sentence, "problems":
[each thing to fix]}. A service's refusal (PoolError, RunError, a
ValueError) carries the same words the pages show. So do the answers no
endpoint gives: an unknown path under /api/v1/, a method the path does not
take, a body over DATA_UPLOAD_MAX_MEMORY_SIZE and a server error (logged as
Django logs one, with DEBUG or without)."""
from __future__ import annotations

import logging
from functools import wraps

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.views.decorators.csrf import csrf_exempt
from ninja import Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError

from .auth import RoleRefused

logger = logging.getLogger("django.request")
SERVER_ERROR = "The server failed on this request; it is logged. Nothing was saved."


class ProblemOut(Schema):
    """The body of every refusal."""

    detail: str
    problems: list[str]


class Problem(Exception):
    """An API refusal: `status`, a `detail` sentence and the `problems`;
    `retry_after` (seconds) where waiting would help (a 429, a 503)."""

    def __init__(self, status: int, detail: str, problems: list[str] | None = None,
                 retry_after: int | None = None):
        super().__init__(detail)
        self.status, self.detail, self.retry_after = status, detail, retry_after
        self.problems = problems if problems is not None else [detail]


def form_problems(errors) -> list[str]:
    """A Django form's (or ValidationError's) errors as one line each."""
    return [f"{'' if field == '__all__' else field + ': '}{' '.join(messages)}"
            for field, messages in errors.items()]


def _input_problems(errors: list[dict]) -> list[str]:
    """Pydantic's errors as "where: what" lines: the field's path, without the
    "body"/"query"/"path" it came in nor the endpoint's name for a whole body
    ("value", not "body.data.value")."""
    lines = []
    for error in errors:
        loc = tuple(error.get("loc", ()))
        where = ".".join(str(part) for part in (loc[2:] if len(loc) > 2 else loc[1:])) \
            or "body"
        lines.append(f"{where}: {error.get('msg', 'invalid')}")
    return lines


def install(api) -> None:
    def answer(request, status: int, detail: str, problems: list[str]):
        return api.create_response(request, {"detail": detail, "problems": problems},
                                   status=status)

    @api.exception_handler(Problem)
    def problem(request, exc: Problem):
        response = answer(request, exc.status, exc.detail, exc.problems)
        if exc.retry_after is not None:
            response["Retry-After"] = str(exc.retry_after)
        return response

    @api.exception_handler(ValidationError)
    def bad_input(request, exc: ValidationError):
        return answer(request, 400, "The request is not valid.", _input_problems(exc.errors))

    @api.exception_handler(DjangoValidationError)
    def bad_model(request, exc: DjangoValidationError):
        problems = form_problems(exc.message_dict) if hasattr(exc, "error_dict") \
            else list(exc.messages)
        return answer(request, 400, "The request is not valid.", problems)

    @api.exception_handler(AuthenticationError)
    def unauthenticated(request, exc):
        response = answer(request, 401, "Send a working API token: "
                                        "Authorization: Bearer <token>.", ["no valid token"])
        response["WWW-Authenticate"] = "Bearer"
        return response

    @api.exception_handler(RoleRefused)
    def role(request, exc: RoleRefused):
        return answer(request, 403, str(exc), [str(exc)])

    @api.exception_handler(PermissionDenied)
    def denied(request, exc):
        detail = str(exc) or "You may not do this."
        return answer(request, 403, detail, [detail])

    @api.exception_handler(Http404)
    def not_found(request, exc):
        detail = str(exc) or "Not found."
        return answer(request, 404, detail, [detail])

    @api.exception_handler(HttpError)
    def http_error(request, exc: HttpError):
        return answer(request, exc.status_code, str(exc), [str(exc)])

    @api.exception_handler(RequestDataTooBig)
    def too_big(request, exc):
        detail = "The body is too large."
        return answer(request, 413, detail, [f"body: {exc}"])

    @api.exception_handler(MultiPartParserError)
    def unreadable_form(request, exc):
        # A multipart body the parser cannot read (no boundary, cut short) is
        # the client's: Django raises it from request.POST as any other error.
        return answer(request, 400, "The body is not a readable multipart form.",
                      [f"body: {exc}"])

    @api.exception_handler(SuspiciousOperation)
    def suspicious(request, exc):
        return answer(request, 400, "The request is not valid.", [str(exc)])

    @api.exception_handler(Exception)
    def server_error(request, exc):
        logger.error("Internal Server Error: %s", request.path, exc_info=exc,
                     extra={"status_code": 500, "request": request})
        return answer(request, 500, SERVER_ERROR, [SERVER_ERROR])


def refusal(status: int, detail: str) -> JsonResponse:
    """A refusal made outside ninja's views (the URL conf's 404 and 405)."""
    return JsonResponse({"detail": detail, "problems": [detail]}, status=status)


@csrf_exempt  # it writes nothing, and a POST deserves the same answer as a GET
def not_found_anywhere(request, *args, **kwargs):
    """Any path under /api/v1/ that no endpoint serves."""
    return refusal(404, f"There is no API endpoint at {request.path} (see /api/v1/openapi.json).")


def method_in_shape(view):
    """Ninja answers a method the path does not take with a plain-text 405:
    the same status and Allow header, in the one shape."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        if response.status_code != 405:
            return response
        shaped = refusal(405, f"{request.method} is not allowed here: use {response['Allow']}.")
        shaped["Allow"] = response["Allow"]
        return shaped

    return wrapped
