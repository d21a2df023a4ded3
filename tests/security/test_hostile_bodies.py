"""Issue 11 §6–§8, §10: hostile input is a 4xx JSON body naming the field, never a 500 and never a
database error, on both backends (CI runs this file on PostgreSQL too, where NUL was a DataError).

Each case here was reproduced as a 500, a stored Infinity or an accepted dangerous value before
the fix; the fuzzers (tests/fuzz/) then search around them.
"""

from __future__ import annotations

import json
import math
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from dpcore.central import accounting
from dpcore.central.accounting import PureDPEvent
from dpcore.central.events import group_events
from dpcore.central.exact import exact_pure
from privacy.models import Release
from surveys.api.estimates import estimates_body as survey_estimates
from surveys.models import Question, Submission, Survey, Tally
from tests.security.support import QUESTIONS, api_answers

pytestmark = pytest.mark.django_db

NESTED = "[" * 1000 + "]" * 1000  # ~2 KB: Python's decoder recursed past its limit (a 500)


def _post(client: Client, url: str, body: str | bytes, token: str | None = None, **extra: Any):
    headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
    content_type = extra.pop("content_type", "application/json")
    return client.post(url, body, content_type=content_type, **headers, **extra)


def _errors(response) -> dict[str, list[str]]:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"errors"}, body
    return body["errors"]


def _endpoints(world) -> list[tuple[str, str | None]]:
    slug = world.survey.slug
    return [
        (f"/api/v1/surveys/{slug}/responses/", None),
        ("/api/v1/auth/token/", None),
        ("/api/v1/surveys/", world.token_a),
        (f"/api/v1/surveys/{world.draft.slug}/", world.token_a),  # PATCH below
        ("/api/v1/designs/preview/", world.token_a),
        (f"/api/v1/surveys/{slug}/releases/", world.token_a),
        (f"/api/v1/surveys/{slug}/releases/preview/", world.token_a),
        (f"/api/v1/surveys/{world.invite.slug}/invitations/", world.token_a),
    ]


@pytest.mark.parametrize(
    "body",
    [
        NESTED,
        '{"answers": ' + NESTED + "}",
        '{"title": "t", "questions": ' + "[" * 25 + "]" * 25 + "}",  # parses; past the cap
        '{"submission_id": ' + "{" * 30 + "}" * 30 + "}",
    ],
    ids=["bare", "in-answers", "depth-25", "objects"],
)
def test_deep_nesting_is_a_400_everywhere(world, body):
    client = Client()
    before = (Submission.objects.count(), Survey.objects.count(), Release.objects.count())
    for url, token in _endpoints(world):
        method = "patch" if url.endswith(f"{world.draft.slug}/") else "post"
        headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
        response = getattr(client, method)(url, body, content_type="application/json", **headers)
        assert response.status_code == 400, (url, response.status_code, response.content[:200])
        assert _errors(response), url
    assert (Submission.objects.count(), Survey.objects.count(), Release.objects.count()) == before


def test_non_utf8_and_unknown_charsets_are_400(world):
    client = Client()
    for url, token in _endpoints(world):
        for body, content_type in (
            (b'{"title": "\xff\xfe"}', "application/json"),
            (b'{"title": "\xff"}', "application/json; charset=no-such-charset"),  # → UTF-8
            (b'{"title": "x"}', "application/json; charset=bz2_codec"),  # bytes-to-bytes codec
            ('{"title": "é"}'.encode("utf-16"), "application/json; charset=utf-8"),
        ):
            headers = {"HTTP_AUTHORIZATION": f"Token {token}"} if token else {}
            # generic(): the bytes go out as given (post() would re-encode them to the charset).
            method = "PATCH" if url.endswith(f"{world.draft.slug}/") else "POST"
            response = client.generic(method, url, body, content_type=content_type, **headers)
            assert response.status_code == 400, (url, content_type, response.content[:200])
            assert _errors(response)


NUL = "a\x00b"
SURROGATE = "\ud800"


def _survey_body(**overrides: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"title": "T", "questions": json.loads(json.dumps(QUESTIONS))}
    body.update(overrides)
    return body


def _with_question(field: str, value: Any) -> dict[str, Any]:
    body = _survey_body()
    if field == "options":
        body["questions"][1]["options"] = ["North", value]
    else:
        body["questions"][0][field] = value
    return body


@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "lone-surrogate"])
@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda v: _survey_body(title=v), "title"),
        (lambda v: _survey_body(description=v), "description"),
        (lambda v: _with_question("text", v), "questions[0].text"),
        (lambda v: _with_question("options", v), "questions[1].options[1]"),
    ],
    ids=["title", "description", "question-text", "option"],
)
def test_unstorable_strings_in_a_survey_are_400_naming_the_field(world, bad, make, field):
    before = Survey.objects.count()
    response = _post(Client(), "/api/v1/surveys/", json.dumps(make(bad)), world.token_a)
    assert response.status_code == 400, response.content[:300]
    assert field in _errors(response), _errors(response)
    assert Survey.objects.count() == before


@pytest.mark.parametrize("bad", [NUL, SURROGATE], ids=["nul", "lone-surrogate"])
def test_unstorable_strings_elsewhere_are_400_naming_the_field(world, bad):
    client = Client()
    token = _post(client, "/api/v1/auth/token/", json.dumps({"username": bad, "password": "x"}))
    assert token.status_code == 400 and "username" in _errors(token)
    release = _post(
        client,
        f"/api/v1/surveys/{world.survey.slug}/releases/",
        json.dumps({"mechanism": "laplace", "epsilon": 0.1, "request_id": bad}),
        world.token_a,
    )
    assert release.status_code == 400 and "request_id" in _errors(release)
    submission = _post(
        client,
        f"/api/v1/surveys/{world.survey.slug}/responses/",
        json.dumps(
            {
                "submission_id": str(uuid.uuid4()),
                "randomizer": "browser",
                "answers": {**api_answers(), f"k{bad}": 1},
            }
        ),
    )
    assert submission.status_code == 400 and "answers" in _errors(submission)


@pytest.mark.parametrize(
    "closes_at",
    ["2024-13-45T00:00:00", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+01:00", "x" * 500],
)
def test_impossible_closes_at_is_400_naming_the_field(world, closes_at):
    client = Client()
    created = _post(
        client, "/api/v1/surveys/", json.dumps(_survey_body(closes_at=closes_at)), world.token_a
    )
    assert created.status_code == 400 and list(_errors(created)) == ["closes_at"]
    patched = client.patch(
        f"/api/v1/surveys/{world.draft.slug}/",
        json.dumps({"closes_at": closes_at}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {world.token_a}",
    )
    assert patched.status_code == 400 and list(_errors(patched)) == ["closes_at"]
    ok = _post(
        client,
        "/api/v1/surveys/",
        json.dumps(_survey_body(closes_at="9999-12-31T23:59:59Z")),
        world.token_a,
    )
    assert ok.status_code == 201, ok.content


# --- §6: number bounds and finite tallies -----------------------------------------------------


@pytest.mark.parametrize(
    ("lo", "hi", "field"),
    [(-1e300, 1e300, "min"), (0, 1e200, "max"), (-1e10, 0, "min"), (0, 1.0000001e9, "max")],
)
def test_number_bounds_are_capped(world, lo, hi, field):
    q = {"key": "x", "text": "X", "kind": "number", "min": lo, "max": hi}
    response = _post(
        Client(), "/api/v1/surveys/", json.dumps(_survey_body(questions=[q])), world.token_a
    )
    assert response.status_code == 400
    assert f"questions[0].{field}" in _errors(response)


def test_tallies_stay_finite_at_the_bounds(world):
    q = {"key": "x", "text": "X", "kind": "number", "min": -1e9, "max": 1e9}
    client = Client()
    created = _post(
        client, "/api/v1/surveys/", json.dumps(_survey_body(questions=[q])), world.token_a
    )
    assert created.status_code == 201
    slug = created.json()["slug"]
    assert _post(client, f"/api/v1/surveys/{slug}/open/", b"", world.token_a).status_code == 200
    for value in (1e9, -1e9, 1e9, 999_999_999.5):
        sid = str(uuid.uuid4())
        body = {"submission_id": sid, "randomizer": "browser", "answers": {"x": value}}
        assert (
            _post(client, f"/api/v1/surveys/{slug}/responses/", json.dumps(body)).status_code == 201
        )
    survey = Survey.objects.get(slug=slug)
    for tally in Tally.objects.filter(survey=survey):
        assert all(math.isfinite(float(x)) for x in tally.sums), tally.sums
    entry = survey_estimates(survey=survey)["questions"][0]
    assert all(math.isfinite(entry[k]) for k in ("mean", "std_error", "ci_low", "ci_high"))
    assert entry["std_error"] > 0


def test_a_question_stored_with_huge_bounds_cannot_store_infinity(world):
    """A survey created before the cap (bounds written past the service): an answer whose square
    overflows is refused at the boundary instead of turning the tally into Infinity."""
    survey = world.survey
    Question.objects.filter(survey=survey, key="hours").update(min_value=-1e300, max_value=1e300)
    survey.refresh_from_db()
    body = {
        "submission_id": str(uuid.uuid4()),
        "randomizer": "browser",
        "answers": api_answers(hours=1e200),
    }
    before = Submission.objects.count()
    response = _post(Client(), f"/api/v1/surveys/{survey.slug}/responses/", json.dumps(body))
    assert response.status_code == 400 and "answers.hours" in _errors(response)
    assert Submission.objects.count() == before
    for tally in Tally.objects.filter(survey=survey):
        assert all(math.isfinite(float(x)) for x in tally.sums)


def test_standard_error_is_never_silently_zero():
    """Σx² − n·x̄² cancels for a tiny spread around a large mean: the SE is then the rounding
    bound, not 0.0 (on PostgreSQL an overflowed Σx² once made it NaN → 0.0)."""
    from surveys.api.estimates import entry_body
    from surveys.selectors import NumberSums
    from surveys.selectors.estimates import number_estimate

    q = Question(key="x", text="X", kind="number", min_value=0, max_value=1e9)
    n = 1000
    xs = [1e9 - (i % 2) for i in range(n)]  # true SD ≈ 0.5
    sums = NumberSums(n=n, total=math.fsum(xs), total_sq=sum(x * x for x in xs))
    entry = entry_body(number_estimate(q, sums, 0.95))
    assert entry["std_error"] > 0
    assert entry["std_error"] >= 0.5 / math.sqrt(n) * 0.5  # at least the truth's order


# --- §8: δ capped; §10: the exact accountant at subnormal δ -------------------------------------


@pytest.mark.parametrize("delta", [0.9, 0.01, 1.0001e-3, 5e-324, 1e-101])
def test_survey_delta_is_capped(world, delta):
    response = _post(
        Client(),
        "/api/v1/surveys/",
        json.dumps(_survey_body(budget={"epsilon": 1.0, "delta": delta})),
        world.token_a,
    )
    assert response.status_code == 400 and "budget.delta" in _errors(response)


def test_survey_delta_at_the_cap_is_accepted(world):
    body = _survey_body(budget={"epsilon": 1.0, "delta": 1e-3})
    assert _post(Client(), "/api/v1/surveys/", json.dumps(body), world.token_a).status_code == 201


@pytest.mark.parametrize("delta", [0.5, 0.01, 2e-3])
def test_release_delta_is_capped(world, delta):
    response = _post(
        Client(),
        f"/api/v1/surveys/{world.survey.slug}/releases/",
        json.dumps({"mechanism": "gaussian", "epsilon": 0.5, "delta": delta}),
        world.token_a,
    )
    assert response.status_code == 400 and "delta" in _errors(response)


def test_builder_suggests_delta_below_one_over_n(world):
    client = Client()
    client.force_login(world.alice)
    html = client.get(reverse("survey-new")).content.decode()
    assert 'aria-describedby="b-delta-hint"' in html
    assert "below 1/n" in html and 'max="0.001"' in html


@pytest.mark.parametrize("delta", [5e-324, 1e-320, 1e-310, 2.2250738585072014e-308, 1e-300])
def test_exact_accountant_survives_subnormal_delta(delta):
    """δ = 5e-324 made ``_solve_exact`` overflow (d·e^{−ln A} with A ≈ 1e-320): a 500."""
    events = [PureDPEvent(0.2)] * 10_000
    result = accounting.epsilon_spent(events, delta)
    assert math.isfinite(result.epsilon) and 0 < result.epsilon <= 2000.0
    assert exact_pure(group_events(events), delta) >= exact_pure(group_events(events), 1e-100)
