"""A stand-in for a hosted vision judge: an OpenAI-compatible chat
completions server on loopback that really looks at the pictures it is sent.

Its taste is a visible property: the painting with more paint (a larger
share of non-white pixels) is the better one, and a rating is that share
on a 0-10 scale. So a test can tell a right answer from a lucky one. Each
test turns on the misbehaviour it is about (position bias, failures, cut-off
replies, slowness, a required key, words believed) and reads what the server
saw.

    with FakeVisionServer(bias=True) as server:
        judge = OpenAICompatibleJudge(base_url=server.url, model="fake")
"""
from __future__ import annotations

import base64
import io
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image, ImageDraw

from sketches.painted_words import read_words

# A pixel darker than this (in grey) counts as paint.
PAPER_WHITE = 245
# Two paintings whose paint shares differ by less than this are a tie.
TIE_MARGIN = 0.01
GRID = 6  # painted_png's canvas is a GRID x GRID board of cells


def painted_png(cells: int, *, size: int = 48, colour=(60, 90, 160)) -> bytes:
    """A white canvas with `cells` of its GRID x GRID cells painted: more
    cells, more paint."""
    image = Image.new("RGB", (size, size), "white")
    draw = ImageDraw.Draw(image)
    step = size // GRID
    for index in range(cells):
        x, y = (index % GRID) * step, (index // GRID) * step
        draw.rectangle([x, y, x + step - 1, y + step - 1], fill=colour)
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def paint_fraction(image: Image.Image) -> float:
    """The share of pixels that are not paper."""
    histogram = image.convert("L").histogram()
    return sum(histogram[:PAPER_WHITE]) / max(1, sum(histogram))


class FakeVisionServer:
    def __init__(self, *, bias: bool = False, tie: bool = False, truncate: bool = False,
                 nonsense: bool = False, fail_first: int = 0, fail_status: int = 500,
                 retry_after: float | None = None, delay_s: float = 0.0,
                 api_key: str | None = None, trusts_words: bool = False):
        self.bias = bias  # always answers "A", whatever the pictures
        self.tie = tie  # always answers "tie"
        self.truncate = truncate  # cuts each reply off in the middle of its reason
        self.nonsense = nonsense  # answers prose with no verdict or score
        self.fail_first = fail_first  # the first N requests get fail_status
        self.fail_status = fail_status
        self.retry_after = retry_after  # sent as Retry-After with each failure
        self.delay_s = delay_s  # how long each answer takes
        self.api_key = api_key  # when set, a request without it gets 401
        # Believes words painted in a picture, as vision models do: a picture
        # in which sketches.painted_words reads words scores 10 and wins.
        self.trusts_words = trusts_words
        self.requests = 0
        self.in_flight = self.max_in_flight = 0
        self.authorizations: list[str | None] = []
        self.bodies: list[dict] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> FakeVisionServer:
        # A short poll so that leaving the `with` block takes milliseconds.
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.02}, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, body: dict) -> str:
        """The assistant's reply to one chat completion request."""
        images = [_decode(part["image_url"]["url"])
                  for message in body["messages"] if isinstance(message["content"], list)
                  for part in message["content"] if part.get("type") == "image_url"]
        if self.nonsense:
            return "What a lovely pair of paintings; I could not possibly choose."
        if len(images) == 2:
            share_a, share_b = (self._taste(image) for image in images)
            if self.bias:
                verdict = "A"
            elif self.tie or abs(share_a - share_b) < TIE_MARGIN:
                verdict = "tie"
            else:
                verdict = "A" if share_a > share_b else "B"
            reply = json.dumps({"verdict": verdict,
                                "reason": f"paint covers {share_a:.0%} of A, {share_b:.0%} of B"})
        elif len(images) == 1:
            share = self._taste(images[0])
            reply = json.dumps({"score": round(10 * share, 2),
                                "reason": f"paint covers {share:.0%} of the canvas"})
        else:
            reply = "I see no painting."
        return reply[:len(reply) - 12] if self.truncate else reply

    def _taste(self, image: Image.Image) -> float:
        """How good a picture looks to this judge, 0 to 1: its paint share, or 1
        for one with words in it where the judge trusts words."""
        if self.trusts_words:
            out = io.BytesIO()
            image.save(out, "PNG")
            if read_words(out.getvalue()).words:
                return 1.0
        return paint_fraction(image)

    def _enter(self, authorization: str | None) -> int:
        with self._lock:
            self.requests += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            self.authorizations.append(authorization)
            return self.requests

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _decode(url: str) -> Image.Image:
    _, encoded = url.split("base64,", 1)
    return Image.open(io.BytesIO(base64.b64decode(encoded)))


def json_send(handler: BaseHTTPRequestHandler, status: int, payload: dict,
              headers: dict | None = None) -> None:
    """Answer a stand-in's request with `payload` as JSON (and `headers`)."""
    data = json.dumps(payload).encode()
    try:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the client gave up (a timeout test): nothing to answer


def _handler_for(server: FakeVisionServer):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            number = server._enter(self.headers.get("Authorization"))
            try:
                reply = self._reply(number)
            finally:
                # Out of flight before the answer is written: once the client has
                # it, it may send its next request before this thread runs on.
                server._leave()
            self._send(*reply)

        def _reply(self, number: int) -> tuple:
            """(status, payload[, headers]) for request `number`, after the delay."""
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
            with server._lock:
                server.bodies.append(body)
            if server.delay_s:
                time.sleep(server.delay_s)
            if self.path != "/v1/chat/completions":
                return 404, {"error": {"message": "not found"}}
            if server.api_key and self.headers.get("Authorization") != \
                    f"Bearer {server.api_key}":
                return 401, {"error": {"message": "invalid API key"}}
            if number <= server.fail_first:
                headers = {"Retry-After": str(server.retry_after)} \
                    if server.retry_after is not None else {}
                return server.fail_status, {"error": {"message": "failed"}}, headers
            return 200, {
                "id": f"chatcmpl-{number}", "object": "chat.completion",
                "model": body.get("model"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant",
                                         "content": server.answer(body)}}],
            }

        def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
            json_send(self, status, payload, headers)

        def log_message(self, format, *args):  # noqa: A002 - quiet test output
            pass

    return Handler
