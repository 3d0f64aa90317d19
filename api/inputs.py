"""The base of every JSON body the API takes. Each field's type and range
come from sketches.input_rules, the bounds the pages' forms read too."""
from __future__ import annotations

from typing import Any

from ninja import Schema
from ninja.schema import DjangoGetter
from pydantic import ConfigDict, model_validator


class BodyIn(Schema):
    """A JSON object, and nothing else: ninja reads a body's fields as
    attributes, so `[]`, `null` or `42` would pass as an object with every
    field left at its default (and write a row). A field not declared is
    refused too, so a misspelt one is not silently ignored."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def an_object(cls, data: Any) -> Any:
        # Ninja validates the body as it came, then again wrapped in its getter.
        body = data._obj if isinstance(data, DjangoGetter) else data
        if not isinstance(body, dict):
            raise ValueError(f"the body must be a JSON object, not {json_name(body)}")
        return data


def json_name(value: Any) -> str:
    """What JSON calls the type of a parsed value."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string",
            list: "an array"}.get(type(value), type(value).__name__)
