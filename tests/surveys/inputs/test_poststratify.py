"""The shares' spellings (surveys/inputs/poststratify.py): the query syntax, a JSON object (for
options with commas), exact fractions; what comes back for the form."""

from __future__ import annotations

from fractions import Fraction

import pytest
from rest_framework import serializers

from surveys.inputs.poststratify import parse_shares, shares_text


def test_query_syntax_with_a_colon_in_an_option_and_fractions() -> None:
    assert parse_shares(" 9:00-12:00 : 1/3 , later:2/3") == {
        "9:00-12:00": Fraction(1, 3),
        "later": Fraction(2, 3),
    }


def test_json_object_for_options_with_commas() -> None:
    got = parse_shares('{"a, b": 0.25, "c": "0.75"}')
    assert got == {"a, b": Fraction(1, 4), "c": Fraction(3, 4)}
    assert parse_shares({"x": 0.1, "y": 0.9})["x"] == Fraction(1, 10)  # the decimal, exactly
    assert shares_text({"a, b": 0.25, "c": 0.75}) == '{"a, b": 0.25, "c": 0.75}'
    assert shares_text({"a": 0.25, "c": 0.75}) == "a:0.25,c:0.75"


@pytest.mark.parametrize(
    "value", ["", "a", "a:", ":0.5", "{not json", "[1, 2]", '{"a": true}', "a:1e400x", 7]
)
def test_malformed_shares_are_refused(value) -> None:
    with pytest.raises(serializers.ValidationError):
        parse_shares(value)


@pytest.mark.parametrize(
    "value",
    [
        "North:1e400,South:1",
        "North:1e10000000,South:1",
        "North:2,South:-1",
        "North:" + "9" * 60 + ",South:0",
        '{"North": 1e400, "South": 0}',
    ],
)
def test_huge_shares_are_refused_at_once(value) -> None:
    """1e400 reached a float conversion that overflowed (a 500); 1e10000000 first took seconds
    of CPU, as Fraction builds 10**exponent exactly."""
    import time

    started = time.process_time()
    with pytest.raises(serializers.ValidationError):
        parse_shares(value)
    assert time.process_time() - started < 0.5


def test_small_exponents_still_read() -> None:
    assert parse_shares("a:2.5e-1,b:7.5E-1") == {"a": Fraction(1, 4), "b": Fraction(3, 4)}
