"""A release's result entries as typed values, with their one JSON form and their CSV rows.

One entry per released question (docs/api.md#releases): its fields *are* the JSON body's keys,
in order; :meth:`as_json` is the one serializer and :func:`entry_from_json` the one reader of
stored results (the CSV too). Its release part picks it (:mod:`dpcore.central.release_parts`);
``kind`` is the caller's label, carried through (dpcore names no question kind).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

__all__ = [
    "CheaterEntry",
    "CheaterGroup",
    "GroupResults",
    "HistogramEntry",
    "MultiEntry",
    "NumberEntry",
    "OptionEstimate",
    "OptionHistogram",
    "ParameterEntry",
    "ProportionEntry",
    "ReleaseEntry",
    "ReleaseResults",
    "ResultRow",
    "SelectionEntry",
    "as_json",
    "entry_from_json",
]


def _as_json(value: object) -> Any:
    """A dataclass as its JSON object (fields in order), recursively; other values as they are."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _as_json(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, list):
        return [_as_json(item) for item in value]
    if isinstance(value, dict):
        return {k: _as_json(v) for k, v in value.items()}
    return value


def _from_json(cls: type[Any], data: Mapping[str, Any]) -> Any:
    """``cls`` from its JSON object: an absent key is None (results stored by older versions),
    nested entries through ``cls.nested``."""
    nested: Mapping[str, type[Any]] = getattr(cls, "nested", {})
    values: dict[str, Any] = {}
    for f in dataclasses.fields(cls):
        raw = data.get(f.name)
        inner = nested.get(f.name)
        if inner is not None and isinstance(raw, list):
            raw = [_from_json(inner, item) for item in raw]
        elif inner is not None and isinstance(raw, Mapping):
            raw = _from_json(inner, raw)
        values[f.name] = raw
    return cls(**values)


@dataclass(frozen=True)
class ResultRow:
    """One CSV row's own cells (the caller adds release, group, question, kind, noisy_total)."""

    option: str
    noisy_count: int | None
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    noisy_sum: float | None = None


@dataclass(frozen=True)
class OptionEstimate:
    """The debiased estimate of one cell (option) of a histogram."""

    option: str
    noisy_count: int
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None

    def row(self) -> ResultRow:
        return _option_row(self)


@dataclass(frozen=True)
class ProportionEntry:
    """A histogram whose one share is the question's estimate (a yes/no question's "yes")."""

    key: str
    kind: str
    noisy_counts: dict[str, int]
    noisy_total: int
    noise_variance: float
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    #: The share reported (the CSV row's option); not part of the JSON body.
    share: ClassVar[str] = "yes"

    def rows(self) -> list[ResultRow]:
        return [
            ResultRow(
                self.share,
                (self.noisy_counts or {}).get(self.share),
                self.estimate,
                self.estimate_unclipped,
                self.std_error,
                self.ci_low,
                self.ci_high,
            )
        ]


@dataclass(frozen=True)
class HistogramEntry:
    """A histogram with an estimate per option (no single estimate: those are None)."""

    key: str
    kind: str
    noisy_counts: dict[str, int]
    noisy_total: int
    noise_variance: float
    estimate: None
    std_error: None
    ci_low: None
    ci_high: None
    options: list[OptionEstimate]
    nested: ClassVar[Mapping[str, type[Any]]] = {"options": OptionEstimate}

    def rows(self) -> list[ResultRow]:
        return [option.row() for option in self.options]


@dataclass(frozen=True)
class OptionHistogram:
    """One option of a multi-select release: its (yes, no) histogram and the share of yes."""

    option: str
    noisy_counts: dict[str, int]
    noisy_count: int
    noisy_total: int
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None

    def row(self) -> ResultRow:
        return _option_row(self)


def _option_row(o: OptionEstimate | OptionHistogram) -> ResultRow:
    """One option's CSV row (the same cells for a histogram's option and a multi option)."""
    return ResultRow(
        o.option, o.noisy_count, o.estimate, o.estimate_unclipped, o.std_error, o.ci_low, o.ci_high
    )


@dataclass(frozen=True)
class MultiEntry:
    """k histograms (one per option, each its own contribution); no single estimate."""

    key: str
    kind: str
    noisy_counts: dict[str, dict[str, int]]
    noise_variance: float
    contributions: int
    estimate: None
    std_error: None
    ci_low: None
    ci_high: None
    options: list[OptionHistogram]
    nested: ClassVar[Mapping[str, type[Any]]] = {"options": OptionHistogram}

    def rows(self) -> list[ResultRow]:
        return [option.row() for option in self.options]


@dataclass(frozen=True)
class NumberEntry:
    """A bounded number's noisy grid sum and count, and their mean (``estimate`` = ``mean``)."""

    key: str
    kind: str
    min: float
    max: float
    grid_step: float
    sum_sensitivity: int
    noisy_sum_units: int
    noisy_sum: float
    noisy_count: int
    noisy_total: int
    sum_noise_variance: float
    sum_std_error: float
    noise_variance: float
    count_std_error: float
    mean: float | None
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    note: str | None

    def rows(self) -> list[ResultRow]:
        return [
            ResultRow(
                "mean",
                self.noisy_count,
                self.mean,
                self.estimate_unclipped,
                self.std_error,
                self.ci_low,
                self.ci_high,
                noisy_sum=self.noisy_sum,
            )
        ]


@dataclass(frozen=True)
class ParameterEntry:
    """One estimated parameter of cheating detection (π, γ or β)."""

    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None


@dataclass(frozen=True)
class CheaterGroup:
    group: int
    noisy_n: float | None
    noisy_reported_yes: float | None


@dataclass(frozen=True)
class CheaterEntry:
    """Cheating detection's four cells and π (``estimate``, also ``honest_yes``), γ, β."""

    key: str
    kind: str
    noisy_counts: dict[str, int]
    noisy_total: int
    noise_variance: float
    estimate: float | None
    estimate_unclipped: float | None
    std_error: float | None
    ci_low: float | None
    ci_high: float | None
    honest_yes: ParameterEntry
    cheaters: ParameterEntry
    honest_no: ParameterEntry
    at_boundary: bool
    groups: list[CheaterGroup]
    nested: ClassVar[Mapping[str, type[Any]]] = {
        "honest_yes": ParameterEntry,
        "cheaters": ParameterEntry,
        "honest_no": ParameterEntry,
        "groups": CheaterGroup,
    }
    parameters: ClassVar[tuple[str, ...]] = ("honest_yes", "cheaters", "honest_no")

    def rows(self) -> list[ResultRow]:
        """One row per parameter; the four noisy cells are in the JSON body's ``noisy_counts``."""
        empty = ParameterEntry(None, None, None, None, None)
        ps: list[tuple[str, ParameterEntry]] = [
            (name, getattr(self, name) or empty) for name in self.parameters
        ]
        return [
            ResultRow(n, None, p.estimate, p.estimate_unclipped, p.std_error, p.ci_low, p.ci_high)
            for n, p in ps
        ]


@dataclass(frozen=True)
class SelectionEntry:
    """A private selection (:mod:`dpcore.central.selection`): a median's or quantile's ``value``,
    or a mode's ``option``; ``expected_error`` a data-independent bound (its ``measure``)."""

    key: str
    kind: str
    statistic: str
    q: float | None
    value: float | None
    option: str | None
    epsilon: float | None
    expected_error: dict[str, Any] | None

    def rows(self) -> list[ResultRow]:
        """One row: "median" or "quantile q" (``estimate``: the value), or the mode's option."""
        if self.statistic == "mode":
            return [ResultRow(str(self.option), None, None, None, None, None, None)]
        label = "median" if self.statistic == "median" else f"quantile {self.q:g}"
        return [ResultRow(label, None, self.value, None, None, None, None)]


ReleaseEntry = (
    ProportionEntry | HistogramEntry | MultiEntry | NumberEntry | CheaterEntry | SelectionEntry
)


def as_json(entry: ReleaseEntry) -> dict[str, Any]:
    """The entry's JSON object (the release body's ``questions[i]``): the one serializer."""
    return dict(_as_json(entry))


def entry_from_json(data: Mapping[str, Any]) -> ReleaseEntry:
    """A stored entry read back: the one reader of stored results, telling the entries apart by
    the keys only their JSON has (stored results never change, so this reads every version)."""
    if "statistic" in data:
        entry: ReleaseEntry = _from_json(SelectionEntry, data)
    elif "grid_step" in data or "noisy_sum" in data:
        entry = _from_json(NumberEntry, data)
    elif "cheaters" in data:
        entry = _from_json(CheaterEntry, data)
    elif "contributions" in data:
        entry = _from_json(MultiEntry, data)
    elif data.get("options") is not None:
        entry = _from_json(HistogramEntry, data)
    else:
        entry = _from_json(ProportionEntry, data)
    return entry


@dataclass(frozen=True)
class GroupResults:
    """One group's entries (``group`` is the group-by question's option)."""

    group: str
    questions: list[ReleaseEntry]


@dataclass(frozen=True)
class ReleaseResults:
    """A release's results: the body's ``results`` (``groups`` only with a group-by)."""

    confidence: float | None
    mechanism: str | None
    noise_scale: float | None
    noise_variance: float | None
    group_by: str | None
    questions: list[ReleaseEntry]
    groups: list[GroupResults] | None = None

    def as_json(self) -> dict[str, Any]:
        """The one serializer of a release's results (stored once, served as stored)."""
        body: dict[str, Any] = {
            "confidence": self.confidence,
            "mechanism": self.mechanism,
            "noise_scale": self.noise_scale,
            "noise_variance": self.noise_variance,
            "group_by": self.group_by,
        }
        if self.groups is not None:
            body["groups"] = [
                {"group": g.group, "questions": [as_json(e) for e in g.questions]}
                for g in self.groups
            ]
        body["questions"] = [as_json(e) for e in self.questions]
        return body

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReleaseResults:
        """Stored results read back (absent parts are None or empty)."""
        groups = data.get("groups")
        return cls(
            confidence=data.get("confidence"),
            mechanism=data.get("mechanism"),
            noise_scale=data.get("noise_scale"),
            noise_variance=data.get("noise_variance"),
            group_by=data.get("group_by"),
            questions=[entry_from_json(e) for e in data.get("questions") or []],
            groups=None
            if groups is None
            else [
                GroupResults(g["group"], [entry_from_json(e) for e in g["questions"]])
                for g in groups
            ],
        )
