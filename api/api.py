"""The HTTP API, version 1, under /api/v1/ (docs/api.md): one NinjaAPI whose
routers each cover one app's pages. Every endpoint names its role
(api.auth); the schema at openapi.json needs a token too, so nothing is
served to an anonymous caller."""
from __future__ import annotations

from functools import wraps

from django.http import JsonResponse
from django.urls import reverse
from ninja import NinjaAPI
from ninja.errors import AuthenticationError

from . import errors
from .auth import USER
from .routes import jobs, pool, rating, rewards, runs, sketches

VERSION = "1"


def token_required(view):
    """The schema view, behind the same token check as every endpoint."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not USER(request):
            return api.on_exception(request, AuthenticationError())
        return view(request, *args, **kwargs)

    return wrapped


ROLES = {"TokenAuth": "any user's token", "CuratorAuth": "a curator's token (staff count too)",
         "StaffAuth": "a staff member's token"}
# The refusals every operation may answer, in the one shape of api.errors.
REFUSALS = {"400": "bad input, or a service's refusal: each problem named",
            "401": "no working token", "403": "the token's user lacks the role or permission",
            "404": "no such row", "409": "the row's state refuses it"}


class PaintrlAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation) -> str:
        """The view's own name (unique across the routers): grade_create, run_start."""
        return operation.view_func.__name__

    def get_openapi_schema(self, *args, **kwargs):
        """Ninja's schema, with the role each token scheme stands for and the
        refusals (the Problem body) every operation may answer."""
        schema = super().get_openapi_schema(*args, **kwargs)
        schema["components"]["schemas"]["Problem"] = errors.ProblemOut.model_json_schema()
        for name, scheme in schema["components"].get("securitySchemes", {}).items():
            scheme["description"] = ROLES[name]
        problem = {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
        for path, methods in schema["paths"].items():
            for operation in methods.values():
                for code, text in REFUSALS.items():
                    if code == "404" and "{" not in path:
                        continue
                    operation["responses"].setdefault(code, {"description": text,
                                                             "content": problem})
        return schema


api = PaintrlAPI(title="paintrl", version=VERSION, urls_namespace="api", auth=USER,
               docs_url=None, docs_decorator=token_required,
               description="Scripts and notebooks: sketches, renders, grades, the pool, "
                           "reward models, training runs and jobs. See docs/api.md.")
errors.install(api)
for module in (sketches, rating, pool, rewards, runs, jobs):
    api.add_router("", module.router)


@token_required
def root(request):
    """/api/v1/: where the schema is."""
    return JsonResponse({"api": api.title, "version": VERSION,
                         "schema": request.build_absolute_uri(reverse("api:openapi-json"))})
