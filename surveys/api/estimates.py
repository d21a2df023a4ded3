"""Output shapes of GET …/estimates/: the JSON body and the CSV table, from the typed values of
``surveys.selectors.estimates`` (the renderers in ``deniable.renderers`` write them)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from django.utils.text import slugify
from rest_framework import serializers

from deniable import csv_cells
from deniable.renderers import CSVTable
from surveys.definitions.specs import Poststratification
from surveys.models import Survey
from surveys.selectors.estimates import (
    BinaryEstimate,
    CategoryEstimate,
    CheaterDetectionEstimate,
    ChoiceEstimate,
    MultiEstimate,
    NumberEstimate,
    QuestionEstimate,
    survey_estimates,
)


def _float() -> serializers.FloatField:
    return serializers.FloatField(allow_null=True)


class FitOut(serializers.Serializer):
    """The design's goodness of fit (docs/analysis.md#goodness-of-fit)."""

    statistic = serializers.CharField(help_text='"G2": the likelihood-ratio statistic.')
    value = serializers.FloatField()
    df = serializers.IntegerField()
    p_value = serializers.FloatField()
    note = serializers.CharField()


class _HeaderOut(serializers.Serializer):
    key = serializers.CharField()
    text = serializers.CharField()
    kind = serializers.CharField()
    epsilon = _float()
    design = serializers.JSONField(allow_null=True)
    fit = FitOut(allow_null=True, help_text="None where the design has no test.")


class BinaryOut(_HeaderOut):
    n = serializers.IntegerField()
    reported_yes = serializers.IntegerField()
    reported_yes_rate = _float()
    estimate = _float()
    estimate_unclipped = _float()
    std_error = _float()
    ci_low = _float()
    ci_high = _float()


class ParameterOut(serializers.Serializer):
    estimate = _float()
    estimate_unclipped = _float()
    std_error = _float()
    ci_low = _float()
    ci_high = _float()


class CheaterGroupOut(serializers.Serializer):
    group = serializers.IntegerField()
    n = serializers.IntegerField()
    reported_yes = serializers.IntegerField()


class CheaterOut(BinaryOut):
    """Cheating detection (docs/api.md#estimates): ``estimate`` is π = ``honest_yes``; γ is
    ``cheaters``, β ``honest_no``; ``at_boundary`` when the ML estimate is on the simplex edge."""

    honest_yes = ParameterOut()
    cheaters = ParameterOut()
    honest_no = ParameterOut()
    at_boundary = serializers.BooleanField()
    groups = CheaterGroupOut(many=True)


class OptionOut(serializers.Serializer):
    option = serializers.CharField()
    reported = serializers.IntegerField()
    reported_rate = _float()
    estimate = _float()
    estimate_unclipped = _float()
    std_error = _float()
    ci_low = _float()
    ci_high = _float()


class MeanScoreOut(ParameterOut):
    """An ordered choice question's debiased mean score, options scored ``min``..``max``."""

    min = serializers.IntegerField(help_text="The first option's score (1).")
    max = serializers.IntegerField(help_text="The last option's score (k).")


class ChoiceOut(_HeaderOut):
    """``mean_score`` only for an ordered (Likert) question (docs/api.md#estimates)."""

    n = serializers.IntegerField()
    options = OptionOut(many=True)
    mean_score = MeanScoreOut(required=False, allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        body = dict(super().to_representation(instance))
        if body.get("mean_score") is None:
            body.pop("mean_score", None)
        return body


class MultiOptionOut(OptionOut):
    """A choice option's fields, and the option's own n (respondents who answered it)."""

    n = serializers.IntegerField()


class MultiOut(_HeaderOut):
    """Multi-select (docs/api.md#multi): ``epsilon`` is the sum over the options of
    ``epsilon_per_option``; each option is a yes/no estimate (``reported``: its YES reports)."""

    n = serializers.IntegerField()
    epsilon_per_option = _float()
    options = MultiOptionOut(many=True)


class CategoryShareOut(serializers.Serializer):
    option = serializers.CharField()
    count = serializers.IntegerField()
    share = _float()


class CategoryOut(_HeaderOut):
    n = serializers.IntegerField()
    options = CategoryShareOut(many=True)


class NumberOut(_HeaderOut):
    n = serializers.IntegerField()
    min = _float()
    max = _float()
    mean = _float()
    std_error = _float()
    ci_low = _float()
    ci_high = _float()


_ENTRY_SERIALIZERS: dict[type, type[serializers.Serializer]] = {
    BinaryEstimate: BinaryOut,
    CheaterDetectionEstimate: CheaterOut,
    ChoiceEstimate: ChoiceOut,
    CategoryEstimate: CategoryOut,
    NumberEstimate: NumberOut,
    MultiEstimate: MultiOut,
}


def entry_body(entry: QuestionEstimate) -> dict[str, Any]:
    """One question's entry as it appears in the JSON body (its fields depend on its kind)."""
    # The nearest registered class: a kind's own estimate type that extends one (the unrelated
    # question with an unknown prevalence: a yes/no entry) is shown as that one.
    serializer = next(_ENTRY_SERIALIZERS[c] for c in type(entry).__mro__ if c in _ENTRY_SERIALIZERS)
    return dict(serializer(entry).data)


class QuestionEntryField(serializers.Field):
    """A question's estimate, shaped by the serializer of its kind."""

    def to_representation(self, value: QuestionEstimate) -> dict[str, Any]:
        return entry_body(value)


class GroupOut(serializers.Serializer):
    group = serializers.CharField()
    suppressed = serializers.BooleanField()
    respondents = serializers.IntegerField(allow_null=True)
    questions = serializers.ListField(child=QuestionEntryField())


class SurveyEstimatesOut(serializers.Serializer):
    """The JSON body of GET …/estimates/ (docs/api.md#estimates); ``group_by`` and ``groups`` only
    when grouped."""

    survey = serializers.CharField()
    title = serializers.CharField()
    status = serializers.CharField()
    respondents = serializers.IntegerField()
    planned_n = serializers.IntegerField(allow_null=True)
    estimate_batch = serializers.IntegerField()
    confidence = serializers.FloatField()
    epsilon_local_total = serializers.FloatField()
    questions = serializers.ListField(child=QuestionEntryField())
    group_by = serializers.CharField(allow_null=True)
    groups = GroupOut(many=True, allow_null=True)
    poststratified_by = serializers.CharField(allow_null=True)
    shares = serializers.DictField(child=serializers.FloatField(), allow_null=True)

    def to_representation(self, instance: Any) -> dict[str, Any]:
        body = dict(super().to_representation(instance))
        if body.get("group_by") is None:
            body.pop("group_by", None)
            body.pop("groups", None)
        if body.get("poststratified_by") is None:
            body.pop("poststratified_by", None)
            body.pop("shares", None)
        return body


def estimates_body(
    *,
    survey: Survey,
    confidence: Any = 0.95,
    group_by: str | None = None,
    poststratify: Poststratification | None = None,
) -> dict[str, Any]:
    """The JSON body of GET …/estimates/ for ``survey`` (the selector, then the serializer)."""
    estimates = survey_estimates(
        survey=survey, confidence=confidence, group_by=group_by, poststratify=poststratify
    )
    return dict(SurveyEstimatesOut(estimates).data)


# --- CSV ----------------------------------------------------------------------------------------

ESTIMATE_COLUMNS = [
    "survey", "group_by", "group", "suppressed", "group_respondents", "key", "kind", "option",
    "epsilon",
    "design", "confidence", "n", "reported_yes", "reported_yes_rate", "reported",
    "reported_rate", "count", "share", "mean", "estimate", "estimate_unclipped", "std_error",
    "ci_low", "ci_high", "poststratified_by", "shares",
]  # fmt: skip
# Written as text cells (deniable.csv_cells: "'" + the exact text); every other column is a
# number.
ESTIMATE_TEXT_COLUMNS = frozenset(
    {"survey", "group_by", "group", "key", "kind", "option", "design", "poststratified_by",
     "shares"}
)  # fmt: skip


def _shares_cell(shares: Mapping[str, Any] | None) -> str:
    """The weights W_h of a post-stratified row, ``<option>=<share>`` separated by spaces."""
    return " ".join(f"{option}={share:.12g}" for option, share in (shares or {}).items())


def _design_cell(design: Mapping[str, Any] | None) -> str:
    if not design:
        return ""
    return " ".join(f"{k}={v}" for k, v in design.items())


def _estimate_cell(column: str, value: Any) -> csv_cells.Cell:
    """The raw value for the one writer: "" (no group, no design) is missing; a text column's
    value as ``str`` (the writer tags it)."""
    if value is None or value == "":
        return None
    if column in ESTIMATE_TEXT_COLUMNS:
        return str(value)
    return value


#: An ordered choice question's mean-score row in the CSV (its ``option`` cell).
MEAN_SCORE_ROW = "mean_score"

#: Cheating detection's rows in the CSV, one per parameter (π, γ, β), named in ``option``.
CHEATER_PARAMETERS = ("honest_yes", "cheaters", "honest_no")


def _question_rows(base: dict[str, Any], q: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A question's rows: one per option (choice/category; an ordered choice adds a row with
    ``option`` "mean_score"), one per parameter (cheating detection: ``option`` honest_yes,
    cheaters, honest_no), else one."""
    if "options" in q:
        rows = [{**base, **option} for option in q["options"]]
        if q.get("mean_score") is not None:
            score = {k: v for k, v in q["mean_score"].items() if k in ESTIMATE_COLUMNS}
            rows.append({**base, **score, "option": MEAN_SCORE_ROW})
        return rows
    flat = {**base, **{k: v for k, v in q.items() if k in ESTIMATE_COLUMNS}}
    if "cheaters" in q:
        return [{**flat, "option": name, **q[name]} for name in CHEATER_PARAMETERS]
    return [flat]


def _suppressed_rows(body: Mapping[str, Any], group: str) -> Iterator[list[Any]]:
    """A suppressed group (fewer than k respondents): one row per question, naming it, with
    ``suppressed`` 1 and every figure empty."""
    for q in body["questions"]:
        row = {
            "survey": body["survey"],
            "group_by": body.get("group_by", ""),
            "group": group,
            "suppressed": 1,
            "key": q["key"],
            "kind": q["kind"],
        }
        yield [_estimate_cell(k, row.get(k)) for k in ESTIMATE_COLUMNS]


def _estimate_rows(body: Mapping[str, Any]) -> Iterator[list[Any]]:
    """One row per question (choice/category: per option), per group with ``group_by``."""
    blocks = [("", body["respondents"], body["questions"], False)]
    blocks += [
        (g["group"], g["respondents"], g["questions"], bool(g.get("suppressed")))
        for g in body.get("groups", [])
    ]
    for group, respondents, questions, suppressed in blocks:
        if suppressed:
            yield from _suppressed_rows(body, group)
            continue
        for q in questions:
            base = {
                "survey": body["survey"],
                "group_by": body.get("group_by", "") if group != "" else "",
                "group": group,
                "suppressed": 0,
                "group_respondents": respondents,
                "key": q["key"],
                "kind": q["kind"],
                "epsilon": q["epsilon"],
                "design": _design_cell(q["design"]),
                "confidence": body["confidence"],
                "n": q["n"],
                "poststratified_by": body.get("poststratified_by", ""),
                "shares": _shares_cell(body.get("shares")),
            }
            for row in _question_rows(base, q):
                row.update({k: base[k] for k in ("design", "group")})
                yield [_estimate_cell(k, row.get(k)) for k in ESTIMATE_COLUMNS]


def estimates_table(body: Mapping[str, Any]) -> CSVTable:
    """The estimates as a CSV table, cells written as every Deniable CSV writes them
    (deniable.csv_cells: text tagged with "'", numbers bare, missing empty)."""
    return CSVTable(header=ESTIMATE_COLUMNS, rows=list(_estimate_rows(body)))


def estimates_filename(
    slug: str, group_by: str | None, fmt: str, poststratified_by: str | None = None
) -> str:
    """Distinct names: ``<slug>-estimates.csv``, ``<slug>-estimates-by-<group>.csv`` and
    ``<slug>-estimates-weighted-by-<key>.csv`` (a browser would otherwise save one over another,
    or as ``(1)``)."""
    group = f"-by-{slugify(group_by)}" if group_by else ""
    if poststratified_by:
        group += f"-weighted-by-{slugify(poststratified_by)}"
    return f"{slugify(slug)}-estimates{group}.{fmt}"
