"""The site's routes read from the URL conf, and a fingerprint of every row, for the
access sweeps (tests/test_access.py for the pages, tests/test_api_access.py for the API):
a new route is swept without editing either test, and a refused request is shown to
have changed nothing."""
from __future__ import annotations

from dataclasses import dataclass

from django.apps import apps
from django.contrib.sessions.models import Session
from django.urls import URLResolver, get_resolver


@dataclass(frozen=True)
class Route:
    pieces: tuple  # the pattern of each level, outermost first
    name: str      # "namespace:name", or "" for an unnamed route
    module: str    # where its view lives

    @property
    def pattern(self) -> str:
        return "".join(str(p) for p in self.pieces)

    @property
    def label(self) -> str:
        return self.name or self.pattern

    @property
    def params(self) -> list[str]:
        return [name for p in self.pieces for name in p.regex.groupindex]


def routes() -> list[Route]:
    def walk(resolver, pieces, namespace):
        for entry in resolver.url_patterns:
            if isinstance(entry, URLResolver):
                inner = ":".join(filter(None, [namespace, entry.namespace]))
                yield from walk(entry, (*pieces, entry.pattern), inner)
            else:
                name = f"{namespace}:{entry.name}" if namespace and entry.name else \
                    (entry.name or "")
                yield Route((*pieces, entry.pattern), name, entry.callback.__module__)

    return list(walk(get_resolver(), (), ""))


API_PREFIX = "api/v1/"


def is_api(route: Route) -> bool:
    """A route of the HTTP API, swept by tests/test_api_access.py."""
    return route.pattern.startswith(API_PREFIX)


def fingerprint() -> dict:
    """Every row of every model (sessions and login times aside), to show a
    refused request changed nothing."""
    state = {}
    for model in apps.get_models():
        if model is Session:
            continue
        rows = list(model.objects.order_by("pk").values())
        for row in rows:
            row.pop("last_login", None)
        state[model._meta.label] = rows
    return state


def changed_models(before: dict, after: dict) -> list[str]:
    return [label for label in before if before[label] != after.get(label)]
