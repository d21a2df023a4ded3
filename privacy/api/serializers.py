"""Output shapes of the releases and budget API (DESIGN.md §8). Input is validated by
:func:`privacy.services.release_plan`, which names every bad field."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from rest_framework import serializers

from privacy.models import Release


def release_url(release: Release) -> str:
    return reverse("privacy-release-detail", args=[str(release.pk)])


class ReleaseRequestSerializer(serializers.Serializer):
    """Documentation only (OpenAPI): the body of ``POST …/releases/``."""

    mechanism = serializers.ChoiceField(choices=["laplace", "gaussian"])
    epsilon = serializers.FloatField(required=False)
    delta = serializers.FloatField(required=False)
    rho = serializers.FloatField(required=False)
    questions = serializers.ListField(child=serializers.CharField(), required=False)
    group_by = serializers.CharField(required=False)
    request_id = serializers.CharField(required=False, max_length=100)


class ReleaseAcceptedSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    status = serializers.CharField()
    url = serializers.CharField()


class ReleaseSerializer(serializers.ModelSerializer):
    survey = serializers.CharField(source="survey.slug")
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
            "delta",
            "rho",
            "noise_scale",
            "l1_sensitivity",
            "l2_sensitivity",
            "questions",
            "group_by",
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
    "estimate",
    "estimate_unclipped",
    "std_error",
    "ci_low",
    "ci_high",
    "confidence",
    "mechanism",
    "noise_scale",
]


def _rows_for(release: Release, group: str, questions: list[dict[str, Any]], base: dict):
    for q in questions:
        common = {
            **base,
            "group": group,
            "question": q["key"],
            "kind": q.get("kind", ""),
            "noisy_total": q.get("noisy_total"),
        }
        if q.get("options") is not None:
            for opt in q["options"]:
                yield {
                    **common,
                    "option": opt["option"],
                    "noisy_count": opt["noisy_count"],
                    "estimate": opt["estimate"],
                    "estimate_unclipped": opt["estimate_unclipped"],
                    "std_error": opt["std_error"],
                    "ci_low": opt["ci_low"],
                    "ci_high": opt["ci_high"],
                }
        else:
            yield {
                **common,
                "option": "yes",
                "noisy_count": q["noisy_counts"].get("yes"),
                "estimate": q.get("estimate"),
                "estimate_unclipped": q.get("estimate_unclipped"),
                "std_error": q.get("std_error"),
                "ci_low": q.get("ci_low"),
                "ci_high": q.get("ci_high"),
            }


def release_csv_rows(release: Release) -> list[dict[str, Any]]:
    """One row per (group, question, option) of a done release; "" group = all respondents."""
    results = release.results or {}
    base = {
        "release": str(release.pk),
        "confidence": results.get("confidence"),
        "mechanism": release.mechanism,
        "noise_scale": release.noise_scale,
    }
    rows = list(_rows_for(release, "", results.get("questions", []), base))
    for group in results.get("groups") or []:
        rows.extend(_rows_for(release, group["group"], group["questions"], base))
    return rows
