"""The number kind's page hooks: a number input with its bounds, a whole number posted as one, its
error anchor, its partial and its mean row."""

from __future__ import annotations

from types import SimpleNamespace

from surveys.kinds import kind_of
from tests.surveys.kinds.pages_support import form_field, question, template_source


def test_the_input_carries_its_bounds_and_words() -> None:
    q = question("number", min_value=0, max_value=10, integer=True)
    field = form_field(q)
    assert field.widget.attrs == {"min": 0, "max": 10, "step": 1}
    assert field.error_messages["required"] == "Enter a number from 0 to 10."
    assert form_field(question("number")).error_messages["required"] == "Enter a number."


def test_a_whole_number_is_sent_as_an_int() -> None:
    q = question("number")
    assert kind_of(q).form_answer(q, {"q-q1": 3.0}) == 3
    assert isinstance(kind_of(q).form_answer(q, {"q-q1": 3.0}), int)
    assert kind_of(q).form_answer(q, {"q-q1": 2.5}) == 2.5
    assert kind_of(q).form_answer(q, {}) is None


def test_its_errors_link_to_the_input() -> None:
    q = question("number")
    assert kind_of(q).error_anchor(q) == "id_q-q1"
    assert kind_of(question("category")).error_anchor(question("category")) == "id_q-q1_0"


def test_its_partial_is_a_number_input() -> None:
    assert 'type="number"' in template_source(question("number"))


def test_its_row_is_the_mean() -> None:
    (row,) = kind_of(question("number")).chart_rows(SimpleNamespace(n=2, mean=4.5), {})
    assert (row["label"], row["estimate"], row["proportion"]) == ("mean", 4.5, False)
