"""Argument errors in plain words: where a pydantic `ValidationError` of a tool's input
becomes the sentence the model (and the view) reads.

Each problem names its field and what is needed ("locations: give at least 2 positions,
got 1"), and nothing of pydantic's own report. `server.app.TomTomServer` and the tools
that validate a nested input themselves call `explain_arguments`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError
from pydantic_core import ErrorDetails

MAX_PROBLEMS = 4
"""Problems named in one message; the rest are counted."""
SHOWN_CHARS = 40
"""A quoted value longer than this is cut."""

_UNION_TAG = re.compile(r"[\[\](), -]")
_TYPE_TAGS = frozenset({"str", "int", "float", "bool", "dict", "list", "none"})
_EXPECTED = {
    "string_type": "text",
    "int_type": "a whole number",
    "int_parsing": "a whole number",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "tuple_type": "a list",
    "dict_type": "an object",
    "model_type": "an object",
    "model_attributes_type": "an object",
    "datetime_type": "a date-time",
    "datetime_parsing": "a date-time",
    "datetime_from_date_parsing": "a date-time",
}
"""What a type error says was expected, by pydantic's error type."""


def explain_arguments(exc: ValidationError, *, under: str = "") -> str:
    """`exc` as one line: `field: what is needed` per problem, at most `MAX_PROBLEMS`;
    `under` prefixes every field (the argument a nested input came in)."""
    grouped: dict[str, list[ErrorDetails]] = {}
    for error in exc.errors(include_url=False):
        path = ".".join(str(p) for p in (under, *error["loc"]) if p != "" and not _is_tag(p))
        grouped.setdefault(path, []).append(error)
    said = [
        f"{path}: {_problem(errors)}" if path else _problem(errors)
        for path, errors in grouped.items()
    ]
    more = len(said) - MAX_PROBLEMS
    return "; ".join(said[:MAX_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")


def _is_tag(part: str | int) -> bool:
    """A union member's tag in an error's location (`dict[str,any]`, `str`), not a field."""
    return isinstance(part, str) and (part in _TYPE_TAGS or bool(_UNION_TAG.search(part)))


def _problem(errors: Sequence[ErrorDetails]) -> str:
    """One field's problem; a union's members each fail, and the one that failed on the
    value rather than on its type says the most."""
    specific = [e for e in errors if e["type"] not in _EXPECTED]
    if specific or len(errors) == 1:
        return _said(specific[0] if specific else errors[0])
    wanted = list(dict.fromkeys(_EXPECTED[e["type"]] for e in errors))
    return f"expected {' or '.join(wanted)}, got {_kind(errors[0].get('input'))}"


def _said(error: ErrorDetails) -> str:
    kind = error["type"]
    ctx: dict[str, Any] = dict(error.get("ctx") or {})
    value = error.get("input")
    match kind:
        case "missing":
            return "required, but not given"
        case "too_short":
            return f"give at least {ctx['min_length']} {_noun(value)}, got {ctx['actual_length']}"
        case "too_long":
            return f"give at most {ctx['max_length']} {_noun(value)}, got {ctx['actual_length']}"
        case "string_too_short":
            least = ctx["min_length"]
            return f"give at least {least} character{'s' * (least != 1)}, got {_length(value)}"
        case "string_too_long":
            return f"give at most {ctx['max_length']} characters, got {_length(value)}"
        case "greater_than":
            return f"must be greater than {ctx['gt']}, got {_shown(value)}"
        case "greater_than_equal":
            return f"must be greater than or equal to {ctx['ge']}, got {_shown(value)}"
        case "less_than":
            return f"must be less than {ctx['lt']}, got {_shown(value)}"
        case "less_than_equal":
            return f"must be less than or equal to {ctx['le']}, got {_shown(value)}"
        case "literal_error" | "enum":
            return f"use {ctx['expected']}; got {_shown(value)}"
        case "string_pattern_mismatch":
            return f"{_shown(value)} is not in the expected form ({ctx['pattern']})"
        case "extra_forbidden":
            return "not an argument here; leave it out"
        case "finite_number":
            return "must be a finite number"
        case "value_error" | "assertion_error":
            return str(ctx.get("error") or error["msg"])
        case _ if kind in _EXPECTED:
            return f"expected {_EXPECTED[kind]}, got {_kind(value)}"
        case _:
            return error["msg"].replace("Input should be", "should be")


def _noun(value: Any) -> str:
    """What a list holds, as the model wrote it: positions, or items."""
    if isinstance(value, list | tuple) and value and all(map(_is_position, value)):
        return "positions"
    return "items"


def _is_position(value: Any) -> bool:
    if isinstance(value, dict):
        return set(value) == {"lat", "lon"}
    return (
        isinstance(value, list | tuple)
        and len(value) in (2, 3)
        and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
    )


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def _shown(value: Any) -> str:
    """A short quotation of a value the caller sent."""
    if isinstance(value, bool) or value is None:
        return "true" if value is True else "false" if value is False else "null"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return repr(value if len(value) <= SHOWN_CHARS else value[:SHOWN_CHARS] + "...")
    return _kind(value)


def _kind(value: Any) -> str:
    """What a value is, in words (for a value of the wrong type)."""
    match value:
        case None:
            return "null"
        case bool():
            return "true/false"
        case int():
            return f"the number {value}"
        case float():
            return f"the number {value!r}"
        case str():
            return f"the text {_shown(value)}"
        case list() | tuple():
            return f"a list of {len(value)}"
        case dict():
            return "an object"
        case _:
            return type(value).__name__
