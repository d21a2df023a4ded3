"""deniable/json_input.py: the text-scan shortcut (``check_utf8_json``) refuses exactly what the
walk (``check_json_value``) refuses, with the same error, on bodies built to slip past a scan."""

from __future__ import annotations

import json

import pytest

from deniable.errors import InvalidInput
from deniable.json_input import MAX_JSON_DEPTH, check_json_value, check_utf8_json


def _nested(depth: int, leaf: str = '"x"') -> str:
    return "[" * (depth - 1) + "{" + f'"k":{leaf}' + "}" + "]" * (depth - 1)


BODIES = [
    '{"answers": {"q1": "yes", "q2": 3}}',
    '{"a": "\\u0000"}',  # NUL as an escape
    '{"a\\u0000": 1}',  # in a key
    '{"a": "\\ud800"}',  # a lone surrogate
    '{"a": "\\ud83d\\ude00"}',  # a pair: a real character, fine
    '{"a": "\\u00e9"}',  # an escape that is fine
    '{"a": "\\\\u0000"}',  # an escaped backslash, then the letters u0000: fine
    '{"a": "[[[[[[[[[[[[[[[[[[[[[[[[[["}',  # brackets in a string only
    '{"a": "é 日 😀"}',  # raw non-ASCII (no escapes)
    _nested(MAX_JSON_DEPTH),
    _nested(MAX_JSON_DEPTH + 1),
    _nested(MAX_JSON_DEPTH - 1, leaf='"\\u0000"'),
    '{"a": [' + ",".join(["[]"] * 30) + "]}",  # many brackets, shallow
]


def _outcome(check, text: str) -> tuple[str, object] | None:
    data = json.loads(text)
    try:
        check(text, data) if check is check_utf8_json else check(data)
    except InvalidInput as exc:
        return ("refused", exc.as_body())
    return None


@pytest.mark.parametrize("text", BODIES)
def test_the_shortcut_refuses_exactly_what_the_walk_refuses(text: str) -> None:
    text.encode("utf-8")  # each body is valid UTF-8, as the view's strict decode requires
    assert _outcome(check_utf8_json, text) == _outcome(check_json_value, text)


def test_the_bodies_include_refusals_of_every_kind() -> None:
    # Otherwise the comparison above could pass with a shortcut that never refuses.
    refused = [text for text in BODIES if _outcome(check_json_value, text) is not None]
    messages = " ".join(json.dumps(_outcome(check_json_value, text)) for text in refused)
    assert len(refused) == 5
    assert "NUL" in messages and "surrogate" in messages and "nested deeper" in messages
