"""Imports of the project's own modules inside functions stay few, and each
says why (scripts/inside_imports.py lists them)."""
from __future__ import annotations

import importlib.util

from tests.workers import ROOT

# Issue 33 cut them from 97 (100 with scripts/) to these.
MOST = 20


def _script():
    spec = importlib.util.spec_from_file_location("inside_imports",
                                                  ROOT / "scripts" / "inside_imports.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_at_most_twenty_each_with_its_reason():
    found = _script().inside_imports(ROOT)
    assert len(found) <= MOST, "\n".join(f"{p}:{n}" for p, n, _ in found)
    for path, line, _ in found:
        assert _says_why((ROOT / path).read_text().splitlines(), line - 1), (
            f"{path}:{line} does not say why it imports inside a function")


def _says_why(lines: list[str], index: int) -> bool:
    """A comment on the import, or on the block of imports it stands in, or
    just above that block."""
    while index >= 0 and lines[index].strip().startswith(("from ", "import ")):
        if "#" in lines[index]:
            return True
        index -= 1
    return index >= 0 and lines[index].strip().startswith("#")
