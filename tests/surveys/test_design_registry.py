"""The app's view of the dpcore design registry (surveys.definitions.question_designs,
surveys.inputs.design_specs):
the names each kind accepts, the schema and help generated from it, and the rule that a grouped
design is offered only once a question kind is registered under its name."""

from __future__ import annotations

from dpcore.local.designs import registered
from surveys.definitions import question_designs as designs
from surveys.inputs import design_specs
from surveys.kinds.registry import kinds


def test_the_names_each_kind_accepts_are_unchanged():
    assert design_specs.DESIGN_NAMES["yes_no"] == (
        "forced_response",
        "warner",
        "unrelated_question",
        "unrelated_question_unknown",
        "two_probability",
        "crosswise",
        "cheater_detection",
    )
    assert design_specs.DESIGN_NAMES["choice"] == ("k_rr", "oue")
    assert designs.MULTI_DESIGN_NAMES == (
        "forced_response",
        "warner",
        "unrelated_question",
        "two_probability",
    )


def test_a_grouped_design_needs_its_kind():
    kind_names = {kind.name for kind in kinds()}
    offered = set(designs.design_names("yes_no"))
    for entry in registered():
        if entry.grouped and "binary" in entry.serves:
            assert (entry.name in offered) == (entry.name in kind_names), entry.name
    # Both grouped designs have their kind (issue 23's ≤ 3-file measure: docs/architecture.md).
    assert {"cheater_detection", "unrelated_question_unknown"} <= offered


def test_the_schema_help_and_builder_data_come_from_the_registry():
    for kind in designs.RANDOMIZED_KINDS:
        for entry in designs.app_designs(kind):
            params = design_specs.DESIGN_SCHEMAS[entry.name]
            assert list(params) == [p.name for p in entry.params]
            assert f'"name":"{entry.name}"' in design_specs.design_help_text()
    described = {d["name"]: d for d in designs.builder_designs()}
    assert described["k_rr"]["kinds"] == ["choice"]
    assert described["crosswise"]["kinds"] == ["yes_no"]
    assert [p["name"] for p in described["cheater_detection"]["params"][0]["fields"]] == [
        "p_yes",
        "p_no",
    ]
    starting = designs.starting_designs()
    assert starting["crosswise"]["innocuous_text"]  # the library's first statement
    assert set(described) <= set(starting)
