"""The yes/no kind's page hooks: its radios, its coins or dice, its words per design, its
partial and its chart row."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.utils import translation

from surveys.kinds import kind_of
from surveys.kinds._protocol import COIN_STEPS
from tests.surveys.kinds.pages_support import form_field, question, template_source, values

WARNER = {"name": "warner", "p": 0.75}


def test_the_radios_post_a_boolean_and_are_padded_to_one_length() -> None:
    field = form_field(question("yes_no"))
    assert values(field) == ["yes", "no"]
    assert len({len(str(v)) for v, _ in field.choices}) == 1  # type: ignore[attr-defined]
    assert field.clean("yes") is True
    assert field.clean("no ") is False


def test_the_default_coin_design_has_the_short_coin_steps() -> None:
    protocol = kind_of(question("yes_no")).physical_protocol(question("yes_no"))
    assert protocol.possible
    assert protocol.steps == [str(step) for step in COIN_STEPS]


def test_a_warner_design_names_the_device_and_the_opposite() -> None:
    q = question("yes_no", WARNER)
    protocol = kind_of(q).physical_protocol(q)
    assert protocol.possible
    assert protocol.steps[0].endswith("Do it where nobody can see.")
    assert any("opposite of your true answer" in step for step in protocol.steps[1:])


def test_an_unrunnable_spec_needs_javascript() -> None:
    q = question("yes_no", {"name": "forced_response", "p_truth": 2.0})
    protocol = kind_of(q).physical_protocol(q)
    assert not protocol.possible
    assert "needs JavaScript" in protocol.reason


@pytest.mark.parametrize(
    ("design", "visual", "branches"),
    [
        (None, "coins", []),
        (WARNER, "spinner", ["truth", "negation"]),
    ],
)
def test_the_words_follow_the_design(design, visual, branches) -> None:
    q = question("yes_no", design)
    words = kind_of(q).protection(q, {})
    assert words["randomizer"]["kind"] == visual
    assert [s["branch"] for s in words["randomizer"]["sectors"]] == branches
    assert set(words["reports"]) == {"yes", "no"}
    assert "handling_text" not in words  # the shared handling words hold for yes/no


def test_the_words_are_translated() -> None:
    q = question("yes_no", WARNER)
    with translation.override("es"):
        spanish = kind_of(q).protection(q, {})["randomizer"]["how"]
    assert spanish != kind_of(q).protection(q, {})["randomizer"]["how"]


def test_its_partial_has_yes_and_no_truth_buttons() -> None:
    source = template_source(question("yes_no"))
    assert 'data-truth="true"' in source
    assert 'extends "respond/kinds/_randomized.html"' in source


def test_its_chart_row_is_the_yes_rate() -> None:
    estimate = SimpleNamespace(n=10, reported_yes_rate=0.3, estimate=0.1)
    rows = kind_of(question("yes_no")).chart_rows(estimate, {"key": "q1"})
    assert [(r["key"], r["label"], r["reported_rate"]) for r in rows] == [("q1", "yes", 0.3)]
