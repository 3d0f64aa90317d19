"""An OpenRLHF remote reward model backed by the reward service: a small
HTTP server beside the trainer, given to OpenRLHF as `--remote_rm_url
http://127.0.0.1:5000/get_reward`.

OpenRLHF's client (read from openrlhf/utils/remote_rm_utils.py) posts JSON
{"query": [prompt + response, templated], "prompts": [the templated
prompt], "labels": [the dataset's --label_key column]} with no
Authorization header, and reads "rewards" (newer versions also "scores" and
"extra_logs") from the answer, each one number per query, retrying a failed
request a few times. So this server holds the token, and answers
{"rewards", "scores", "extra_logs": {"paintrl_unavailable": [0/1 ...]}}.

The completion is the query with its prompt cut off. The prompt the service
is told (what the sketch was asked to paint: it draws references by it) is
the label when the dataset gives one (`--label_key` naming the plain
prompt), else the templated prompt. The samples of one prompt are a group.
A missing total becomes its group's mean in the batch (client.filled: no
advantage under a group baseline; flagged in extra_logs).

    PAINTRL_URL=https://paintrl.example PAINTRL_EXTERNAL_RUN=grpo-7b \\
    PAINTRL_TOKEN=... python -m training.external.adapters.openrlhf_rm --port 5000
"""
from __future__ import annotations

import argparse
import json
import logging
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from training.external.adapters.client import RewardClient, RewardServiceError, batch_key, filled

logger = logging.getLogger(__name__)


def request_items(body: dict) -> list[dict]:
    """The service's items for OpenRLHF's request (module docstring)."""
    queries = body.get("query")
    if not isinstance(queries, list):
        raise ValueError("'query' must be a list of strings")
    prompts = body.get("prompts") or [""] * len(queries)
    labels = body.get("labels") or [None] * len(queries)
    if not len(prompts) == len(labels) == len(queries):
        raise ValueError("'query', 'prompts' and 'labels' must be as long as each other")
    items = []
    for query, prompt, label in zip(queries, prompts, labels, strict=True):
        completion = query[len(prompt):] if prompt and query.startswith(prompt) else query
        subject = label if isinstance(label, str) and label else prompt
        items.append({"prompt": subject, "completion": completion, "group": prompt or subject})
    return items


def rewards_answer(client: RewardClient, body: dict) -> dict:
    items = request_items(body)
    answers = client.score(items, client_key=batch_key("openrlhf", None, items))
    rewards, missing = filled([a["total"] for a in answers], [i["group"] for i in items])
    return {"rewards": rewards, "scores": rewards,
            "extra_logs": {"paintrl_unavailable": [float(m) for m in missing]}}


def server(client: RewardClient, host: str = "127.0.0.1", port: int = 5000) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's name)
            try:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                status, answer = 200, rewards_answer(client, body)
            except (ValueError, RewardServiceError) as error:
                status, answer = 400, {"error": str(error)}
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):  # noqa: A002 (http.server's name)
            logger.info(format, *args)

    return ThreadingHTTPServer((host, port), Handler)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5000)
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO)
    server(RewardClient.from_env(), args.host, args.port).serve_forever()


if __name__ == "__main__":
    main()
