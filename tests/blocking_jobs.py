"""For a test worker started with `include="tests.blocking_jobs"`: the import
kind's body replaced, in that worker only, by one that records each claim
(its token, a line in claims) and holds its job until a file named release
appears, beating its lease meanwhile. Its folder comes in the task's
options: {"dir": ...}."""
from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from jobs.registry import job_kind, job_kind_register, job_kind_unregister
from jobs.runner import Ending, Running

HOLD_S = 120.0


def blocking_body(running: Running) -> Ending:
    folder = Path(running.options["dir"])
    with open(folder / "claims", "a") as claims:
        claims.write(running.lease.token + "\n")
    deadline = time.monotonic() + HOLD_S
    while not (folder / "release").exists():
        if time.monotonic() > deadline:
            raise TimeoutError("never released")
        running.lease.beat(force=True)  # alive: its lease stays fresh
        time.sleep(0.2)
    return Ending(fields={"done": 1, "total": 1})


_import = job_kind("import")
job_kind_unregister("import")
job_kind_register(dataclasses.replace(_import, body=f"{__name__}.blocking_body"))
