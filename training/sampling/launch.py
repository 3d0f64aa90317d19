"""What a job that samples a policy checks and records at launch: a run, a
prompt optimisation, a calibration. Nothing here loads torch."""
from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from ..policy.selectors import BUILDING, policy_build_latest


def policy_missing(path) -> str:
    """Why there is no policy at `path` (still building, or never built), and the way out."""
    build = policy_build_latest(path)
    if build is not None and build.state == BUILDING:
        return (f"the policy at {path} is still being built ({build.done:.0%} of its training "
                "done; the training runs page shows its progress)")
    return (f"no policy at {path} (run `manage.py bootstrap_policy` for the built-in one, or "
            "give a local Hugging Face checkpoint folder)")


def judge_launched(row) -> dict:
    """A judge row as a launched config records it: by value, so the job's
    page names what it used after the row is edited or deleted."""
    return {"id": row.pk, "name": row.name, "backend": row.backend}


def package_versions(packages) -> dict[str, str | None]:
    """Each installed package's version (None where it is missing)."""
    found = {}
    for package in packages:
        try:
            found[package] = version(package)
        except PackageNotFoundError:
            found[package] = None
    return found
