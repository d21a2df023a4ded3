"""The category kind's page hooks: plain radios, nothing to draw, its partial, its share rows and
its place in the results (grouping, regression)."""

from __future__ import annotations

from types import SimpleNamespace

from django import forms

from surveys.kinds import kind_of
from tests.surveys.kinds.pages_support import form_field, question, template_source

OPTIONS = ["young", "old"]


def test_plain_unpadded_radios() -> None:
    field = form_field(question("category", None, OPTIONS))
    assert type(field) is forms.ChoiceField
    assert [value for value, _ in field.choices] == OPTIONS  # type: ignore[attr-defined]
    assert field.error_messages["required"] == "Choose an answer."


def test_nothing_to_draw() -> None:
    q = question("category", None, OPTIONS)
    protocol = kind_of(q).physical_protocol(q)
    assert (protocol.possible, protocol.steps) == (True, [])
    assert kind_of(q).protection(q, {}) == {}


def test_its_partial_shows_the_handling_words() -> None:
    assert "item.protection.handling_text" in template_source(question("category"))


def test_it_groups_results_and_predicts() -> None:
    kind = kind_of(question("category"))
    assert kind.groups_results and kind.regression_predictor
    assert not kind_of(question("yes_no")).groups_results


def test_its_rows_are_shares_asked_directly() -> None:
    share = SimpleNamespace(option="old", share=0.25)
    (row,) = kind_of(question("category")).chart_rows(SimpleNamespace(n=4, options=[share]), {})
    assert (row["label"], row["estimate"], row["direct"]) == ("old", 0.25, True)
