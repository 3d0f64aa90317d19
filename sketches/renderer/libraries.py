"""Where the renderer finds p5 and p5.brush: the versions npm installed from
package-lock.json, the same files the in-app editor serves."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]


class LibrariesMissing(RuntimeError):
    pass


def default_library_dir() -> Path:
    return PROJECT_DIR / "node_modules"


@dataclass(frozen=True)
class Library:
    name: str
    version: str
    source: bytes


def _load(node_modules: Path, package: str, relative: str) -> Library:
    root = node_modules / package
    try:
        version = json.loads((root / "package.json").read_text())["version"]
        source = (root / relative).read_bytes()
    except FileNotFoundError as exc:
        raise LibrariesMissing(
            f"{package} is not installed under {node_modules} ({exc.filename} missing): "
            "run `npm ci` in the project root (make demo and make test do this)."
        ) from exc
    return Library(package, version, source)


def load_p5(node_modules: Path) -> Library:
    return _load(node_modules, "p5", "lib/p5.min.js")


def load_brush(node_modules: Path) -> Library:
    return _load(node_modules, "p5.brush", "dist/p5.brush.js")
