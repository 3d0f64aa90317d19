"""Reading sketch code out of what a model (or a person) wrote: a bare
sketch, or a chat reply with the sketch in a fenced code block. Also the
lexical checks that need no browser: bracket balance and call names."""
from __future__ import annotations

import re

# The largest sketch we take, from a file, an editor or stdin. Model sketches
# run to ~13,500 tokens (about 50 kB), so a megabyte is room for any honest
# sketch and refuses pasted data blobs.
MAX_SKETCH_BYTES = 1_000_000

FENCE = re.compile(r"```[ \t]*([\w.+-]*)[^\n]*\n(.*?)(?:```|\Z)", re.S)
JS_LANGS = {"", "js", "javascript", "p5", "p5js", "jsx", "ts", "typescript"}
SETUP = re.compile(r"\bfunction\s+setup\s*\(|\bsetup\s*=\s*(?:async\s*)?(?:function\b|\(|\w+\s*=>)")


def extract_code(text: str) -> str | None:
    """The sketch in `text`, or None when there is none.

    Of several fenced blocks, the one that defines setup() wins, then the
    longest JavaScript one; unfenced text counts when it defines setup().
    An unclosed fence (a reply cut off mid-sketch) still yields its code, so
    the gate can name it truncated rather than missing."""
    blocks = [(lang.lower(), body) for lang, body in FENCE.findall(text)]
    js_blocks = [body for lang, body in blocks if lang in JS_LANGS and body.strip()]
    if js_blocks:
        with_setup = [b for b in js_blocks if SETUP.search(b)]
        return max(with_setup or js_blocks, key=len).strip("\n")
    if SETUP.search(text):
        return text.strip("\n")
    return None


def strip_comments_and_strings(code: str) -> tuple[str, bool]:
    """The code with comments removed and string/template contents blanked,
    and whether it ended inside a string or comment (a sign of truncation).

    Regex literals are not parsed; a bracket inside one can unbalance the
    count, which is why the gate only calls brackets unbalanced when the
    browser's parser also rejected the code."""
    out: list[str] = []
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        nxt = code[i + 1] if i + 1 < n else ""
        if c == "/" and nxt == "/":
            end = code.find("\n", i)
            i = n if end < 0 else end
        elif c == "/" and nxt == "*":
            end = code.find("*/", i + 2)
            if end < 0:
                return "".join(out), True
            i = end + 2
        elif c in "'\"`":
            j = i + 1
            while j < n and code[j] != c:
                if code[j] == "\\":
                    j += 1
                elif c != "`" and code[j] == "\n":
                    break
                j += 1
            if j >= n:
                return "".join(out), True
            out.append(c + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out), False


def brackets_balanced(code: str) -> bool:
    bare, unterminated = strip_comments_and_strings(code)
    if unterminated:
        return False
    pairs = {")": "(", "]": "[", "}": "{"}
    stack: list[str] = []
    for c in bare:
        if c in "([{":
            stack.append(c)
        elif c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False
    return not stack


BRUSH_CALL = re.compile(r"\bbrush\s*\.\s*([A-Za-z_$][\w$]*)")


def brush_member_names(code: str) -> set[str]:
    bare, _ = strip_comments_and_strings(code)
    return set(BRUSH_CALL.findall(bare))


# What only a sketch written for p5 1.x and p5.brush 1.0/1.1 does: define
# preload() (p5 2.x never calls it) or mix colours with the spectral global
# (p5.brush 1.0's pages loaded spectral.js for it; 1.1 and 2.x bundle their own).
ERA_1_SIGNS = re.compile(r"\bfunction\s+preload\s*\(|\.\s*preload\s*=|\bspectral\s*\.")


def written_for_p5_1(code: str) -> bool:
    bare, _ = strip_comments_and_strings(code)
    return ERA_1_SIGNS.search(bare) is not None
