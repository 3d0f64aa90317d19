"""Where the renderer finds p5 and p5.brush: the versions npm installed from
package-lock.json, the same files the in-app editor serves.

Two pairs: p5.brush 2.x with p5 2.x (the default), and p5.brush 1.x with the
p5 1.x it needs (npm aliases `p5.brush-1` and `p5-1` in package.json), since
p5.brush 2.x draws nothing on p5 1.x and 1.x's calls (bleed, setHatch, push,
...) are not in 2.x. A sketch is rendered with one pair (BRUSH_VERSIONS), and
with what that pair's sketches expect beside it (COMPANIONS)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..brush_api import BRUSH_1, BRUSH_2, DEFAULT_BRUSH

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
# The p5.brush major version a sketch is rendered with -> the npm packages of
# its p5 and its p5.brush.
PACKAGES = {
    BRUSH_2: ("p5", "p5.brush"),
    BRUSH_1: ("p5-1", "p5.brush-1"),
}
BRUSH_VERSIONS = tuple(PACKAGES)
# What a version's page loads beside its pair, between p5 and p5.brush:
# sketches written for p5.brush 1.0 mix colours with spectral.js through the
# `spectral` global, since 1.0's pages had to load it for the library (1.1
# bundles its own copy and loads none). It only computes colours; nothing it
# offers draws.
COMPANIONS = {
    BRUSH_1: (("spectral.js", "spectral.min.js"),),
}


def _missing(node_modules: Path, package: str, exc: FileNotFoundError) -> LibrariesMissing:
    return LibrariesMissing(
        f"{package} is not installed under {node_modules} ({exc.filename} missing): "
        "run `npm ci` in the project root (make demo and make test do this)."
    )


def _manifest(node_modules: Path, package: str) -> dict:
    try:
        return json.loads((node_modules / package / "package.json").read_text())
    except FileNotFoundError as exc:
        raise _missing(node_modules, package, exc) from exc


def _version(node_modules: Path, package: str) -> str:
    return _manifest(node_modules, package)["version"]


def _load(node_modules: Path, package: str, relative: str) -> Library:
    # Named as the library calls itself ("p5", not the alias "p5-1").
    manifest = _manifest(node_modules, package)
    try:
        source = (node_modules / package / relative).read_bytes()
    except FileNotFoundError as exc:
        raise _missing(node_modules, package, exc) from exc
    return Library(manifest["name"], manifest["version"], source)


def _packages(brush: str) -> tuple[str, str]:
    try:
        return PACKAGES[brush]
    except KeyError:
        raise ValueError(f"unknown p5.brush version {brush!r}: "
                         f"one of {', '.join(PACKAGES)}") from None


def installed_versions(node_modules: Path, brush: str = DEFAULT_BRUSH) -> dict[str, str]:
    """{library: version} of the pair a pool would load from `node_modules`
    for `brush`, as its `library_versions` reports them, read from their
    package.json alone: no browser, no page server."""
    packages = _packages(brush) + tuple(package for package, _ in COMPANIONS.get(brush, ()))
    return {_manifest(node_modules, package)["name"]: _version(node_modules, package)
            for package in packages}


def load_p5(node_modules: Path, brush: str = DEFAULT_BRUSH) -> Library:
    return _load(node_modules, _packages(brush)[0], P5[1])


def load_brush(node_modules: Path, brush: str = DEFAULT_BRUSH) -> Library:
    return _load(node_modules, _packages(brush)[1], BRUSH[1])


def load_companions(node_modules: Path, brush: str = DEFAULT_BRUSH) -> tuple[Library, ...]:
    """The libraries `brush`'s page loads beside its pair (COMPANIONS)."""
    _packages(brush)  # an unknown version is refused here too
    return tuple(_load(node_modules, package, relative)
                 for package, relative in COMPANIONS.get(brush, ()))


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
