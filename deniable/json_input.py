"""JSON request bodies, checked before any view sees them (issue 11 §7).

* **Nesting depth.** Python's JSON decoder recurses once per ``[`` or ``{``: ~2 KB of ``[[[…]]]``
  raised ``RecursionError`` (a 500), and anything that later walks or prints such a value (an
  error message's ``repr``) recurses again. Bodies nested deeper than :data:`MAX_JSON_DEPTH` are
  a 400. The deepest body the API takes is a survey: object → questions → question → design or
  options, depth 4; 20 leaves room for any future shape and is far below the recursion limit.
* **Strings.** PostgreSQL text and jsonb cannot hold NUL (``\\u0000``), and a lone UTF-16
  surrogate (``"\\ud800"``) cannot be encoded as UTF-8 by either backend's driver: both were
  database errors (500s) in titles, options, question text, the token endpoint's username, a
  release's ``request_id``… No field of this API needs either, so any string — value or key —
  holding one is a 400 naming its path (``questions[0].options[1]``) in the §8 error shape.

The walk is iterative (no recursion of its own) and visits each parsed node once.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Final

from deniable.errors import InvalidInput

MAX_JSON_DEPTH: Final = 20
NON_FIELD = "non_field_errors"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")  # NaN/Infinity: Python accepts them, JSON not


def string_problem(value: str) -> str | None:
    """Why a string cannot be stored, or None."""
    if "\x00" in value:
        return "Must not contain NUL (\\u0000) characters."
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "Must be valid Unicode text (a lone UTF-16 surrogate was found)."
    return None


def _path(parent: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def _children(node: Any, path: str) -> Iterator[tuple[Any, str]]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield value, _path(path, str(key))
    else:
        for index, value in enumerate(node):
            yield value, _path(path, index)


def check_json_value(data: Any) -> None:
    """Raise :class:`InvalidInput` for a value nested too deep or holding an unstorable string."""
    stack: list[tuple[Any, str, int]] = [(data, "", 1)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, str):
            problem = string_problem(node)
            if problem:
                raise InvalidInput.single(path or NON_FIELD, problem)
            continue
        if not isinstance(node, dict | list):
            continue
        if depth > MAX_JSON_DEPTH:
            raise InvalidInput.single(
                NON_FIELD, f"The JSON body is nested deeper than {MAX_JSON_DEPTH} levels."
            )
        if isinstance(node, dict):
            for key in node:
                problem = string_problem(str(key))
                if problem:
                    raise InvalidInput.single(path or NON_FIELD, f"A key: {problem}")
        stack.extend((child, child_path, depth + 1) for child, child_path in _children(node, path))


def check_utf8_json(text: str, data: Any) -> None:
    """:func:`check_json_value` for ``data = json.loads(text)`` where ``text`` was decoded from
    strict UTF-8, skipped when the text itself rules out both problems (C-speed scans of the
    text instead of a walk of every node: ≈ 2 % of a submission's CPU, bench/RESULTS.md §10,
    round 13):

    * a NUL or a lone surrogate can reach a parsed string only as a ``\\u`` escape — the strict
      parser refuses raw control characters and strict UTF-8 decoding refuses surrogates;
    * a container nested d deep needs d opening brackets in the text, so at most
      :data:`MAX_JSON_DEPTH` of them (brackets inside strings only add to the count) rules out
      a body nested too deep.
    """
    if "\\u" not in text and text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    check_json_value(data)


def loads(text: str | bytes, *, strict: bool = True) -> Any:
    """JSON (``strict``: no NaN/Infinity literals) checked by :func:`check_json_value`.

    Raises ``ValueError`` for text that is not JSON (including nesting past Python's recursion
    limit) and :class:`InvalidInput` for a value the API cannot take.
    """
    try:
        data = json.loads(text, parse_constant=_reject_constant if strict else None)
    except RecursionError:
        raise ValueError(f"nested deeper than {MAX_JSON_DEPTH} levels") from None
    check_json_value(data)
    return data
