"""The paintrl HTTP API from a script: create 20 sketches, wait for their
renders, grade them as a curator, freeze a pool snapshot, launch a 2-step
training run and poll it to the end. Only the standard library.

    PAINTRL_API_TOKEN=prl_...  PAINTRL_CURATOR_TOKEN=prl_... \\
        python docs/api_example.py --url http://127.0.0.1:8000

PAINTRL_API_TOKEN is a staff member's token (freezing and runs are staff's),
PAINTRL_CURATOR_TOKEN a curator's (grades are a curator's own); make them on
the /api/tokens/ page or with `manage.py api_token create USER NAME`.
docs/api.md shows this file; tests/test_api_example.py runs it."""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

COLOURS = ["#2f2a26", "#8c2f39", "#3d5a3a", "#2b4c7e", "#7a5c2e"]


class ApiError(Exception):
    """A refusal: the status and the API's own words for each problem."""

    def __init__(self, status: int, body: dict):
        self.status, self.body = status, body
        super().__init__(f"{status}: {body.get('detail')} {body.get('problems')}")


class Client:
    def __init__(self, url: str, token: str):
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base + path, data=data, method=method,
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                text = response.read()
        except urllib.error.HTTPError as error:
            raise ApiError(error.code, json.loads(error.read() or b"{}")) from None
        return json.loads(text) if text else None

    def get(self, path: str):
        return self.call("GET", path)

    def post(self, path: str, body: dict | None = None):
        return self.call("POST", path, body or {})

    def every(self, path: str):
        """Every item of a list, page by page."""
        offset, sep = 0, "&" if "?" in path else "?"
        while True:
            page = self.get(f"{path}{sep}limit=100&offset={offset}")
            yield from page["items"]
            offset += len(page["items"])
            if not page["items"] or offset >= page["count"]:
                return


def sketch_code(index: int) -> str:
    """A light pencil sketch, different for every index."""
    colour = COLOURS[index % len(COLOURS)]
    return (f"function setup() {{\n"
            f"  createCanvas(200, 160, WEBGL);\n"
            f"  background('#f6f1e8');\n"
            f"  brush.set('HB', '{colour}', 1.2);\n"
            f"  for (let i = 0; i < {4 + index % 5}; i++) {{\n"
            f"    brush.line(random(-90, 90), -70, random(-90, 90), 70);\n"
            f"  }}\n"
            f"}}\n")


def wait_until(what: str, done, timeout_s: float, every_s: float = 1.0):
    deadline = time.monotonic() + timeout_s
    while True:
        value = done()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: still waiting after {timeout_s:.0f} s")
        time.sleep(every_s)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8000")
    parser.add_argument("--sketches", type=int, default=20)
    parser.add_argument("--steps", type=int, default=2)
    parser.add_argument("--base-model", default="",
                        help="a policy folder on the train worker (default: the built-in one)")
    parser.add_argument("--name", default=f"api example {time.strftime('%Y%m%d-%H%M%S')}")
    parser.add_argument("--timeout", type=float, default=900.0)
    args = parser.parse_args(argv)
    staff = Client(args.url, os.environ["PAINTRL_API_TOKEN"])
    curator = Client(args.url, os.environ["PAINTRL_CURATOR_TOKEN"])

    # 1. Sketches: each is saved and its render queued on the render workers.
    renders = [staff.post("/sketches", {"code": sketch_code(i), "seed": i,
                                        "prompt": f"pencil lines, study {i}"})
               for i in range(args.sketches)]
    print(f"created {len(renders)} sketches; rendering")

    # 2. Wait for every render to leave "pending".
    def rendered():
        states = [staff.get(f"/renders/{r['id']}") for r in renders]
        return states if all(s["status"] != "pending" for s in states) else None

    renders = wait_until("renders", rendered, args.timeout)
    ok = [r for r in renders if r["status"] == "ok"]
    print(f"rendered: {len(ok)} ok of {len(renders)}")

    # 3. Grade them as the curator: love the first half, okay the rest.
    for index, render in enumerate(ok):
        curator.post("/grades", {"render": render["id"],
                                 "value": "love" if index < len(ok) / 2 else "okay"})
    graded = list(curator.every("/grades"))
    print(f"graded {len(graded)}")

    # 4. Freeze the pool the grades made.
    snapshot = staff.post("/pool/snapshots", {"name": args.name})
    print(f"froze snapshot {snapshot['id']} with {snapshot['counts']['total']} members")

    # 5. A run from the presets with a few settings changed, launched.
    settings = {"name": args.name, "snapshot": snapshot["id"], "max_steps": args.steps,
                "num_generations": 2, "prompts_per_step": 1, "max_completion_length": 48,
                "save_steps": 100,
                # Without an active reward model the local judge cannot answer the
                # preference or pairwise signals: leave them out openly.
                "drop_unanswerable": True}
    if args.base_model:
        settings["base_model"] = args.base_model
    run = staff.post("/runs", {"settings": settings})
    try:
        run = staff.post(f"/runs/{run['id']}/launch")
    except ApiError as refusal:  # the same words the admin would show
        sys.exit(f"run {run['id']} not launched: {refusal.body['problems']}")
    print(f"launched run {run['id']}")

    # 6. Poll it to the end, then read its steps.
    def finished():
        state = staff.get(f"/runs/{run['id']}")
        return state if state["status"] in ("done", "failed", "cancelled") else None

    run = wait_until("the run", finished, args.timeout, every_s=3.0)
    steps = list(staff.every(f"/runs/{run['id']}/steps"))
    for step in steps:
        print(f"step {step['step']}: reward {step['reward_mean']}")
    summary = {"renders": [r["id"] for r in renders], "ok": len(ok), "graded": len(graded),
               "snapshot": snapshot["id"], "run": run["id"], "status": run["status"],
               "error": run["error"], "steps": [s["step"] for s in steps]}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
