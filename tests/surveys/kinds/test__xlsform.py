"""The kinds' shared XLSForm pieces: the deniable::design syntax, read back exactly for every
registered design, its refusals, the choice names and bounds; and every kind claims its rows."""

from __future__ import annotations

import pytest

from dpcore.local.designs import registered
from surveys.kinds import _xlsform as xls
from surveys.kinds.registry import kinds


@pytest.mark.parametrize("entry", registered(), ids=lambda e: e.name)
def test_every_registered_design_reads_back_exactly(entry):
    spec = {k: v for k, v in entry.starting.items() if k not in entry.texts}
    text = xls.design_text(spec)
    assert text.split()[0] == entry.name
    assert xls.parse_design(text) == (spec, [])


def test_the_examples_of_the_contract():
    assert xls.parse_design("cheater_detection groups=0.25:0.25|0.5:0.25")[0] == {
        "name": "cheater_detection",
        "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
    }
    assert xls.parse_design("k_rr epsilon=2") == ({"name": "k_rr", "epsilon": 2}, [])
    assert xls.design_text({"name": "warner", "p": 0.75}) == "warner p=0.75"
    assert xls.parse_design("  ") == (None, [])


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("coin p=0.5", "Unknown design"),
        ("warner p", "not <parameter>=<value>"),
        ("warner q=0.5", "no parameter 'q'"),
        ("warner p=0.5 p=0.6", "twice"),
        ("warner p=half", "not a number"),
        ("warner p=inf", "not a finite number"),
        ("cheater_detection groups=0.25:0.25", "give 2 groups"),
        ("cheater_detection groups=0.25|0.5", "p_yes:p_no"),
    ],
)
def test_syntax_errors_say_what_is_wrong(text, words):
    _, problems = xls.parse_design(text)
    assert problems and words in problems[0]


def test_choice_names():
    assert xls.choice_names(["a", "b"]) == ("a", "b")
    assert xls.choice_names(["a b", "c"]) == ("o1", "o2")  # a space: not a select_multiple name
    assert xls.choice_names(["1", "2"]) == ("o1", "o2")  # 1..k would read as ordered
    assert xls.choice_names(["x", "y"], ordered=True) == ("1", "2")
    assert xls.bounds_constraint(0.0, 80.5) == ". >= 0 and . <= 80.5"
    assert xls.text_column("innocuous_text") == "deniable::innocuous"


ROWS = {
    "yes_no": xls.XlsformRow("select_one", ("yes", "no"), ("Yes", "No"), {"name": "warner"}),
    "crosswise": xls.XlsformRow("select_one", ("yes", "no"), ("Yes", "No"), {"name": "crosswise"}),
    "cheater_detection": xls.XlsformRow(
        "select_one", ("Yes", "No"), ("Yes", "No"), {"name": "cheater_detection"}
    ),
    "unrelated_question_unknown": xls.XlsformRow(
        "select_one", ("Yes", "No"), ("Yes", "No"), {"name": "unrelated_question_unknown"}
    ),
    "choice": xls.XlsformRow("select_one", ("a", "b", "c"), ("A", "B", "C"), {"name": "k_rr"}),
    "oue": xls.XlsformRow("select_one", ("a", "b", "c"), ("A", "B", "C"), {"name": "oue"}),
    "category": xls.XlsformRow("select_one", ("yes", "no"), ("Yes", "No")),
    "multi": xls.XlsformRow("select_multiple", ("a", "b"), ("A", "B"), {"name": "warner"}),
    "number": xls.XlsformRow("decimal", bounds=(0, 1)),
}


@pytest.mark.parametrize("kind", kinds(), ids=lambda k: k.name)
def test_each_kind_claims_its_own_rows_first(kind):
    claimed = next(k for k in kinds() if k.xlsform_claims(ROWS[kind.name]))
    assert claimed is kind
    assert kind.from_xlsform(ROWS[kind.name])["kind"] == kind.stored_kind


def test_rows_no_kind_claims():
    binary_on_options = xls.XlsformRow("select_one", ("a", "b"), ("A", "B"), {"name": "warner"})
    direct_multiple = xls.XlsformRow("select_multiple", ("a", "b"), ("A", "B"))
    k_rr_multiple = xls.XlsformRow("select_multiple", ("a", "b"), ("A", "B"), {"name": "k_rr"})
    for row in (binary_on_options, direct_multiple, k_rr_multiple):
        assert not any(k.xlsform_claims(row) for k in kinds())
