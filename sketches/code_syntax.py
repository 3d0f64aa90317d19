"""Does this code parse as JavaScript, and if not, where is the first syntax
error? Asked by the editor before a save, so the person sees the line and
column rather than a render that failed with "SyntaxError" alone.

The parser is acorn (package.json), run by Node: the same language level as
the renderer's Chromium, and Node is already needed to install the front-end
libraries. Without Node the check is unavailable, never a refusal: the
render's gate still names the syntax error."""
from __future__ import annotations

import json
import logging
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .renderer.libraries import default_library_dir

logger = logging.getLogger(__name__)

SCRIPT = Path(__file__).with_name("code_syntax.js")
# Node starts and parses a 50 kB sketch in about 0.1 s (2 cores, 2026-12-01);
# a megabyte sketch in under a second. Past this the check gives up.
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class SyntaxProblem:
    message: str
    line: int  # 1-based
    column: int  # 1-based, in UTF-16 code units as the browser counts them

    def __str__(self) -> str:
        return f"Syntax error on line {self.line}, column {self.column}: {self.message}."


def syntax_problem(code: str) -> SyntaxProblem | None:
    """The first syntax error in `code`, or None when it parses (or when the
    check is unavailable, which is logged)."""
    node = shutil.which("node")
    acorn = default_library_dir() / "acorn"
    if node is None or not acorn.is_dir():
        logger.warning("syntax check unavailable: node or %s is missing", acorn)
        return None
    try:
        done = subprocess.run([node, str(SCRIPT), str(acorn)], input=code.encode("utf-8"),
                              capture_output=True, timeout=TIMEOUT_S, check=True)
        result = json.loads(done.stdout)
    except (subprocess.SubprocessError, OSError, ValueError) as exc:
        logger.warning("syntax check unavailable: %s", exc)
        return None
    if result.get("ok"):
        return None
    return SyntaxProblem(message=result["message"], line=result["line"],
                         column=result["column"])
