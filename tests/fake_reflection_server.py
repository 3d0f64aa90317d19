"""A stand-in for a hosted reflection model: an OpenAI-compatible chat
completions server on loopback that answers GEPA's reflection prompt the way
its template asks (the new instructions in a ``` block), built like
tests/fake_vision_server.py.

Its proposal is visible: the current instructions (read from GEPA's prompt)
and one more line naming the gate's violations and the unknown brush
methods it read in the feedback, numbered by call. So a test can see that the
feedback reached it and that its proposal became a candidate. Made with
`unchanged=True` it proposes the current instructions as they are: scored at
the same seeds they sample the same sketches, no better than their parent,
so GEPA (which keeps only a strict improvement) rejects every proposal.

    with FakeReflectionServer() as server:
        ...  # a Judge row with base_url=server.url
        server.reflections  # the reflection prompts it was sent
"""
from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from tests.fake_vision_server import json_send

# GEPA's default reflection template (gepa.strategies.instruction_proposal)
# puts the current instructions between these two texts.
CURRENT_BEFORE = "perform a task for me:\n```\n"
CURRENT_AFTER = "\n```\n\nThe following are examples"
VIOLATIONS = re.compile(r"The gate's violations: (.+?)\.\n")
UNKNOWN = re.compile(r"Brush methods called that p5\.brush does not have: (.+?)\. ")
ADDED = "Revision {n}: avoid {what}."


class FakeReflectionServer:
    def __init__(self, *, api_key: str | None = None, unchanged: bool = False):
        self.api_key = api_key  # when set, a request without it gets 401
        self.unchanged = unchanged
        self.requests: list[dict] = []
        self.reflections: list[str] = []  # the reflection prompts (not the launch check)
        self.proposals: list[str] = []  # the instructions it proposed, in order
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeReflectionServer:
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                         daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict) -> str:
        text = body["messages"][-1]["content"]
        if CURRENT_BEFORE not in text:
            return "ready"  # the launch check, or any other question
        current = text.split(CURRENT_BEFORE, 1)[1].split(CURRENT_AFTER, 1)[0]
        found = [*(m for match in VIOLATIONS.findall(text) for m in _names(match)),
                 *(m for match in UNKNOWN.findall(text) for m in _names(match))]
        with self._lock:
            self.reflections.append(text)
            added = ADDED.format(n=len(self.reflections),
                                 what=", ".join(dict.fromkeys(found)) or "nothing named")
            proposal = current if self.unchanged else f"{current}\n{added}"
            self.proposals.append(proposal)
        return f"Here are the new instructions:\n```\n{proposal}\n```"


def _names(listed: str) -> list[str]:
    """ "syntax_error (2 of 2), truncated (1 of 2)" -> ["syntax_error", "truncated"]."""
    return [item.split(" (")[0].strip() for item in listed.split("), ") if item.strip()]


def _handler_for(server: FakeReflectionServer):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with server._lock:
                server.requests.append(body)
            if self.path != "/v1/chat/completions":
                return self._send(404, {"error": {"message": "not found"}})
            if server.api_key and self.headers.get("Authorization") != \
                    f"Bearer {server.api_key}":
                return self._send(401, {"error": {"message": "invalid API key"}})
            self._send(200, {"id": "chatcmpl-1", "object": "chat.completion",
                             "model": body.get("model"),
                             "choices": [{"index": 0, "finish_reason": "stop",
                                          "message": {"role": "assistant",
                                                      "content": server.answer(body)}}]})

        def _send(self, status: int, payload: dict) -> None:
            json_send(self, status, payload)

        def log_message(self, format, *args):  # noqa: A002 - quiet test output
            pass

    return Handler
