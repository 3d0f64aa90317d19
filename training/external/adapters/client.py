"""The reward service's client, shared by the adapters: post a batch, wait
as the service says (409 while the same batch is scoring, 429 when the run
is busy: Retry-After), retry a lost connection under the same client key
(the service answers a finished batch from what it stored), and turn a
refusal into an error that says what the service said.

`filled` is for engines that cannot take a missing reward (OpenRLHF, verl):
TRL and paintrl's own runs leave a rollout with no total out of its group;
these engines need a number, so a missing total becomes the mean of its
group's totals in the batch, which gives it no advantage under a group
baseline (GRPO, RLOO, REINFORCE++-baseline, Dr. GRPO), and each is flagged
so the share shows in the engine's logs. Under a learned critic (PPO) no
number is neutral: use a group-baseline estimator with the reward service.
"""
from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from statistics import fmean

# Statuses after which the same batch is sent again, waiting Retry-After.
RETRIED = (409, 429, 503)
# Waiting without a Retry-After (a connection refused, a gateway's 502).
RETRY_S = 2.0
# A batch's renders take seconds, and at worst the fleet's wait for a worker
# (PAINTRL_FLEET_WAIT_S, 120 s) and a render's bound: a request waits this
# long for its answer before it is sent again under the same key.
REQUEST_TIMEOUT_S = 600.0
# How long one batch may take, retries and waits included, before the
# client gives up and the engine's own error handling takes over.
GIVE_UP_S = 1800.0


class RewardServiceError(RuntimeError):
    """The service refused the batch; `problems` says why, in its words."""

    def __init__(self, status: int, detail: str, problems: Sequence[str] = ()):
        super().__init__(f"paintrl answered {status}: {detail} ({'; '.join(problems)})")
        self.status, self.detail, self.problems = status, detail, list(problems)


def batch_key(prefix: str, step: int | None, items: Sequence[dict]) -> str:
    """The same key for the same batch (a retry, an engine's resend), a new
    one for any other: the service's client_key (8-64 of A-Z a-z 0-9 _ . : -)."""
    digest = hashlib.sha256(json.dumps([step, list(items)], sort_keys=True).encode()).hexdigest()
    return f"{prefix[:16]}-{'x' if step is None else step}-{digest[:32]}"


def filled(totals: Sequence[float | None], groups: Sequence[str]) -> tuple[list[float],
                                                                            list[bool]]:
    """Each total, a missing one replaced by its group's mean in this batch
    (0.0 where the whole group is missing: all equal, so no advantage
    either); and which were missing (module docstring)."""
    present: dict[str, list[float]] = {}
    for total, group in zip(totals, groups, strict=True):
        if total is not None:
            present.setdefault(group, []).append(total)
    rewards = [total if total is not None else fmean(present.get(group) or [0.0])
               for total, group in zip(totals, groups, strict=True)]
    return rewards, [total is None for total in totals]


class RewardClient:
    """Posts batches to one external run: `base_url` (https://paintrl.example),
    the run's name and a token of an account holding the permission
    training.score_externalrun."""

    def __init__(self, base_url: str, run: str, token: str, *,
                 request_timeout_s: float = REQUEST_TIMEOUT_S, give_up_s: float = GIVE_UP_S,
                 headers: dict[str, str] | None = None):
        if not (base_url and run and token):
            raise ValueError("the reward service needs its address, the external run's name "
                             "and a token (PAINTRL_URL, PAINTRL_EXTERNAL_RUN, PAINTRL_TOKEN)")
        self.url = f"{base_url.rstrip('/')}/api/v1/external-runs/{run}/rewards"
        self.token, self.request_timeout_s, self.give_up_s = token, request_timeout_s, give_up_s
        # Sent with every request besides the token (a gateway's own headers).
        self.headers = dict(headers or {})

    @classmethod
    def from_env(cls) -> RewardClient:
        return cls(os.environ.get("PAINTRL_URL", ""), os.environ.get("PAINTRL_EXTERNAL_RUN", ""),
                   os.environ.get("PAINTRL_TOKEN", ""))

    def score(self, items: Sequence[dict], *, client_key: str,
              step: int | None = None) -> list[dict]:
        """Each item's answer ({index, total, signals, gate, render_id, ...}), in order."""
        body = json.dumps({"client_key": client_key, "step": step,
                           "items": list(items)}).encode()
        deadline = time.monotonic() + self.give_up_s
        while True:
            wait = self._post(body)
            if isinstance(wait, list):
                return wait
            if time.monotonic() + wait > deadline:
                raise TimeoutError(f"paintrl did not answer batch {client_key} in "
                                   f"{self.give_up_s:.0f} s")
            time.sleep(wait)

    async def ascore(self, items: Sequence[dict], *, client_key: str,
                     step: int | None = None) -> list[dict]:
        """`score` without blocking the engine's event loop."""
        return await asyncio.to_thread(self.score, items, client_key=client_key, step=step)

    def _post(self, body: bytes) -> list[dict] | float:
        """The answers, or how long to wait before sending the batch again."""
        request = urllib.request.Request(self.url, data=body, method="POST", headers={
            **self.headers, "Content-Type": "application/json",
            "Authorization": f"Bearer {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=self.request_timeout_s) as response:
                return json.loads(response.read())["items"]
        except urllib.error.HTTPError as error:
            if error.code in RETRIED:
                return float(error.headers.get("Retry-After") or RETRY_S)
            try:
                refusal = json.loads(error.read())
            except ValueError:
                refusal = {"detail": error.reason, "problems": []}
            raise RewardServiceError(error.code, refusal.get("detail", ""),
                                     refusal.get("problems", [])) from error
        except (urllib.error.URLError, TimeoutError, ConnectionError):
            return RETRY_S  # the same key: a batch that was scored is answered, not redone
