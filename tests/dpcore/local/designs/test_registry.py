"""The design registry: every design module registers once, the names derived from it keep their
order, each entry's schema describes the specs its builder accepts."""

from __future__ import annotations

import pytest

from dpcore.local import browser
from dpcore.local.designs import (
    BINARY_DESIGN_NAMES,
    DESIGN_NAMES,
    build_design,
    design_named,
    k_rr,
    registered,
)


def test_the_names_keep_their_historical_order():
    assert BINARY_DESIGN_NAMES == (
        "forced_response",
        "warner",
        "unrelated_question",
        "two_probability",
        "crosswise",
    )
    assert DESIGN_NAMES == (*BINARY_DESIGN_NAMES, "k_rr", "oue")


def test_names_are_unique_and_lookups_find_them():
    names = [entry.name for entry in registered()]
    assert len(names) == len(set(names))
    for name in names:
        assert design_named(name).name == name
    with pytest.raises(KeyError):
        design_named("no_such_design")


@pytest.mark.parametrize("entry", registered(), ids=lambda e: e.name)
def test_each_starting_spec_builds_and_matches_its_schema(entry):
    spec = {**entry.starting}
    for text in entry.texts:
        spec[text] = spec[text] or "An innocuous statement."
    design = build_design(spec, k=3)
    assert design.to_spec() == spec
    schema = entry.schema()
    assert set(spec) <= set(schema["properties"])
    assert schema["properties"]["name"]["enum"] == [entry.name]
    described = {p["name"] for p in entry.describe()["params"]}
    assert described == set(schema["properties"]) - {"name"}


def test_the_k_rr_schema_states_the_browser_cap():
    schema = design_named("k_rr").schema()
    assert schema["properties"]["epsilon"]["maximum"] == browser.MAX_LOCAL_EPSILON
    assert k_rr(3, 1.0).name == "k_rr"
