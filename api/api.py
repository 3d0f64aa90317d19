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
from .routes import external, jobs, pool, rating, rewards, runs, sketches

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
            "404": "no such row", "409": "the row's state refuses it",
            "413": "the body is over the server's limit"}
# Operations that look up a row named in their body, not their path: they answer 404 too.
FINDS_BY_BODY = {"grade_create", "comparison_create", "pin_create"}


class PaintrlAPI(NinjaAPI):
    def get_openapi_operation_id(self, operation) -> str:
        """The view's own name (unique across the routers): grade_create, run_start."""
        return operation.view_func.__name__

    def permissions(self) -> dict[str, str]:
        """The model permission each operation needs beyond its role (api.auth:
        STAFF.needs), by operation id."""
        needs = {}
        for _prefix, router in self._routers:
            for path_view in router.path_operations.values():
                for operation in path_view.operations:
                    for auth in operation.auth_callbacks:
                        if getattr(auth, "permission", ""):
                            needs[operation.view_func.__name__] = auth.permission
        return needs

    def get_openapi_schema(self, *args, **kwargs):
        """Ninja's schema, with the role each token scheme stands for, the
        permission an operation needs too (`x-permission`), and the refusals
        (the Problem body) every operation may answer."""
        schema = super().get_openapi_schema(*args, **kwargs)
        needs = self.permissions()
        schema["components"]["schemas"]["Problem"] = errors.ProblemOut.model_json_schema()
        for name, scheme in schema["components"].get("securitySchemes", {}).items():
            scheme["description"] = ROLES[name]
        problem = {"application/json": {"schema": {"$ref": "#/components/schemas/Problem"}}}
        for path, methods in schema["paths"].items():
            for operation in methods.values():
                if operation["operationId"] in needs:
                    operation["x-permission"] = needs[operation["operationId"]]
                for code, text in REFUSALS.items():
                    if code == "404" and "{" not in path and \
                            operation["operationId"] not in FINDS_BY_BODY:
                        continue
                    if code == "413" and "requestBody" not in operation:
                        continue
                    operation["responses"].setdefault(code, {"description": text,
                                                             "content": problem})
        return schema


api = PaintrlAPI(title="paintrl", version=VERSION, urls_namespace="api", auth=USER,
               docs_url=None, docs_decorator=token_required,
               description="Scripts and notebooks: sketches, renders, grades, the pool, "
                           "reward models, training runs and jobs. See docs/api.md.")
errors.install(api)
for module in (sketches, rating, pool, rewards, runs, external, jobs):
    api.add_router("", module.router)


@token_required
def root(request):
    """/api/v1/: where the schema is."""
    return JsonResponse({"api": api.title, "version": VERSION,
                         "schema": request.build_absolute_uri(reverse("api:openapi-json"))})
