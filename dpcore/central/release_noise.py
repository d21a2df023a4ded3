"""A release's noise as the parts of :mod:`dpcore.central.release_parts` take it: the mechanism
and its unit noise (:class:`Noiser`), and a part's expected error (:class:`ExpectedError`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, TypeVar

from dpcore.central.mechanisms import Mechanism, UnitNoise
from dpcore.central.release_entries import ReleaseEntry
from dpcore.central.sensitivity import NumberGrid

__all__ = [
    "CountAndSum",
    "ExpectedError",
    "GroupData",
    "Noiser",
    "QuestionRelease",
    "ReleasesQuestion",
    "need",
    "release_question",
]

_T = TypeVar("_T")


def need(value: _T | None, what: str) -> _T:
    """``value``, which a part cannot do without (a caller's mistake otherwise)."""
    if value is None:
        raise ValueError(f"this release part needs {what}")
    return value


class CountAndSum(Protocol):
    """A number question's answers in one group: how many, and their exact sum."""

    @property
    def n(self) -> int: ...
    @property
    def total(self) -> float | Fraction: ...


@dataclass(frozen=True)
class Noiser:
    """A release's mechanism and its unit noise: draws and variances per sensitivity Δ."""

    mechanism: Mechanism
    unit: UnitNoise

    def draws(self, size: int, sensitivity: int = 1) -> list[int]:
        return self.mechanism.sample(self.mechanism.scaled(self.unit.parameter, sensitivity), size)

    def cells(self, counts: Mapping[str, int]) -> dict[str, int]:
        """Every cell plus its own unit draw."""
        keys = list(counts)
        draws = self.draws(len(keys))
        return {k: int(counts[k]) + z for k, z in zip(keys, draws, strict=True)}

    def scaled_variance(self, sensitivity: int) -> float:
        """The variance of one draw for a contribution of sensitivity Δ."""
        return self.mechanism.variance(self.mechanism.scaled(self.unit.parameter, sensitivity))


@dataclass(frozen=True)
class ExpectedError:
    """A part's expected SE with the central noise and without it (``sampling_std_error``);
    ``value_range`` is max − min for a number's mean (None: a proportion); a grid sum also gives
    its grid and the noise SD of its released sum."""

    std_error: float
    sampling_std_error: float
    value_range: float | None = None
    grid: NumberGrid | None = None
    sum_std_error: float | None = None


@dataclass(frozen=True)
class GroupData:
    """One group's counts of a question: its cells (histograms) or its count and sum (numbers)."""

    cells: Mapping[str, int] | None = None
    sums: CountAndSum | None = None


@dataclass(frozen=True)
class QuestionRelease:
    """A question's entry over all respondents, and one per group (empty when not grouped)."""

    overall: ReleaseEntry
    by_group: dict[str, ReleaseEntry]


_N = TypeVar("_N")


class _Part(Protocol[_N]):
    def noisy(
        self, noiser: Noiser, *, cells: Mapping[str, int] | None, sums: CountAndSum | None
    ) -> _N: ...

    def summed(self, parts: Sequence[_N]) -> _N: ...

    def entry(
        self, key: str, kind: str, noisy: _N, *, noiser: Noiser, groups: int, confidence: float
    ) -> ReleaseEntry: ...


class ReleasesQuestion:
    """A part's :meth:`release`, the same for every part (their base class): ``self`` is typed
    by the protocol of what a part does, checked where ``release`` is called."""

    def release(
        self: _Part[_N],
        *,
        key: str,
        kind: str,
        noiser: Noiser,
        data: Mapping[str, GroupData],
        grouped: bool,
        confidence: float,
    ) -> QuestionRelease:
        """Noise every group's counts of one question and read its entries. Not grouped: ``data``
        holds the one group "" of all respondents. Grouped: only the groups' counts get noise; the
        overall value is their sum (post-processing, free), whose noise variance is G·V."""

        def noisy(group: str) -> _N:
            given = data[group]
            return self.noisy(noiser, cells=given.cells, sums=given.sums)

        if not grouped:
            entry = self.entry(key, kind, noisy(""), noiser=noiser, groups=1, confidence=confidence)
            return QuestionRelease(entry, {})
        values = {group: noisy(group) for group in data}
        by_group = {
            group: self.entry(key, kind, value, noiser=noiser, groups=1, confidence=confidence)
            for group, value in values.items()
        }
        overall = self.entry(
            key,
            kind,
            self.summed(list(values.values())),
            noiser=noiser,
            groups=len(values),
            confidence=confidence,
        )
        return QuestionRelease(overall, by_group)


#: The function form, the part first (``release_question(part, key=…, …)``).
release_question = ReleasesQuestion.release
