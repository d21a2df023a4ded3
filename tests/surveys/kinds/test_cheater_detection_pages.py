"""The cheating-detection kind's page hooks: group × report radios, a coin for the group, the
worse group's words, its partial and its three chart rows."""

from __future__ import annotations

from types import SimpleNamespace

from surveys.kinds import kind_of
from surveys.kinds.cheater_detection import CHEATER_LABELS
from tests.surveys.kinds.pages_support import form_field, question, template_source, values

DESIGN = {
    "name": "cheater_detection",
    "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
}


def test_the_radios_post_group_and_report() -> None:
    field = form_field(question("yes_no", DESIGN))
    assert values(field) == ["g1_yes", "g1_no", "g2_yes", "g2_no"]
    assert field.clean("g2_no") == {"group": 2, "report": False}


def test_a_coin_draws_the_group_then_each_groups_device() -> None:
    q = question("yes_no", DESIGN)
    protocol = kind_of(q).physical_protocol(q)
    assert protocol.possible
    assert protocol.steps[0].startswith("Flip a coin where nobody can see it.")
    assert protocol.steps[1].startswith("Group 1 only:")
    assert protocol.steps[2].startswith("Group 2 only:")
    assert len(protocol.steps) == 4


def test_the_words_give_each_groups_spinner_and_the_worse_ratio() -> None:
    q = question("yes_no", DESIGN)
    words = kind_of(q).protection(q, {})
    assert len(words["randomizer"]["groups"]) == 2
    # max over groups of (1 − p_no)/p_yes: 0.75/0.25 = 3 (group 1).
    assert words["reports"]["yes"]["likelihood_ratio"] == 3.0
    assert "In either group" in words["reports"]["yes"]["text"]


def test_its_partial_asks_the_true_yes_or_no() -> None:
    source = template_source(question("yes_no", DESIGN))
    assert 'extends "respond/kinds/yes_no.html"' in source


def test_its_chart_rows_are_the_three_shares() -> None:
    share = {"estimate": 0.2, "std_error": None, "ci_low": None, "ci_high": None}
    estimate = SimpleNamespace(
        n=5,
        reported_yes_rate=0.4,
        honest_yes=share,
        cheaters=share,
        honest_no=share,
        at_boundary=False,
    )
    rows = kind_of(question("yes_no", DESIGN)).chart_rows(estimate, {"key": "q1"})
    assert [r["label"] for r in rows] == [label for _, label in CHEATER_LABELS]
    assert [r["reported_rate"] for r in rows] == [0.4, None, None]
