"""python manage.py render_sketch PATH [--seed N] [--out FILE.png] [--json] [--brush auto|2|1]

Renders one sketch (a .js file, a chat reply holding one, or `-` for stdin)
in the sandbox and reports the gate's verdict. With --json, prints exactly one
JSON object on stdout; it exits 0 whenever it produced a report."""
import dataclasses
import json
import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from sketches.code_text import MAX_SKETCH_BYTES
from sketches.conf import renderer_config
from sketches.renderer import RendererUnavailable, RenderPool
from sketches.renderer.libraries import LibrariesMissing
from sketches.rendering import AUTO_BRUSH, BRUSHES, render_text


class Command(BaseCommand):
    help = "Render one p5.brush sketch in the sandbox and print its verdict."

    def add_arguments(self, parser):
        parser.add_argument("path", help="sketch file, or - to read standard input")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--out", help="write the PNG here")
        parser.add_argument("--json", action="store_true", dest="as_json",
                            help="print one JSON object")
        parser.add_argument("--brush", choices=BRUSHES, default=AUTO_BRUSH,
                            help="the p5.brush major version to render with; auto (the "
                                 "default): the one the sketch's calls are written for")

    def handle(self, *args, path, seed, out, as_json, brush=AUTO_BRUSH, **options):
        text = self._read(path)
        # One sketch needs one browser; starting a second would only cost time.
        config = dataclasses.replace(renderer_config(), browsers=1)
        try:
            with RenderPool(config) as pool:
                outcome = render_text(pool, text, seed, brush=brush)
        except (RendererUnavailable, LibrariesMissing) as exc:
            if as_json:
                self.stdout.write(_dumps({"status": "unavailable", "violations": [],
                                          "errors": [str(exc)]}))
                return
            raise CommandError(str(exc)) from exc
        if out and outcome.png:
            Path(out).write_bytes(outcome.png)
        if as_json:
            self.stdout.write(_dumps(outcome.report()))
            return
        self._print_human(outcome, out)

    def _read(self, path: str) -> str:
        try:
            raw = sys.stdin.buffer.read(MAX_SKETCH_BYTES + 1) if path == "-" else \
                Path(path).open("rb").read(MAX_SKETCH_BYTES + 1)
        except OSError as exc:
            raise CommandError(f"cannot read {path}: {exc.strerror}") from exc
        if len(raw) > MAX_SKETCH_BYTES:
            raise CommandError(f"{path} is larger than {MAX_SKETCH_BYTES} bytes")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CommandError(f"{path} is not UTF-8 text (byte {exc.start})") from exc

    def _print_human(self, outcome, out):
        style = self.style.SUCCESS if outcome.status == "ok" else self.style.WARNING
        self.stdout.write(style(f"{outcome.status}"))
        for name in outcome.violations:
            self.stdout.write(f"  {name}: {outcome.details.get(name, '')}")
        for error in outcome.errors[:5]:
            self.stdout.write(f"  error: {error}")
        fraction = "-" if outcome.paint_fraction is None else f"{outcome.paint_fraction:.3f}"
        self.stdout.write(
            f"paint {fraction}, brush calls {outcome.brush_calls}, "
            f"{outcome.width}x{outcome.height} at pixel density {outcome.pixel_density:g}, "
            f"{outcome.elapsed_ms} ms, "
            + " ".join(f"{name} {version}" for name, version in sorted(outcome.libraries.items()))
        )
        if out and outcome.png:
            self.stdout.write(f"wrote {out}")


def _dumps(data: dict) -> str:
    return json.dumps(data, sort_keys=True)
