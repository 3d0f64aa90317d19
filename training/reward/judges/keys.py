"""Which environment variables may hold a judge's key: a Judge row names
one (never the key itself), the model's validation and the OpenAI-compatible
backend both check it here."""
from __future__ import annotations

import re

# The variables a judge may take its key from. Whoever edits a judge also
# sets where it sends the key, so any name would let them send any secret of
# the worker (PAINTRL_SECRET_KEY, DATABASE_URL) to a URL of their choosing.
API_KEY_ENV = re.compile(r"[A-Z][A-Z0-9_]*_(API|JUDGE)_KEY|PAINTRL_JUDGE_[A-Z0-9_]+")


def api_key_env_problem(name: str) -> str | None:
    """Why `name` may not hold a judge's key, or None (blank: no key)."""
    if not name or API_KEY_ENV.fullmatch(name):
        return None
    return (f"api_key_env {name!r} is not a judge key variable: name one ending in _API_KEY or "
            "_JUDGE_KEY, or starting PAINTRL_JUDGE_ (no other secret of the worker may be sent "
            "to a judge's endpoint)")
