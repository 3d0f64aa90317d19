"""Imports of the project's own modules inside functions, listed and counted.

An import moved into a function usually hides a circle (STYLE.md): the few
left each say why on the line or just above it (torch kept out of the web
process, Django's AppConfig.ready, a script's setup). tests/test_inside_imports.py
holds the count.

    .venv/bin/python scripts/inside_imports.py [ROOT]
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

OWN = {"files", "jobs", "paintrl_site", "pool", "rating", "sketches", "training"}
SKIPPED = {".venv", "node_modules", "tests", "benchmarks", "migrations"}


def inside_imports(root: Path) -> list[tuple[Path, int, str]]:
    """(file, line, module) of each import of a project module inside a function."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if SKIPPED & set(rel.parts):
            continue
        found += [(rel, line, name) for line, name in _walk(ast.parse(path.read_text()), False)]
    return found


def _walk(node: ast.AST, inside: bool):
    for child in ast.iter_child_nodes(node):
        if inside and isinstance(child, ast.ImportFrom | ast.Import):
            if isinstance(child, ast.ImportFrom) and child.level:
                yield child.lineno, "." * child.level + (child.module or "")
            else:
                names = ([child.module] if isinstance(child, ast.ImportFrom)
                         else [alias.name for alias in child.names])
                if any(name.split(".")[0] in OWN for name in names):
                    yield child.lineno, names[0]
        function = isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        yield from _walk(child, inside or function)


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1])
    found = inside_imports(root)
    for path, line, name in found:
        print(f"{path}:{line}: {name}")
    print(f"{len(found)} imports of the project's own modules inside functions "
          f"({sum(1 for p, _, _ in found if p.parts[0] != 'scripts')} outside scripts/)")


if __name__ == "__main__":
    main()
