"""Every operation of the HTTP API, read from its own OpenAPI schema, swept for
each kind of caller, as tests/test_access.py sweeps the pages: no token, a
bad or revoked token, or an inactive user's is 401 everywhere; a plain user
reaches only USER_ALLOWED, a curator CURATOR_ALLOWED, and every other
operation is staff-only until it is listed here; refusals change nothing.
The schema is checked against the URL conf both ways: every route under
/api/v1/ is in the schema (so no API route escapes this sweep and
test_access's both), and every operation in the schema answers (no 404 for
a missing route, no 405). A path parameter needs the model it looks up in
PATH_MODELS (the sweep fails and says so).

The API reads no session, so a browser's cookies give a cross-site request
nothing to ride on: there is no CSRF check to sweep."""
from __future__ import annotations

import json
import re

import pytest
from django.test import Client

from api.tokens import token_create, token_revoke
from pool.models import PoolSnapshot, RewardModel
from sketches.models import ImportJob, Render, Sketch
from tests import test_access
from tests.routes_data import changed_models, fingerprint, is_api, routes
from training.models import ExternalRun, TrainingRun

pytestmark = pytest.mark.django_db

API = "/api/v1"
SCHEMA = f"{API}/openapi.json"
# What any logged-in user may do: read sketches and renders (the render pages need a login only).
USER_ALLOWED = {
    "GET /sketches", "GET /sketches/{pk}", "GET /renders", "GET /renders/{pk}",
    "GET /renders/{pk}/report", "GET /renders/{pk}/png", "GET /renders/{pk}/calls",
}
# A curator also creates sketches (as the editor), grades and compares (their own),
# and looks at the pool's rule and snapshots.
CURATOR_ALLOWED = USER_ALLOWED | {
    "POST /sketches", "POST /grades", "GET /grades", "POST /comparisons", "GET /comparisons",
    "GET /pool/rule", "GET /pool/snapshots", "GET /pool/snapshots/{pk}",
    "GET /pool/snapshots/{pk}/members", "GET /pool/snapshots/{pk}/export",
}
# The model each path parameter looks up, by the collection before it.
PATH_MODELS = {
    "sketches": Sketch, "imports": ImportJob, "renders": Render, "pool/snapshots": PoolSnapshot,
    "pool/pins": Render, "reward-models": RewardModel, "runs": TrainingRun,
    "external-runs": ExternalRun,
}
_PARAM = re.compile(r"\{(\w+)\}")
# The access sweep's world (one row of every model) and its test broker.
world = test_access.world
broker = test_access.broker


def schema_of(client: Client, raw: str) -> dict:
    response = client.get(SCHEMA, headers={"Authorization": f"Bearer {raw}"})
    assert response.status_code == 200, response.content
    return response.json()


def operations(schema: dict) -> list[tuple[str, str]]:
    """(method, path without the /api/v1 prefix) of every operation."""
    return [(method.upper(), path.removeprefix(API)) for path, methods in schema["paths"].items()
            for method in methods]


def label(method: str, path: str) -> str:
    return f"{method} {path}"


def url_for(world, path: str) -> str:
    collection = path.split("/{")[0].strip("/")

    def fill(match):
        assert collection in PATH_MODELS, (
            f"{path} takes {match[1]!r}: name the model it looks up in PATH_MODELS")
        row = world.row(PATH_MODELS[collection])
        return row.name if match[1] == "name" else str(row.pk)

    return API + _PARAM.sub(fill, path)


def call(client: Client, method: str, url: str, raw: str | None):
    headers = {"Authorization": f"Bearer {raw}"} if raw is not None else {}
    if method in ("GET", "DELETE"):
        return client.generic(method, url, headers=headers)
    return client.generic(method, url, data="{}", content_type="application/json",
                          headers=headers)


def is_json_refusal(response, status: int) -> bool:
    if response.status_code != status:
        return False
    if not response["Content-Type"].startswith("application/json"):
        return False
    body = response.json()
    return isinstance(body.get("detail"), str) and isinstance(body.get("problems"), list)


@pytest.fixture
def callers(world):
    """A token for each kind of caller of the world: plain user, curator, staff."""
    return {role: token_create(user=user, name=f"{role} sweep")[1]
            for role, user in (("user", world.visitor), ("curator", world.curator),
                               ("staff", world.staff))}


class TestTheSchemaIsTheApi:
    def test_every_route_under_api_v1_is_in_the_schema_and_each_operation_answers(
            self, world, callers, broker):
        client = Client()
        schema = schema_of(client, callers["staff"])
        in_schema = {path for path in schema["paths"]}
        # The last route answers every other path under /api/v1/ with a 404 (api.errors).
        in_urls = {"/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route.pattern)
                   for route in routes() if is_api(route) and route.name != "api:api-not-found"}
        assert in_urls - {SCHEMA, f"{API}/"} == in_schema
        ops = operations(schema)
        assert len(ops) >= 40
        wrong = []
        for method, path in ops:
            response = call(client, method, url_for(world, path), callers["staff"])
            if response.status_code == 405 or (response.status_code == 404 and
                                               "problems" not in response.json()):
                wrong.append(f"{label(method, path)}: {response.status_code}")
        assert not wrong, "\n".join(wrong)

    def test_the_schema_names_the_role_each_operation_needs_and_its_refusals(self, callers):
        """A script (or a client generator) can read the role from the schema:
        it names the same role the sweep below finds."""
        schema = schema_of(Client(), callers["user"])
        expected = {"TokenAuth": USER_ALLOWED, "CuratorAuth": CURATOR_ALLOWED - USER_ALLOWED}
        wrong = []
        for method, path in operations(schema):
            operation = schema["paths"][API + path][method.lower()]
            [[scheme]] = [list(s) for s in operation["security"]]
            named = label(method, path)
            role_set = expected.get(scheme)
            if (role_set is not None and named not in role_set) or (
                    scheme == "StaffAuth" and named in CURATOR_ALLOWED):
                wrong.append(f"{named}: the schema says {scheme}")
            for code in ("401", "403"):
                ref = operation["responses"][code]["content"]["application/json"]["schema"]
                assert ref == {"$ref": "#/components/schemas/Problem"}, (named, code)
        assert not wrong, "\n".join(wrong)
        assert set(schema["components"]["securitySchemes"]) == {"TokenAuth", "CuratorAuth",
                                                                "StaffAuth"}


class TestNoWorkingToken:
    def test_every_operation_and_the_schema_answer_401_and_change_nothing(self, world,
                                                                           callers):
        client = Client()
        revoked, raw = token_create(user=world.other, name="revoked")
        token_revoke(token=revoked, by=world.other)
        inactive_raw = token_create(user=world.visitor, name="inactive")[1]
        world.visitor.is_active = False
        world.visitor.save()
        ops = operations(schema_of(client, callers["staff"]))
        # Logged in with a session too: the API reads tokens only.
        client.force_login(world.staff)
        before, wrong = fingerprint(), []
        for token in (None, "prl_not-a-token", "garbage", raw, inactive_raw):
            for method, path in [("GET", "/openapi.json"), ("GET", "/"), *ops]:
                response = call(client, method, url_for(world, path), token)
                if not is_json_refusal(response, 401):
                    wrong.append(f"{label(method, path)} with {token!r}: "
                                 f"{response.status_code}")
        assert not wrong, "\n".join(wrong[:20])
        assert changed_models(before, fingerprint()) == []


def sweep(world, raw: str, allowed: set[str], ops) -> list[str]:
    """Refused operations first (403, nothing changed), then the allowed ones
    (neither 401 nor 403, and never a server error)."""
    client, wrong = Client(), []
    refused = [(m, p) for m, p in ops if label(m, p) not in allowed]
    before = fingerprint()
    for method, path in refused:
        response = call(client, method, url_for(world, path), raw)
        if not is_json_refusal(response, 403):
            wrong.append(f"{label(method, path)}: should be refused, got {response.status_code}")
    changed = changed_models(before, fingerprint())
    if changed:
        wrong.append(f"refused requests changed {changed}")
    for method, path in ops:
        if label(method, path) not in allowed:
            continue
        response = call(client, method, url_for(world, path), raw)
        if response.status_code in (401, 403) or response.status_code >= 500:
            wrong.append(f"{label(method, path)}: should be let in, got "
                         f"{response.status_code} {response.content[:200]!r}")
        elif response.status_code >= 400 and not is_json_refusal(response,
                                                                  response.status_code):
            wrong.append(f"{label(method, path)}: a {response.status_code} without the "
                         f"JSON problems: {response.content[:200]!r}")
    return wrong


class TestEachRole:
    def test_a_plain_user_reads_sketches_and_renders_only(self, world, callers, broker):
        ops = operations(schema_of(Client(), callers["user"]))
        assert not (wrong := sweep(world, callers["user"], USER_ALLOWED, ops)), "\n".join(wrong)

    def test_a_curator_also_grades_compares_and_reads_the_pool(self, world, callers, broker):
        ops = operations(schema_of(Client(), callers["curator"]))
        assert not (wrong := sweep(world, callers["curator"], CURATOR_ALLOWED, ops)), \
            "\n".join(wrong)

    def test_staff_reach_every_operation(self, world, callers, broker):
        ops = operations(schema_of(Client(), callers["staff"]))
        every = {label(m, p) for m, p in ops}
        assert not (wrong := sweep(world, callers["staff"], every, ops)), "\n".join(wrong)
        assert CURATOR_ALLOWED < every

    def test_staff_without_model_permissions_read_but_write_nothing(self, world, callers,
                                                                      broker):
        """As in the admin: each staff write needs a model permission (the
        schema's x-permission), which a staff member who is no superuser lacks
        until granted; reads need the role only, as on the pages."""
        from django.contrib.auth import get_user_model

        plain = get_user_model().objects.create_user("staffer", is_staff=True)
        raw = token_create(user=plain, name="staff sweep")[1]
        schema = schema_of(Client(), raw)
        needs = {label(m, p): schema["paths"][API + p][m.lower()].get("x-permission")
                 for m, p in operations(schema)}
        writes = {op for op in needs if not op.startswith("GET ")}
        staff_writes = writes - CURATOR_ALLOWED
        assert {op for op in staff_writes if not needs[op]} == set()  # every one names its own
        allowed = {op for op, permission in needs.items() if not permission}
        wrong = sweep(world, raw, allowed, operations(schema))
        assert not wrong, "\n".join(wrong)

    def test_the_allowed_sets_name_real_operations(self, callers):
        every = {label(m, p) for m, p in operations(schema_of(Client(), callers["user"]))}
        assert CURATOR_ALLOWED <= every, CURATOR_ALLOWED - every


def test_error_bodies_are_json(world, callers):
    """A sample of the shapes a script meets (every refusal above is checked too)."""
    client = Client()
    response = client.get(f"{API}/renders/999999", headers={
        "Authorization": f"Bearer {callers['user']}"})
    assert is_json_refusal(response, 404) and "999999" in response.json()["detail"]
    response = client.get(f"{API}/renders?limit=0", headers={
        "Authorization": f"Bearer {callers['user']}"})
    assert is_json_refusal(response, 400)
    assert any("limit" in p for p in response.json()["problems"]), response.json()
    response = client.post(f"{API}/grades", data=json.dumps({"render": 1, "value": "meh"}),
                           content_type="application/json",
                           headers={"Authorization": f"Bearer {callers['curator']}"})
    assert is_json_refusal(response, 400)
    assert any(p.startswith("value:") for p in response.json()["problems"]), response.json()


def test_the_guide_lists_every_operation_and_no_other(callers):
    """docs/api.md's endpoint table, one row an operation, is the schema's list,
    each with the role the sweep holds it to."""
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[1] / "docs" / "api.md").read_text()
    rows = dict(re.findall(r"^\| `((?:GET|POST|DELETE|PUT|PATCH) /[^`]*)` \| ([ucs]) \|",
                           guide, re.M))
    every = {label(m, p) for m, p in operations(schema_of(Client(), callers["user"]))}
    assert set(rows) == every, (sorted(every - set(rows)), sorted(set(rows) - every))
    roles = {op: "u" if op in USER_ALLOWED else "c" if op in CURATOR_ALLOWED else "s"
             for op in every}
    assert rows == roles, {op: (rows[op], roles[op]) for op in every if rows[op] != roles[op]}
