"""API v1 (docs/api.md): estimates as JSON and CSV."""

from __future__ import annotations

import csv
import io

import pytest

from tests.surveys.api.support import some_responses, url

pytestmark = pytest.mark.django_db


def test_estimates_json(api, survey):
    some_responses(survey)
    r = api.get(url(survey, "estimates/"))
    assert r.status_code == 200
    body = r.json()
    assert set(body) >= {"survey", "respondents", "confidence", "epsilon_local_total", "questions"}
    coin = body["questions"][0]
    assert set(coin) >= {
        "key",
        "kind",
        "epsilon",
        "design",
        "n",
        "reported_yes",
        "reported_yes_rate",
        "estimate",
        "estimate_unclipped",
        "std_error",
        "ci_low",
        "ci_high",
    }
    assert coin["n"] == 12 and coin["reported_yes"] == 4
    party = body["questions"][2]
    assert set(party["options"][0]) >= {
        "option",
        "reported",
        "reported_rate",
        "estimate",
        "estimate_unclipped",
        "std_error",
        "ci_low",
        "ci_high",
    }
    assert body == api.get(url(survey, "estimates/?confidence=0.95")).json()
    grouped = api.get(url(survey, "estimates/?group_by=age&confidence=0.8")).json()
    assert grouped["confidence"] == 0.8
    assert [g["group"] for g in grouped["groups"]] == ["young", "old"]
    assert grouped["groups"][0]["respondents"] == 6


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("confidence=1", "confidence"),
        ("confidence=0", "confidence"),
        ("confidence=abc", "confidence"),
        ("confidence=NaN", "confidence"),
        ("group_by=coin", "group_by"),
        ("group_by=unknown", "group_by"),
        ("format=xml", "format"),
    ],
)
def test_estimates_400(api, survey, query, field):
    r = api.get(url(survey, f"estimates/?{query}"))
    assert r.status_code == 400
    assert field in r.json()["errors"]


def test_estimates_csv(api, survey):
    some_responses(survey)
    r = api.get(url(survey, "estimates/?format=csv&group_by=age"))
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    raw = list(csv.DictReader(io.StringIO(r.content.decode())))
    text_columns = {"survey", "group_by", "group", "key", "kind", "option", "design"}
    # Every non-empty text cell is "'" + the text (csv_cells); numbers are bare.
    assert all(row[k].startswith("'") for row in raw for k in text_columns if row[k])
    assert all(not row["estimate"].startswith("'") for row in raw)
    rows = [{k: v[1:] if k in text_columns and v else v for k, v in row.items()} for row in raw]
    coin = [row for row in rows if row["key"] == "coin"]
    assert len(coin) == 3  # overall + 2 groups
    overall = next(row for row in coin if row["group"] == "")
    assert (
        float(overall["estimate"])
        == api.get(url(survey, "estimates/")).json()["questions"][0]["estimate"]
    )
    party_rows = [row for row in rows if row["key"] == "party" and row["group"] == ""]
    assert [row["option"] for row in party_rows] == ["a", "b", "c", "d"]
    assert {"estimate", "std_error", "ci_low", "ci_high", "reported_yes_rate"} <= set(rows[0])
