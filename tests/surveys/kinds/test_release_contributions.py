"""Each kind's release hooks (branch releases): what a question contributes to a central-DP
release (typed dpcore contributions), whether it can be released or grouped by, and which part
reads it. Moved here from dpcore, which no longer knows kind names (issue 23 item 3)."""

from __future__ import annotations

import math

import pytest

from dpcore.central.release_parts import CheaterPart, GridSumPart, HistogramPart, OptionsPart
from dpcore.central.sensitivity import Contribution, multi_sensitivities, sum_sensitivity
from surveys.definitions import question_designs as designs
from surveys.kinds.registry import kind_of, kinds
from surveys.models import Question

CHEATER = {
    "name": "cheater_detection",
    "groups": [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}],
}
UQT_UNKNOWN = {
    "name": "unrelated_question_unknown",
    "groups": [{"p": 0.5}, {"p": 0.1}],
    "innocuous_text": "Born in the first half of the year.",
    "innocuous_prevalence_min": 0.4,
    "innocuous_prevalence_max": 0.6,
}
CROSSWISE = {"name": "crosswise", "innocuous_prevalence": 0.25, "innocuous_text": "Born in March."}


def question(kind: str, *, options=None, design=None, lo=None, hi=None) -> Question:
    """An unsaved row, as the release code reads it."""
    if design is None:
        design = designs.default_design_spec(kind)
    return Question(
        key=f"q_{kind}", kind=kind, options=options or [], design=design, min_value=lo, max_value=hi
    )


def sensitivities(q: Question) -> list[int]:
    return [c.sensitivity for c in kind_of(q).release_contributions(q)]


def test_the_count_per_kind_is_one_histogram_two_for_a_number_k_for_multi() -> None:
    """The assertion formerly on dpcore's contribution_count([("multi", 3), "yes_no",
    ("number", 0), "choice"]) == 3 + 1 + 2 + 1, now asked of the kinds."""
    chosen = [
        question("multi", options=["a", "b", "c"]),
        question("yes_no"),
        question("number", lo=0, hi=10),
        question("choice", options=["x", "y"]),
    ]
    assert sum(len(kind_of(q).release_contributions(q)) for q in chosen) == 3 + 1 + 2 + 1
    plain = [question("yes_no"), question("category", options=["u", "v"])]
    assert sum(len(kind_of(q).release_contributions(q)) for q in plain) == 2


@pytest.mark.parametrize(("lo", "hi"), [(0, 10), (-5, 120), (0.5, 2.25), (-1e6, 3)])
def test_a_number_contributes_its_grid_sum_then_its_count(lo: float, hi: float) -> None:
    q = question("number", lo=lo, hi=hi)
    assert sensitivities(q) == [sum_sensitivity(lo, hi), 1]
    assert isinstance(kind_of(q).release_part(q), GridSumPart)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_a_multi_question_contributes_one_histogram_per_option(k: int) -> None:
    q = question("multi", options=[f"o{i}" for i in range(k)])
    assert sensitivities(q) == multi_sensitivities(k)
    part = kind_of(q).release_part(q)
    assert isinstance(part, OptionsPart) and part.options == tuple(q.options)
    assert part.released_cells == 2


def test_cheating_detection_is_one_histogram_of_four_cells() -> None:
    """One respondent, one group, one report: Δ = 1, not one per group."""
    q = question("yes_no", design=CHEATER)
    assert kind_of(q).name == "cheater_detection"
    assert sensitivities(q) == [1]
    part = kind_of(q).release_part(q)
    assert isinstance(part, CheaterPart) and part.released_cells == 4


@pytest.mark.parametrize(
    ("kind", "design", "share", "cells"),
    [
        ("yes_no", None, "yes", 2),
        ("yes_no", CROSSWISE, "yes", 2),
        ("choice", None, None, 3),
        ("category", None, None, 3),
    ],
)
def test_histogram_kinds_and_their_estimate(kind, design, share, cells) -> None:
    q = question(kind, options=["a", "b", "c"] if kind != "yes_no" else None, design=design)
    part = kind_of(q).release_part(q)
    assert type(part) is HistogramPart
    assert part.share == share and part.released_cells == cells
    assert sensitivities(q) == [1]
    c, d = (
        (1.0, 0.0)
        if designs.question_design(q) is None
        else (
            float(designs.question_design(q).c),
            float(designs.question_design(q).d),
        )
    )
    assert (part.c, part.d) == (c, d)


def test_only_bounded_numbers_are_releasable() -> None:
    assert not kind_of(question("number", lo=None, hi=5)).releasable(question("number", hi=5))
    assert kind_of(question("number")).releasable(question("number", lo=0, hi=5))
    with pytest.raises(ValueError, match="no bounds"):
        kind_of(question("number")).release_part(question("number", lo=0))


def test_only_category_questions_group_a_release() -> None:
    grouping = sorted(kind.name for kind in kinds() if kind.release_groups)
    assert grouping == ["category"]


def test_every_kind_contributes_unit_pieces_or_a_grid_sum() -> None:
    """Every registered kind answers, with typed contributions of Δ ≥ 1."""
    samples = {
        "yes_no": question("yes_no"),
        "crosswise": question("yes_no", design=CROSSWISE),
        "cheater_detection": question("yes_no", design=CHEATER),
        "unrelated_question_unknown": question("yes_no", design=UQT_UNKNOWN),
        "choice": question("choice", options=["a", "b"]),
        "oue": question("choice", options=["a", "b"], design={"name": "oue", "epsilon": 1.0}),
        "category": question("category", options=["a", "b"]),
        "number": question("number", lo=0, hi=1),
        "multi": question("multi", options=["a", "b"]),
    }
    assert {kind.name for kind in kinds()} <= set(samples)
    for name, q in samples.items():
        assert kind_of(q).name == name
        contributions = kind_of(q).release_contributions(q)
        assert contributions and all(isinstance(c, Contribution) for c in contributions)
        assert math.isfinite(sum(c.sensitivity for c in contributions))
