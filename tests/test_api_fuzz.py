"""The API fuzzed from its own schema, as an outside tester would: schemathesis
(pinned in requirements-dev.txt) generates requests for every operation from
/api/v1/openapi.json (the schema's examples and boundaries, then random data,
then chains of calls that feed one answer's ids into the next request) and
checks each answer: never a server error; a status, content type, headers
and body the schema declares; invalid data refused with a 4xx. It runs once
with a staff token and once with a curator's, against a live server holding
the access sweep's world (one row of everything), bounded by MAX_TIME_S each.

Nothing it finds is waived here: a case the API answers on purpose in a way
the checks call wrong is named in docs/api.md ("What the fuzzer checks") and
excluded there and here by name only.

It is in the browser tier (the live_server fixture), so `make test` runs it
and `make test-fast` does not."""
from __future__ import annotations

import json
import subprocess
import sys

from api.tokens import token_create
from tests import test_access
from tests.workers import broker_use

# Each role's run stops generating new cases after this (schemathesis --max-time);
# two roles and the start-up make the test a few minutes.
MAX_TIME_S = 75
# What every answer is checked for (schemathesis's names). Left out:
# positive_data_acceptance (a valid request may still be a 404 for a row that
# does not exist, or a 409 for one in the wrong state: docs/api.md) and
# the checks that need a second user's tokens (ignored_auth is the access sweep's,
# tests/test_api_access.py).
CHECKS = ("not_a_server_error", "status_code_conformance", "content_type_conformance",
          "response_headers_conformance", "response_schema_conformance",
          "negative_data_rejection", "unsupported_method", "allow_header_conformance")
# The exports stream every row: their bodies are not JSON (schemathesis checks them as such).
EXCLUDE_OPERATIONS = ("grades_export", "comparisons_export", "snapshot_export", "render_png")
# Invalid data must be refused with one of schemathesis's own refusals, and 413:
# a body over DATA_UPLOAD_MAX_MEMORY_SIZE (a generated megabyte string) is refused
# before it is read, with the 413 every body-taking operation declares.
REFUSALS = ("400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428",
            "429", "5xx")
world = test_access.world


def fuzz(base: str, token: str, folder) -> subprocess.CompletedProcess:
    """Schemathesis in `folder`, where it keeps its cache (not the checkout)."""
    config = folder / "schemathesis.toml"
    config.write_text("[checks.negative_data_rejection]\n"
                      f"expected-statuses = {json.dumps(list(REFUSALS))}\n")
    command = [sys.executable, "-m", "schemathesis.cli", "--no-color",
               "--config-file", str(config), "run",
               f"{base}/api/v1/openapi.json",
               "--header", f"Authorization: Bearer {token}",
               "--checks", ",".join(CHECKS), "--max-time", str(MAX_TIME_S),
               "--workers", "1", "--request-timeout", "60", "--max-failures", "20",
               "--suppress-health-check", "all", "--generation-database", "none",
               *[arg for op in EXCLUDE_OPERATIONS for arg in ("--exclude-operation-id", op)]]
    return subprocess.run(command, capture_output=True, text=True, timeout=MAX_TIME_S * 4,
                          cwd=folder)


def test_no_server_error_and_no_answer_off_the_schema_for_staff_or_curators(
        live_server, world, tmp_path):
    broker_use()  # writes that queue work send it to the test's Redis
    failures = []
    for role, user in (("staff", world.staff), ("curator", world.curator)):
        raw = token_create(user=user, name=f"fuzz {role}")[1]
        run = fuzz(live_server.url, raw, tmp_path)
        print(f"--- as {role}:\n{run.stdout[-4000:]}")  # shown with -s
        if run.returncode != 0:
            failures.append(f"--- as {role} (exit {run.returncode}):\n{run.stdout[-6000:]}"
                            f"\n{run.stderr[-2000:]}")
    assert not failures, "\n".join(failures)
