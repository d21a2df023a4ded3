"""The no-JS padding's byte count is the browser's (WHATWG urlencoded), not quote_plus's
(issue 21 item 6); Chromium itself: tests/e2e/test_respondent_no_js_padding.py."""

from __future__ import annotations

import pytest

from surveys.kinds._fields import form_encoded_length, padded


@pytest.mark.parametrize(
    ("text", "length"),
    [("*", 1), ("~", 3), ("a b", 3), ("-._", 3), ("é", 6), ("😀", 12), ("+", 3), ("%", 3)],
)
def test_form_encoded_length_is_the_browsers(text, length):
    assert form_encoded_length(text) == length


@pytest.mark.parametrize("options", [["*", "**", "***"], ["~", "~~", "~~~"], ["a", "é", "😀"]])
def test_padded_options_encode_to_one_length(options):
    padded_values = padded([(o, o) for o in options])
    assert len({form_encoded_length(v) for v, _ in padded_values}) == 1
    assert [v.rstrip(" ") for v, _ in padded_values] == options
