"""What a person or a script may send, decided once: each field's type and
range. The pages' forms read the bounds (a form field's min and max), the
API's schemas use the types below (api/routes), so a value the editor or the
grading page refuses is refused by the API in the same words, and nothing
that reaches a service can overflow a column or a query.

Here, at the bottom of the apps (rating, pool and training import sketches,
never the reverse), so every app's pages can read it."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field, Strict, StringConstraints

# The largest value of an integer column on PostgreSQL (a counter, a seed).
INT32_MAX = 2**31 - 1
# A render's seed is such a column (and the renderer seeds Math.random from
# it): a bigger one cannot be stored.
SEED_MAX = INT32_MAX
# A render left on screen longer than a day was not being looked at; a bigger
# number is a broken client, not a measurement.
SHOWN_MS_MAX = 24 * 3600 * 1000
# The furthest a list may be paged: no table here holds more rows than a
# 32-bit count, and the databases' OFFSET overflows (a server error) at 2^63.
OFFSET_MAX = INT32_MAX
# A row id: the databases' 64-bit keys. Beyond it no row exists, and a lookup
# of a bigger number would overflow the query.
ID_MAX = 2**63 - 1

# A client's name for one request (a grade's retry sends it again): a UUID
# fits, and nothing that needs escaping anywhere it is logged or stored.
CLIENT_KEY_PATTERN = r"^[A-Za-z0-9_.:-]{8,64}$"

NUL = "\x00"


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored, or None. PostgreSQL refuses a NUL in a
    text column and no database can encode a lone surrogate (JSON can carry
    "\\ud800"; a form post cannot, so Django's own NUL check covers the pages)."""
    if NUL in text:
        return "must not contain a NUL character (\\u0000)"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "must be valid Unicode text (it holds a lone surrogate, such as \\ud800)"
    return None


def _text(text: str) -> str:
    problem = text_problem(text)
    if problem:
        raise ValueError(problem)
    return text


def _json_text(value: Any) -> Any:
    """Every string in a JSON value (keys too) checked as text."""
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, dict):
        for key, item in value.items():
            _json_text(key)
            _json_text(item)
    elif isinstance(value, list):
        for item in value:
            _json_text(item)
    return value


# The API's field types. Strict: JSON's true is not the render 1, nor "7" a seed.
Text = Annotated[str, AfterValidator(_text)]
JsonObject = Annotated[dict, AfterValidator(_json_text)]
Id = Annotated[int, Strict(), Field(ge=1, le=ID_MAX)]
Seed = Annotated[int, Strict(), Field(ge=0, le=SEED_MAX)]
ShownMs = Annotated[int, Strict(), Field(ge=0, le=SHOWN_MS_MAX)]
# A query string's numbers arrive as text, so these are not strict; still
# bounded, or a filter by -2^70 overflows SQLite's query (a server error).
IdParam = Annotated[int, Field(ge=1, le=ID_MAX)]
CountParam = Annotated[int, Field(ge=0, le=INT32_MAX)]
ClientKey = Annotated[str, StringConstraints(pattern=CLIENT_KEY_PATTERN)]
Tally = Annotated[int, Strict(), Field(ge=0, le=INT32_MAX)]
