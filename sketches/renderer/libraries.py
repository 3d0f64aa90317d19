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


P5 = ("p5", "lib/p5.min.js")
BRUSH = ("p5.brush", "dist/p5.brush.js")


def _missing(node_modules: Path, package: str, exc: FileNotFoundError) -> LibrariesMissing:
    return LibrariesMissing(
        f"{package} is not installed under {node_modules} ({exc.filename} missing): "
        "run `npm ci` in the project root (make demo and make test do this)."
    )


def _version(node_modules: Path, package: str) -> str:
    try:
        return json.loads((node_modules / package / "package.json").read_text())["version"]
    except FileNotFoundError as exc:
        raise _missing(node_modules, package, exc) from exc


def _load(node_modules: Path, package: str, relative: str) -> Library:
    version = _version(node_modules, package)
    try:
        source = (node_modules / package / relative).read_bytes()
    except FileNotFoundError as exc:
        raise _missing(node_modules, package, exc) from exc
    return Library(package, version, source)


def installed_versions(node_modules: Path) -> dict[str, str]:
    """{package: version} of the libraries a pool would load from
    `node_modules`, as its `library_versions` reports them, read from their
    package.json alone: no browser, no page server."""
    return {package: _version(node_modules, package) for package, _ in (P5, BRUSH)}


def load_p5(node_modules: Path) -> Library:
    return _load(node_modules, *P5)


def load_brush(node_modules: Path) -> Library:
    return _load(node_modules, *BRUSH)


QUOTES = "\"'`"


def shader_sources(library: Library) -> tuple[str, ...]:
    """The GLSL sources written into a library's build: each string literal
    holding a `void main`. GLSL has no quote characters, so the literal is the
    quote-free stretch around it (no JavaScript parser needed); one with a
    template substitution is skipped. The harness credits paint to p5.brush
    only where a program linked from these sources drew it (harness.js, "The
    paint ledger"), so a literal missed here makes the ledger stricter, never
    looser."""
    text = library.source.decode("ascii", "replace")
    found: list[str] = []
    at = text.find("void main")
    while at >= 0:
        start = max(text.rfind(q, 0, at) for q in QUOTES)
        end = text.find(text[start], at) if start >= 0 else -1
        body = text[start + 1:end] if end > 0 else ""
        if body and "${" not in body and not any(q in body for q in QUOTES):
            source = body.encode("ascii").decode("unicode_escape")
            if source not in found:
                found.append(source)
        at = text.find("void main", max(at + 1, end))
    return tuple(found)
