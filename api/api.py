"""The HTTP API, version 1, under /api/v1/ (docs/api.md): one NinjaAPI whose
routers each cover one app's pages. Every endpoint names its role
(api.auth); the schema at openapi.json needs a token too, so nothing is
served to an anonymous caller."""
from __future__ import annotations

from functools import wraps

from django.http import JsonResponse
from django.urls import reverse
from ninja import NinjaAPI

from . import errors
from .auth import USER
from .routes import jobs, pool, rating, rewards, runs, sketches

VERSION = "1"


def token_required(view):
    """The schema view, behind the same token check as every endpoint."""

    @wraps(view)
    def wrapped(request, *args, **kwargs):
        if not USER(request):
            return api.on_exception(request, errors.AuthenticationError())
        return view(request, *args, **kwargs)

    return wrapped


api = NinjaAPI(title="paintrl", version=VERSION, urls_namespace="api", auth=USER,
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
