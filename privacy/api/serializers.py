"""Output shapes of the releases and budget API (docs/api.md#releases, docs/api.md#budget).
Input is validated by :class:`privacy.inputs.ReleaseRequestSerializer`, which names every bad
field."""

from __future__ import annotations

import dataclasses
import datetime
from typing import Any

from django.urls import reverse
from rest_framework import serializers

from dpcore.central.release_entries import ReleaseEntry, ReleaseResults
from privacy.models import Release


def release_url(release: Release) -> str:
    return reverse("privacy-release-detail", args=[str(release.pk)])


class RemainingBudgetSerializer(serializers.Serializer):
    epsilon = serializers.FloatField()
    delta = serializers.FloatField()


class BudgetExceededSerializer(serializers.Serializer):
    error = serializers.CharField(help_text="budget_exceeded")
    detail = serializers.CharField()
    remaining = RemainingBudgetSerializer()


class QuestionPreviewSerializer(serializers.Serializer):
    key = serializers.CharField()
    kind = serializers.CharField()
    expected_std_error = serializers.FloatField()
    expected_half_width = serializers.FloatField()
    grid_step = serializers.FloatField(required=False, help_text="number questions")
    sum_sensitivity = serializers.IntegerField(required=False, help_text="number questions")
    expected_sum_std_error = serializers.FloatField(required=False, help_text="number questions")
    sampling_half_width = serializers.FloatField(
        help_text="The half-width without central noise (sampling and local randomization)."
    )
    target_half_width = serializers.FloatField(
        help_text="±10 percentage points (proportions) or ±10 % of the range (number means)."
    )
    useful = serializers.BooleanField(help_text="expected_half_width ≤ target_half_width")
    respondents_assumed = serializers.FloatField(
        help_text="Respondents (per group) who answered this question, as assumed here."
    )


class ReleasePreviewSerializer(serializers.Serializer):
    """The body of ``POST …/releases/preview/`` (:func:`privacy.services.release_preview`)."""

    mechanism = serializers.CharField()
    questions = QuestionPreviewSerializer(many=True)
    group_by = serializers.CharField(allow_null=True)
    groups = serializers.IntegerField()
    contributions = serializers.IntegerField()
    l1_sensitivity = serializers.FloatField()
    l2_sensitivity = serializers.FloatField()
    noise_scale = serializers.FloatField()
    analytic_sigma = serializers.FloatField(allow_null=True)
    rho = serializers.FloatField(allow_null=True)
    count_std_error = serializers.FloatField()
    epsilon_cost = serializers.FloatField()
    epsilon_spent_before = serializers.FloatField()
    epsilon_after = serializers.FloatField()
    method_after = serializers.CharField()
    epsilon_total = serializers.FloatField()
    delta_total = serializers.FloatField()
    fits = serializers.BooleanField()
    respondents_assumed = serializers.IntegerField()
    confidence = serializers.FloatField()
    respondents_per_group = serializers.FloatField()
    useful_half_width = serializers.FloatField(help_text="The target for proportions (0.10).")
    useful = serializers.BooleanField(help_text="Every question meets its target.")
    negative_count_chance = serializers.FloatField(
        help_text="P(noisy count < 0) at an average-sized cell (normal approximation)."
    )
    negative_count_warning = serializers.FloatField(help_text="The panel warns from this chance.")
    suggested_parameter = serializers.CharField(help_text="epsilon, or rho for gaussian with ρ.")
    suggested_value = serializers.FloatField(
        allow_null=True,
        help_text="Smallest ε (or ρ) meeting every target (privacy.services.advice).",
    )
    default_epsilon = serializers.FloatField(
        allow_null=True, help_text="The ε the panel proposes (null with ρ or no budget left)."
    )
    default_reason = serializers.CharField(help_text="target | half_remaining | exhausted | rho")


class ReleaseAcceptedSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.CharField()
    url = serializers.CharField()


class CoarseDateTimeField(serializers.DateTimeField):
    """A time truncated to the hour (UTC). A release's start and finish to the microsecond told
    *when* its counts were sampled, which, set against the arrival of one respondent, says
    whether the release contains them (issue 11, item 10). The hour is enough to read a history.
    """

    def to_representation(self, value: datetime.datetime | None) -> Any:
        if value is None:
            return None
        return super().to_representation(
            value.astimezone(datetime.UTC).replace(minute=0, second=0, microsecond=0)
        )


class ReleaseSerializer(serializers.ModelSerializer):
    survey = serializers.CharField(source="survey.slug")
    started_at = CoarseDateTimeField(read_only=True, allow_null=True)
    finished_at = CoarseDateTimeField(read_only=True, allow_null=True)
    url = serializers.SerializerMethodField()
    charged = serializers.SerializerMethodField()

    class Meta:
        model = Release
        fields = [
            "id",
            "url",
            "survey",
            "status",
            "mechanism",
            "epsilon",
            "charged_epsilon",
            "delta",
            "rho",
            "noise_scale",
            "l1_sensitivity",
            "l2_sensitivity",
            "questions",
            "group_by",
            "statistic",
            "quantile",
            "request_id",
            "created_at",
            "started_at",
            "finished_at",
            "attempts",
            "error",
            "charged",
            "results",
        ]

    def get_url(self, obj: Release) -> str:
        return release_url(obj)

    def get_charged(self, obj: Release) -> bool:
        entry = getattr(obj, "ledger_entry", None)
        return bool(entry is not None and not entry.refunded)


class ReleaseSummarySerializer(ReleaseSerializer):
    """A release without its results (lists, the budget endpoint)."""

    class Meta(ReleaseSerializer.Meta):
        fields = [f for f in ReleaseSerializer.Meta.fields if f != "results"]


class BudgetSerializer(serializers.Serializer):
    epsilon_total = serializers.FloatField()
    delta_total = serializers.FloatField()
    epsilon_spent = serializers.FloatField()
    epsilon_remaining = serializers.FloatField()
    method = serializers.CharField()
    candidates = serializers.DictField(child=serializers.FloatField(allow_null=True))
    releases = ReleaseSummarySerializer(many=True)


CSV_COLUMNS = [
    "release",
    "group",
    "question",
    "kind",
    "option",
    "noisy_count",
    "noisy_total",
    "noisy_sum",
    "estimate",
    "estimate_unclipped",
    "std_error",
    "ci_low",
    "ci_high",
    "confidence",
    "mechanism",
    "noise_scale",
]


def _rows_for(
    group: str, entries: list[ReleaseEntry], base: dict[str, Any]
) -> list[dict[str, Any]]:
    """Each entry's own rows (:meth:`rows` of the typed entries: one per option, "mean" for a
    number, π/γ/β for cheating detection) with the columns every row has."""
    rows = []
    for entry in entries:
        common = {
            **base,
            "group": group,
            "question": entry.key,
            "kind": entry.kind or "",
            "noisy_total": getattr(entry, "noisy_total", None),
        }
        for row in entry.rows():
            cells = dataclasses.asdict(row)
            if cells["noisy_sum"] is None:
                del cells["noisy_sum"]  # only a number's row has the column filled
            rows.append({**common, **cells})
    return rows


def csv_row(row: dict[str, Any]) -> list[Any]:
    """A row of :func:`release_csv_rows` as the CSV's raw cells, in ``CSV_COLUMNS`` order, for
    the one writer (deniable.csv_cells: text is ``'`` + the text). An absent field, and the ""
    group of all respondents, are empty (missing) cells, as in the estimates CSV."""
    return [None if row.get(column) == "" else row.get(column) for column in CSV_COLUMNS]


def release_csv_rows(release: Release) -> list[dict[str, Any]]:
    """One row per (group, question, option) of a done release; "" group = all respondents.

    A number question has one row, option "mean": ``noisy_count``, ``noisy_sum`` and the mean
    with its SE and interval in ``estimate``/``std_error``/``ci_low``/``ci_high``."""
    results = ReleaseResults.from_json(release.results or {})
    base = {
        "release": str(release.pk),
        "confidence": results.confidence,
        "mechanism": release.mechanism,
        "noise_scale": release.noise_scale,
    }
    rows = _rows_for("", results.questions, base)
    for group in results.groups or []:
        rows.extend(_rows_for(group.group, group.questions, base))
    return rows
