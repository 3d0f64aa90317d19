"""HPSv3 (a human-preference score for generated images) as a small local
HTTP service, so that paintrl's judge can use it without sharing its
environment: the `hpsv3` package pins transformers==4.45.2 (hpsv3 1.0.0 on
PyPI) and pulls in deepspeed, diffusers and more, which paintrl does not
want. The server itself is stdlib only; Pillow decodes the pictures.

Start it in its own virtual environment (a GPU is strongly advised: HPSv3 is
a Qwen2-VL-7B model; its configuration also names the base model
Qwen/Qwen2-VL-7B-Instruct, which must be downloadable or in the Hugging Face
cache on first start):

    python -m venv .hpsv3 && .hpsv3/bin/pip install hpsv3
    .hpsv3/bin/python scripts/hpsv3_service.py --checkpoint /path/to/HPSv3.safetensors \\
        --device cuda --port 8765

(HPSv3.safetensors is the weights file of the Hugging Face model MizzenAI/HPSv3.)
Then point paintrl at it: PAINTRL_HPSV3_URL=http://127.0.0.1:8765, or set
the base URL of a Judge row whose backend is "hpsv3".

Any other preference model serves the same way with `--scorer module:function`,
a function(list[PIL.Image], list[str]) -> list[float]; the module is imported
from the current directory or PYTHONPATH. The tests use this.

API:
    GET  /health -> {"ok": true, "model": "..."}
    POST /score  {"images": [base64 PNG/JPEG, ...], "prompts": [str, ...]}
                 -> {"scores": [float or null, ...]}   (higher is better)
    A bad request gets 400 with {"error": "..."}; a scorer failure 500.
"""
from __future__ import annotations

import argparse
import base64
import binascii
import importlib
import io
import json
import logging
import math
import os
import sys
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from PIL import Image

log = logging.getLogger("hpsv3_service")

# paintrl's judge sends 16 pictures a batch; a few times that is allowed, more
# would risk running the GPU out of memory in one forward pass.
MAX_IMAGES = 64
# 64 pictures of about 1 MB of PNG each, base64-encoded, with room to spare.
MAX_BODY_BYTES = 96 * 1024 * 1024
# Renders are at most 1200 px a side (PAINTRL_RENDER_MAX_CANVAS_SIDE); this
# refuses decompression bombs well before Pillow's own limit.
MAX_PIXELS = 4096 * 4096

Scorer = Callable[[list[Image.Image], list[str]], list[float]]


class BadRequest(ValueError):
    """The request is wrong; the message says how (sent back with a 400)."""


def hpsv3_scorer(checkpoint: str, device: str) -> Scorer:
    """HPSv3's own inferencer. `reward` returns one (mu, sigma) row per
    image; mu is the preference score (sigma is the model's uncertainty)."""
    try:
        import torch
        from hpsv3 import HPSv3RewardInferencer
    except ImportError as error:
        raise SystemExit(f"{error}: run this script in HPSv3's own environment "
                         "(python -m venv .hpsv3 && .hpsv3/bin/pip install hpsv3)") from None

    inferencer = HPSv3RewardInferencer(checkpoint_path=checkpoint, device=device)

    def score(images: list[Image.Image], prompts: list[str]) -> list[float]:
        # Keywords on purpose: hpsv3 1.0.0 on PyPI is reward(image_paths, prompts),
        # the GitHub README calls reward(prompts, image_paths=...). Its image
        # loader accepts PIL images as well as paths.
        with torch.inference_mode():
            rewards = inferencer.reward(image_paths=images, prompts=prompts)
        return [float(row[0]) for row in rewards]

    return score


def scorer_import(spec: str) -> Scorer:
    """`module:function`, imported like `python -m` would (current directory first)."""
    module_name, _, function_name = spec.partition(":")
    if not module_name or not function_name:
        raise SystemExit(f"--scorer must be module:function, got {spec!r}")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    return getattr(importlib.import_module(module_name), function_name)


def request_decode(body: bytes) -> tuple[list[Image.Image], list[str]]:
    """The pictures and prompts of a /score request, or BadRequest."""
    try:
        data = json.loads(body)
    except ValueError as error:
        raise BadRequest(f"the body is not JSON: {error}") from None
    if not isinstance(data, dict):
        raise BadRequest('expected {"images": [...], "prompts": [...]}')
    images, prompts = data.get("images"), data.get("prompts")
    if not isinstance(images, list) or not all(isinstance(i, str) for i in images):
        raise BadRequest("images must be a list of base64 strings")
    if not isinstance(prompts, list) or not all(isinstance(p, str) for p in prompts):
        raise BadRequest("prompts must be a list of strings")
    if len(images) != len(prompts):
        raise BadRequest(f"{len(images)} images but {len(prompts)} prompts")
    if not 1 <= len(images) <= MAX_IMAGES:
        raise BadRequest(f"send 1 to {MAX_IMAGES} images, not {len(images)}")
    return [image_decode(text, index) for index, text in enumerate(images)], prompts


def image_decode(text: str, index: int) -> Image.Image:
    if text.startswith("data:"):  # a data URL is fine too
        text = text.partition("base64,")[2]
    try:
        image = Image.open(io.BytesIO(base64.b64decode(text, validate=True)))
        if image.width * image.height > MAX_PIXELS:
            raise BadRequest(f"image {index} is {image.width}x{image.height}: too large")
        return image.convert("RGB")
    except (binascii.Error, OSError, Image.DecompressionBombError) as error:
        raise BadRequest(f"image {index} is not a base64-encoded PNG or JPEG ({error})") from None


def handler_for(scorer: Scorer, model: str):
    # One forward pass at a time: the model holds one device's memory, and
    # parallel batches would only compete for it.
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path == "/health":
                return self._send(200, {"ok": True, "model": model})
            self._send(404, {"error": f"no such path {self.path}"})

        def do_POST(self):
            if self.path != "/score":
                return self._send(404, {"error": f"no such path {self.path}"})
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self._send(411, {"error": "Content-Length is required"})
            if length > MAX_BODY_BYTES:
                return self._send(413, {"error": f"the body exceeds {MAX_BODY_BYTES} bytes"})
            try:
                images, prompts = request_decode(self.rfile.read(length))
            except BadRequest as error:
                return self._send(400, {"error": str(error)})
            try:
                with lock:
                    scores = [float(s) for s in scorer(images, prompts)]
            except Exception as error:  # the model's failure, not the client's
                log.exception("scoring failed")
                return self._send(500, {"error": f"scoring failed: {error}"})
            if len(scores) != len(images):
                return self._send(500, {"error": f"the scorer gave {len(scores)} scores "
                                                 f"for {len(images)} images"})
            # JSON has no NaN: an unusable score is null ("no opinion").
            self._send(200, {"scores": [s if math.isfinite(s) else None for s in scores]})

        def _send(self, status: int, payload: dict) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            log.info("%s %s", self.address_string(), format % args)

    return Handler


def serve(scorer: Scorer, model: str, host: str, port: int) -> ThreadingHTTPServer:
    """A server bound to host:port (port 0: a free one), not yet serving."""
    return ThreadingHTTPServer((host, port), handler_for(scorer, model))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--checkpoint", help="HPSv3 weights (HPSv3.safetensors)")
    source.add_argument("--scorer", help="module:function instead of HPSv3")
    parser.add_argument("--device", default="cuda", help="for --checkpoint: cuda, cuda:1, cpu")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")

    if args.checkpoint:
        scorer, model = hpsv3_scorer(args.checkpoint, args.device), "HPSv3"
    else:
        scorer, model = scorer_import(args.scorer), args.scorer
    server = serve(scorer, model, args.host, args.port)
    host, port = server.server_address[:2]
    # The first line on stdout says where to connect (the tests read it).
    print(f"hpsv3 service ({model}) listening on http://{host}:{port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
