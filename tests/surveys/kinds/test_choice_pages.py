"""The choice kind's page hooks: option radios with the page's labels, the die for another
option, k-RR words per option, its partial and its chart rows."""

from __future__ import annotations

import math
from types import SimpleNamespace

from surveys.kinds import kind_of
from tests.surveys.kinds.pages_support import question, template_source, values

OPTIONS = ["a", "b", "c"]


def test_the_radios_send_the_stored_option_and_show_its_label() -> None:
    q = question("choice", {"name": "k_rr", "epsilon": math.log(3)}, OPTIONS)
    field = kind_of(q).form_fields(q, {"a": "Ay"})["q-q1"]
    assert values(field) == OPTIONS
    assert [label for _, label in field.choices] == ["Ay", "b", "c"]  # type: ignore[attr-defined]


def test_an_exact_die_design_ends_with_the_other_option_step() -> None:
    # keep probability e^ε/(e^ε + k − 1) = 4/6 with e^ε = 4 and k = 3: a die, 4 faces keep.
    q = question("choice", {"name": "k_rr", "epsilon": math.log(4)}, OPTIONS)
    protocol = kind_of(q).physical_protocol(q)
    assert protocol.possible
    assert protocol.steps[-1].startswith("To pick a random other option")


def test_an_inexact_design_says_its_keep_probability() -> None:
    q = question("choice", {"name": "k_rr", "epsilon": 1.234}, OPTIONS)
    protocol = kind_of(q).physical_protocol(q)
    assert not protocol.possible
    assert protocol.reason.startswith("It keeps your answer with probability")


def test_the_words_are_per_option_in_the_pages_labels() -> None:
    q = question("choice", {"name": "k_rr", "epsilon": math.log(3)}, OPTIONS)
    words = kind_of(q).protection(q, {"a": "Ay"})
    assert set(words["reports"]) == set(OPTIONS)
    assert "“Ay”" in words["reports"]["a"]["text"]
    assert words["randomizer"]["sectors"][1]["branch"] == "other"


def test_its_partial_has_a_button_per_option() -> None:
    source = template_source(question("choice"))
    assert "{% for value, label in item.options %}" in source


def test_its_chart_rows_are_the_options_and_the_mean_score() -> None:
    option = SimpleNamespace(option="a", reported_rate=0.5, estimate=0.4)
    score = SimpleNamespace(min=1, max=3, estimate=2.0)
    estimate = SimpleNamespace(n=3, options=[option], mean_score=score)
    rows = kind_of(question("choice")).chart_rows(estimate, {"key": "q1"})
    assert [r["label"] for r in rows] == ["a", "mean score (1–3)"]
    assert rows[1]["proportion"] is False
