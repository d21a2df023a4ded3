"""Issue 21, item 4: every count anyone can read moves only by whole batches (DESIGN §8.5).

One walk over everything a researcher (API and pages) or the public can read about a survey —
estimates (JSON, CSV, grouped), export metadata and rows, the survey list and detail, invitation
counts (API and page), the dashboard, the regression endpoint, the respondent page — taken after
every single submission: nothing read may differ from the previous read unless that submission
completed a batch. Before the fix the export metadata's ``respondents`` and the invitations'
``used``/``remaining`` moved with each submission.

Two reads with nothing submitted in between must be identical too, so the normalisation (CSRF
tokens, nonces, one-time form ids, shuffled row order) hides only what changes on every request.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client, override_settings

from surveys.models import Survey
from testsupport import factories
from testsupport.factories import full_answers, survey_body

K = 3
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]

# What changes on every request, whatever was submitted.
_VOLATILE = [
    re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"'),
    re.compile(r'nonce="[^"]*"'),
    re.compile(r'name="submission_id" value="[^"]*"'),
    re.compile(r'"submission_id": "[^"]*"'),
]


def _page(text: str) -> str:
    for pattern in _VOLATILE:
        text = pattern.sub("", text)
    return text


def _rows_sorted(text: str) -> list[str]:
    """A shuffled CSV: its rows as a multiset (order is random by design, not a count)."""
    return sorted(text.splitlines())


def _export_json(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "rows": sorted(json.dumps(r, sort_keys=True) for r in body["rows"])}


def _read(client: Client, path: str) -> Any:
    r = client.get(path)
    assert r.status_code in (200, 400), (path, r.status_code)
    return r


def _text(client: Client, path: str) -> str:
    r = _read(client, path)
    if r.streaming:
        return b"".join(r.streaming_content).decode()
    return r.content.decode()


def readable(researcher: Client, public: Client, survey: Survey) -> dict[str, Any]:
    """Everything readable about the survey, keyed by where it was read."""
    api = f"/api/v1/surveys/{survey.slug}"
    json_paths = [
        "/api/v1/surveys/",
        f"{api}/",
        f"{api}/invitations/",
        f"{api}/estimates/",
        f"{api}/estimates/?group_by=age",
        f"{api}/estimates/?group_by=age&compare=true",
        f"{api}/responses/export/metadata/",
        f"{api}/regression/?outcome=coin&predictors=age",
        f"{api}/budget/",
    ]
    seen: dict[str, Any] = {}
    for path in json_paths:
        r = _read(researcher, path)
        seen[path] = (r.status_code, r.json())
    # The release preview costs nothing, so it is read as often as anything else.
    for release in (
        {"mechanism": "laplace", "epsilon": 0.5},
        {"mechanism": "gaussian", "rho": 0.1},
    ):
        r = researcher.post(f"{api}/releases/preview/", release, content_type="application/json")
        assert r.status_code == 200, r.content
        seen[f"release preview {release['mechanism']}"] = r.json()
    for path in (f"{api}/estimates/?format=csv", f"{api}/estimates/?group_by=age&format=csv"):
        seen[path] = _text(researcher, path)
    seen["export csv"] = _rows_sorted(_text(researcher, f"{api}/responses/export/?format=csv"))
    seen["export json"] = _export_json(
        json.loads(_text(researcher, f"{api}/responses/export/?format=json"))
    )
    pages = (
        "/surveys/",
        f"/surveys/{survey.slug}/",
        # Every dashboard section (overview above; results with the breakdown and comparisons).
        f"/surveys/{survey.slug}/results/",
        f"/surveys/{survey.slug}/results/?group_by=age",
        f"/surveys/{survey.slug}/analysis/",
        f"/surveys/{survey.slug}/releases/",
        f"/surveys/{survey.slug}/sharing/",
        f"/surveys/{survey.slug}/invitations/",
    )
    for path in pages:
        seen[path] = _page(_text(researcher, path))
    seen["respondent page"] = _page(_text(public, f"/s/{survey.slug}/"))
    return seen


def _changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    return [where for where in before if before[where] != after[where]]


@override_settings(DENIABLE_ESTIMATE_BATCH=K)
def test_every_readable_count_moves_only_when_a_batch_is_published(alice) -> None:
    survey = factories.make_survey(alice, survey_body(access="invite"))
    survey.refresh_from_db()
    tokens = factories.invitations_create(survey=survey, count=3 * K)
    researcher, public = Client(), Client()
    researcher.force_login(alice)
    before = readable(researcher, public, survey)
    assert _changed(before, readable(researcher, public, survey)) == []  # reads are stable
    for i, token in enumerate(tokens[: 2 * K + 1], start=1):
        answers = full_answers(age="young" if i % 2 else "old", coin=bool(i % 3))
        if i % 4 == 1:
            del answers["hours"]  # an optional question: its own n differs from respondents
        assert factories.submit(survey, answers, token=token).status == "accepted"
        after = readable(researcher, public, survey)
        changed = _changed(before, after)
        if i % K:
            assert changed == [], f"submission {i} (no batch published) changed {changed}"
        else:
            # The batch moved the counts (and the estimates) everywhere they are shown.
            for where in (
                f"/api/v1/surveys/{survey.slug}/invitations/",
                f"/api/v1/surveys/{survey.slug}/estimates/",
                f"/api/v1/surveys/{survey.slug}/responses/export/metadata/",
                "/api/v1/surveys/",
                "export csv",
                f"/surveys/{survey.slug}/",
                f"/surveys/{survey.slug}/invitations/",
            ):
                assert where in changed, (i, where)
            meta = after[f"/api/v1/surveys/{survey.slug}/responses/export/metadata/"][1]
            assert meta["respondents"] == i
            invitations = after[f"/api/v1/surveys/{survey.slug}/invitations/"][1]
            assert invitations["used"] == i
            assert invitations["remaining"] == 3 * K - i
        before = after
