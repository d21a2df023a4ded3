"""The multi-select kind's page hooks: a YES/NO pair per option, the device once per option, words
per box, its ε per option for its script, its partial and its rows."""

from __future__ import annotations

from types import SimpleNamespace

from surveys.kinds import kind_of
from tests.surveys.kinds.pages_support import question, template_source, values

OPTIONS = ["red", "blue"]


def test_a_yes_no_pair_per_option() -> None:
    q = question("multi", None, OPTIONS)
    kind = kind_of(q)
    fields = kind.form_fields(q, {"red": "Rojo"})
    assert list(fields) == ["q-q1.0", "q-q1.1"]
    assert values(fields["q-q1.0"]) == ["yes", "no"]
    assert fields["q-q1.0"].label == "Rojo"
    assert kind.error_field_names(q) == ["q-q1.0", "q-q1.1"]


def test_the_answer_holds_the_options_given() -> None:
    q = question("multi", None, OPTIONS)
    assert kind_of(q).form_answer(q, {"q-q1.0": True, "q-q1.1": None}) == {"red": True}
    assert kind_of(q).form_answer(q, {}) is None


def test_the_coin_steps_are_said_per_option() -> None:
    q = question("multi", None, OPTIONS)
    protocol = kind_of(q).physical_protocol(q)
    assert protocol.possible
    assert protocol.steps[0].startswith("Do this for each of the 2 options in turn")


def test_the_words_are_per_box() -> None:
    q = question("multi", None, OPTIONS)
    words = kind_of(q).protection(q, {})
    assert words["handling_text"].startswith("Randomized before it is sent, each box separately")
    assert words["randomizer"]["button"] == "Flip the coins for each option"
    assert words["reports"]["yes"]["text"].startswith("Each box is randomized on its own.")


def test_its_script_gets_the_epsilon_per_option() -> None:
    q = question("multi", None, OPTIONS)
    assert set(kind_of(q).page_data(q)) == {"epsilon_per_option"}
    assert kind_of(question("yes_no")).page_data(question("yes_no")) == {}


def test_its_partial_has_truth_boxes_and_a_pair_per_option() -> None:
    source = template_source(question("multi"))
    assert "data-truth-option" in source
    assert "item.option_fields" in source


def test_its_chart_rows_are_per_option() -> None:
    option = SimpleNamespace(option="red", n=7, reported_rate=0.5, estimate=0.4)
    rows = kind_of(question("multi")).chart_rows(SimpleNamespace(options=[option]), {})
    assert [(r["label"], r["n"]) for r in rows] == [("red", 7)]
