"""A small JavaScript code builder: readable lines, two-space indents, and
literals formatted the way a person would type them (short numbers, double
quoted strings). The painter never concatenates JavaScript by hand elsewhere."""
from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager

INDENT = "  "
COMMENT_WIDTH = 96


class Raw(str):
    """A JavaScript expression written verbatim (a constant's name, `PI / 4`)."""


def js(value: object) -> str:
    """`value` as a JavaScript literal."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return number(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(js(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k}: {js(v)}" for k, v in value.items()) + " }"
    if value is None:
        return "null"
    raise TypeError(f"no JavaScript literal for {type(value).__name__}: {value!r}")


def number(value: float, places: int = 2) -> str:
    """A float with at most `places` decimals and no trailing zeros."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def call(name: str, *args: object) -> str:
    """`name(arg, ...)` with each argument as a literal (no semicolon)."""
    return f"{name}({', '.join(js(a) for a in args)})"


class JsWriter:
    """Accumulates lines of code at the current indent."""

    def __init__(self) -> None:
        self._lines: list[str] = []
        self._depth = 0

    def line(self, text: str = "") -> None:
        self._lines.append(f"{INDENT * self._depth}{text}" if text else "")

    def blank(self) -> None:
        if self._lines and self._lines[-1] != "":
            self._lines.append("")

    def comment(self, text: str) -> None:
        width = max(40, COMMENT_WIDTH - len(INDENT) * self._depth)
        for part in textwrap.wrap(text, width - 3):
            self.line(f"// {part}")

    def statement(self, name: str, *args: object) -> None:
        self.line(call(name, *args) + ";")

    @contextmanager
    def block(self, header: str) -> Iterator[None]:
        self.line(f"{header} {{")
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            self.line("}")

    def text(self) -> str:
        lines = list(self._lines)
        while lines and lines[-1] == "":
            lines.pop()
        return "\n".join(lines) + "\n"
