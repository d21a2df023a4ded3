"""Typed release entries (dpcore.central.release_entries): each part's entry serializes to the
contract's keys (docs/api.md#releases, §8), in order, and reads back to the same value; the
results container keeps ``groups`` only when grouped; rows are what the CSV needs."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import pytest

from dpcore.central.mechanisms import DiscreteGaussianRho, DiscreteLaplace
from dpcore.central.release_entries import ReleaseResults, as_json, entry_from_json
from dpcore.central.release_noise import GroupData, Noiser
from dpcore.central.release_parts import CheaterPart, GridSumPart, HistogramPart, OptionsPart
from dpcore.central.sensitivity import number_grid
from dpcore.local.cheater import cheater_detection

HEAD = ["key", "kind", "noisy_counts", "noisy_total", "noise_variance"]
ESTIMATE = ["estimate", "estimate_unclipped", "std_error", "ci_low", "ci_high"]
CASES = {
    "proportion": (
        HistogramPart(("yes", "no"), c=0.5, d=0.25, share="yes"),
        GroupData(cells={"yes": 40, "no": 60}),
        [*HEAD, *ESTIMATE],
    ),
    "histogram": (
        HistogramPart(("a", "b", "c")),
        GroupData(cells={"a": 5, "b": 7, "c": 9}),
        [*HEAD, "estimate", "std_error", "ci_low", "ci_high", "options"],
    ),
    "multi": (
        OptionsPart(("a", "b"), "", c=0.5, d=0.25),
        GroupData(cells={"": 50, "a": 20, "b": 31}),
        [
            "key",
            "kind",
            "noisy_counts",
            "noise_variance",
            "contributions",
            "estimate",
            "std_error",
            "ci_low",
            "ci_high",
            "options",
        ],
    ),
    "number": (
        GridSumPart(number_grid(0, 10)),
        GroupData(sums=SimpleNamespace(n=30, total=Fraction(123, 2))),
        [
            "key",
            "kind",
            "min",
            "max",
            "grid_step",
            "sum_sensitivity",
            "noisy_sum_units",
            "noisy_sum",
            "noisy_count",
            "noisy_total",
            "sum_noise_variance",
            "sum_std_error",
            "noise_variance",
            "count_std_error",
            "mean",
            *ESTIMATE,
            "note",
        ],
    ),
    "cheater": (
        CheaterPart(
            ("g1_yes", "g1_no", "g2_yes", "g2_no"),
            design=cheater_detection([{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}]),
        ),
        GroupData(cells={"g1_yes": 30, "g1_no": 20, "g2_yes": 35, "g2_no": 15}),
        [*HEAD, *ESTIMATE, "honest_yes", "cheaters", "honest_no", "at_boundary", "groups"],
    ),
}
NOISERS = [
    Noiser(DiscreteLaplace(1.0), DiscreteLaplace(1.0).unit_noise(3)),
    Noiser(DiscreteGaussianRho(0.5), DiscreteGaussianRho(0.5).unit_noise(3)),
]


@pytest.mark.parametrize("noiser", NOISERS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_entries_have_the_contract_keys_and_read_back(case: str, noiser: Noiser) -> None:
    part, data, keys = CASES[case]
    released = part.release(
        key="q", kind="some_kind", noiser=noiser, data={"a": data, "b": data}, grouped=True,
        confidence=0.9,
    )  # fmt: skip
    for entry in [released.overall, *released.by_group.values()]:
        body = as_json(entry)
        assert list(body) == keys
        assert entry_from_json(body) == entry
        assert entry.rows()  # every entry gives the CSV at least one row
    # The overall noise variance is G·V over the G groups (post-processing of their noise).
    assert released.overall.noise_variance == 2 * released.by_group["a"].noise_variance


def test_results_keep_groups_only_when_grouped() -> None:
    part, data, _ = CASES["proportion"]
    noiser = NOISERS[0]
    plain = part.release(
        key="q", kind="k", noiser=noiser, data={"": data}, grouped=False, confidence=0.95
    )
    results = ReleaseResults(0.95, "laplace", 3.0, noiser.unit.variance, None, [plain.overall])
    body = results.as_json()
    assert list(body) == ["confidence", "mechanism", "noise_scale", "noise_variance", "group_by",
                          "questions"]  # fmt: skip
    assert ReleaseResults.from_json(body) == results
    grouped = ReleaseResults.from_json({**body, "group_by": "g", "groups": [
        {"group": "x", "questions": body["questions"]}]})  # fmt: skip
    assert list(grouped.as_json())[-2:] == ["groups", "questions"]
    assert grouped.groups is not None and grouped.groups[0].questions == results.questions


def test_rows_per_entry() -> None:
    noiser = NOISERS[0]

    def rows(case: str) -> list[str]:
        part, data, _ = CASES[case]
        entry = part.release(
            key="q", kind="k", noiser=noiser, data={"": data}, grouped=False, confidence=0.95
        ).overall
        return [row.option for row in entry.rows()]

    assert rows("proportion") == ["yes"]
    assert rows("histogram") == ["a", "b", "c"]
    assert rows("multi") == ["a", "b"]
    assert rows("number") == ["mean"]
    assert rows("cheater") == ["honest_yes", "cheaters", "honest_no"]
