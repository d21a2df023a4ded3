"""Releases API (DESIGN.md §5, §8): validation without charge, idempotency, eager lifecycle."""

from __future__ import annotations

import csv
import io

import pytest
from rest_framework.test import APIClient

from privacy.models import LedgerEntry, Release, ReleaseResultsImmutable
from privacy.services import release_run
from tests.privacy.release_fixtures import make_survey, make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner():
    return make_user("owner")


@pytest.fixture
def survey(owner):
    return make_survey(owner, epsilon=1.0, respondents=30)


@pytest.fixture
def client(owner):
    c = APIClient()
    c.force_authenticate(owner)
    return c


def url(survey, suffix=""):
    return f"/api/v1/surveys/{survey.slug}/releases/{suffix}"


def post_raw(client, path, text):
    return client.post(path, data=text, content_type="application/json")


BAD_BODIES = [
    ({"mechanism": "laplace", "epsilon": 0}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": -1}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": "NaN"}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": "Infinity"}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": "abc"}, "epsilon"),
    ({"mechanism": "laplace", "epsilon": True}, "epsilon"),
    ({"mechanism": "laplace"}, "epsilon"),
    ({"mechanism": "gaussian", "epsilon": 0.5, "delta": 0}, "delta"),
    ({"mechanism": "gaussian", "epsilon": 0.5, "delta": 1}, "delta"),
    ({"mechanism": "gaussian", "epsilon": 0.5, "delta": 1.5}, "delta"),
    ({"mechanism": "gaussian", "epsilon": 0.5}, "delta"),
    ({"mechanism": "gaussian", "rho": 0}, "rho"),
    ({"mechanism": "gaussian", "rho": -0.1}, "rho"),
    ({"mechanism": "gaussian", "rho": 0.1, "epsilon": 0.5, "delta": 1e-6}, "rho"),
    ({"mechanism": "gaussian"}, "rho"),
    ({"mechanism": "exponential", "epsilon": 0.5}, "mechanism"),
    ({"epsilon": 0.5}, "mechanism"),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": ["nope"]}, "questions"),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": "cheated"}, "questions"),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": ["age"]}, "questions"),
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": []}, "questions"),
    ({"mechanism": "laplace", "epsilon": 0.5, "group_by": "nope"}, "group_by"),
    ({"mechanism": "laplace", "epsilon": 0.5, "group_by": "cheated"}, "group_by"),
    ({"mechanism": "laplace", "epsilon": 0.5, "group_by": "age"}, "group_by"),
]


@pytest.mark.parametrize(("body", "field"), BAD_BODIES)
def test_bad_input_is_400_naming_the_field_and_charges_nothing(client, survey, body, field):
    for path in (url(survey), url(survey, "preview/")):
        response = client.post(path, body, format="json")
        assert response.status_code == 400, response.content
        assert field in response.json()["errors"]
    assert Release.objects.count() == 0
    assert LedgerEntry.objects.count() == 0


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_standard_json_literals_are_400_naming_the_field(client, survey, literal):
    response = post_raw(client, url(survey), '{"mechanism": "laplace", "epsilon": ' + literal + "}")
    assert response.status_code == 400
    assert "epsilon" in response.json()["errors"]
    response = post_raw(
        client, url(survey), '{"mechanism": "gaussian", "epsilon": 1, "delta": ' + literal + "}"
    )
    assert response.status_code == 400
    assert "delta" in response.json()["errors"]
    assert LedgerEntry.objects.count() == 0


def test_malformed_json_and_non_object_body_are_400(client, survey):
    assert post_raw(client, url(survey), "{nope").status_code == 400
    assert post_raw(client, url(survey), "[1, 2]").status_code == 400
    assert LedgerEntry.objects.count() == 0


def test_someone_elses_survey_is_404_and_charges_nothing(survey):
    other = APIClient()
    other.force_authenticate(make_user("mallory"))
    body = {"mechanism": "laplace", "epsilon": 0.5}
    assert other.post(url(survey), body, format="json").status_code == 404
    assert other.post(url(survey, "preview/"), body, format="json").status_code == 404
    assert other.get(url(survey)).status_code == 404
    assert other.get(f"/api/v1/surveys/{survey.slug}/budget/").status_code == 404
    assert LedgerEntry.objects.count() == 0


def test_anonymous_is_refused(survey):
    response = APIClient().post(
        url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json"
    )
    assert response.status_code in (401, 403)
    assert LedgerEntry.objects.count() == 0


def test_release_goes_pending_to_done_with_eager_tasks(
    client, survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        response = client.post(url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    assert response.status_code == 202
    body = response.json()
    assert set(body) == {"id", "status", "url"}
    assert body["status"] == "pending"
    assert len(callbacks) == 1

    detail = client.get(body["url"]).json()
    assert detail["status"] == "done"
    assert detail["survey"] == survey.slug
    assert detail["mechanism"] == "laplace"
    assert detail["epsilon"] == 0.5
    assert detail["noise_scale"] == pytest.approx(3 / 0.5)  # Q = 3: cheated, drug, region
    assert detail["finished_at"] is not None
    keys = [q["key"] for q in detail["results"]["questions"]]
    assert keys == ["cheated", "drug", "region"]
    cheated = detail["results"]["questions"][0]
    assert set(cheated["noisy_counts"]) == {"yes", "no"}
    assert all(isinstance(v, int) for v in cheated["noisy_counts"].values())
    for field in ("estimate", "std_error", "ci_low", "ci_high"):
        assert field in cheated
    assert 0.0 <= cheated["ci_low"] <= cheated["ci_high"] <= 1.0
    drug = detail["results"]["questions"][1]
    assert [o["option"] for o in drug["options"]] == ["none", "cannabis", "other"]

    listed = client.get(url(survey)).json()
    assert [r["id"] for r in listed] == [body["id"]]
    assert "results" not in listed[0]

    csv_response = client.get(body["url"] + "?format=csv")
    assert csv_response.status_code == 200
    assert csv_response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(csv_response.content.decode())))
    assert {r["question"] for r in rows} == {"cheated", "drug", "region"}
    assert len(rows) == 1 + 3 + 2


def test_grouped_release_has_every_group_and_sums_to_the_overall(
    client, survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url(survey),
            {"mechanism": "gaussian", "rho": 0.01, "group_by": "region"},
            format="json",
        )
    assert response.status_code == 202
    release = Release.objects.get(pk=response.json()["id"])
    assert release.questions == ["cheated", "drug"]  # not the group_by question itself
    assert release.l1_sensitivity == 2.0
    assert release.noise_scale == pytest.approx((2 / (2 * 0.01)) ** 0.5)
    results = release.results
    assert [g["group"] for g in results["groups"]] == ["north", "south"]
    overall = {q["key"]: q["noisy_counts"] for q in results["questions"]}
    for key, counts in overall.items():
        for cell, value in counts.items():
            assert value == sum(
                next(q for q in g["questions"] if q["key"] == key)["noisy_counts"][cell]
                for g in results["groups"]
            )


def test_release_detail_of_someone_else_is_404(client, survey):
    response = client.post(url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    other = APIClient()
    other.force_authenticate(make_user("mallory"))
    assert other.get(response.json()["url"]).status_code == 404
    assert client.get("/api/v1/releases/not-a-uuid/").status_code == 404
    assert client.get("/api/v1/releases/00000000-0000-4000-8000-000000000000/").status_code == 404


def test_csv_of_a_pending_release_is_409(client, survey):
    response = client.post(url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    assert client.get(response.json()["url"] + "?format=csv").status_code == 409
    assert client.get(response.json()["url"] + "?format=xml").status_code == 400


def test_same_request_id_returns_the_same_release_and_charges_once(client, survey):
    body = {"mechanism": "laplace", "epsilon": 0.4, "request_id": "run-42"}
    first = client.post(url(survey), body, format="json")
    second = client.post(url(survey), body, format="json")
    assert first.status_code == 202
    assert second.status_code == 200
    assert first.json()["id"] == second.json()["id"]
    assert Release.objects.count() == 1
    assert LedgerEntry.objects.count() == 1
    # Even at a budget that could not afford a second charge, the retry succeeds.
    third = client.post(url(survey), {**body, "epsilon": 0.9}, format="json")
    assert third.status_code == 200
    assert third.json()["id"] == first.json()["id"]


def test_results_are_immutable_once_done(client, survey, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    release = Release.objects.get(pk=response.json()["id"])
    stored = release.results
    # Re-running (a redelivered task) skips a done release.
    assert release_run(release_id=release.pk) == "done"
    release.refresh_from_db()
    assert release.results == stored
    # The model refuses to change the results or the status...
    release.results = {"questions": []}
    with pytest.raises(ReleaseResultsImmutable):
        release.save()
    release.refresh_from_db()
    release.status = Release.Status.FAILED
    with pytest.raises(ReleaseResultsImmutable):
        release.save()
    # ... and so does the database trigger, for bulk updates.
    from django.db import DatabaseError, transaction

    with pytest.raises(DatabaseError), transaction.atomic():
        Release.objects.filter(pk=release.pk).update(results={"questions": []})
    release.refresh_from_db()
    assert release.results == stored
    assert release.status == "done"
    # Other fields (none today) may still be saved with the same results.
    release.save()


def test_failure_before_results_refunds_the_charge(client, survey, monkeypatch):
    response = client.post(url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    release_id = response.json()["id"]
    import privacy.services as services

    def boom(**kwargs):
        raise RuntimeError("counts unavailable")

    monkeypatch.setattr("surveys.selectors.survey_counts", boom)
    with pytest.raises(RuntimeError):
        services.release_run(release_id=release_id)
    release = Release.objects.get(pk=release_id)
    assert release.status == "failed"
    assert release.results is None
    assert "RuntimeError" in release.error and "counts unavailable" not in release.error
    assert LedgerEntry.objects.get(release=release).refunded
    budget = client.get(f"/api/v1/surveys/{survey.slug}/budget/").json()
    assert budget["epsilon_spent"] == 0.0
    # A failed release is final: a redelivery does not resurrect it.
    monkeypatch.undo()
    assert services.release_run(release_id=release_id) == "failed"


def test_enqueue_failure_leaves_the_release_pending_for_the_sweeper(
    client, survey, monkeypatch, django_capture_on_commit_callbacks
):
    from privacy import services, tasks

    warnings: list[str] = []
    monkeypatch.setattr(services.logger, "warning", lambda msg, *args: warnings.append(msg % args))

    def broker_down(*args, **kwargs):
        raise ConnectionError("redis down")

    monkeypatch.setattr(tasks.release_compute, "apply_async", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    assert response.status_code == 202
    release = Release.objects.get(pk=response.json()["id"])
    assert release.status == "pending"
    assert len(warnings) == 1
    assert "enqueue failed" in warnings[0]
    assert "redis down" not in warnings[0]  # only the exception type is logged
    monkeypatch.undo()
    from privacy.services import releases_sweep

    assert releases_sweep(pending_after_seconds=0) == [str(release.pk)]
    release.refresh_from_db()
    assert release.status == "done"
    assert LedgerEntry.objects.filter(refunded=False).count() == 1


def test_dashboard_partial_renders_without_inline_script(rf, owner, survey):
    from django.template.loader import render_to_string

    request = rf.get("/")
    request.user = owner
    html = render_to_string("privacy/_releases.html", {"survey": survey}, request=request)
    assert f'data-releases-url="/api/v1/surveys/{survey.slug}/releases/"' in html
    assert f'data-budget-url="/api/v1/surveys/{survey.slug}/budget/"' in html
    assert "js/releases.js" in html
    assert "<script>" not in html and "onclick" not in html
    assert 'value="age"' not in html  # number questions are not releasable
    assert '<option value="region">' in html
