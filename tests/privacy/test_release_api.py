"""Releases API (docs/api.md#releases): validation without charge, idempotency, eager lifecycle."""

from __future__ import annotations

import csv
import io
import math

import pytest
from rest_framework.test import APIClient

from privacy.models import LedgerEntry, Release, ReleaseResultsImmutable
from privacy.services import release_run
from testsupport.factories import api_client, make_user
from testsupport.factories import make_release_survey as make_survey

pytestmark = pytest.mark.django_db


@pytest.fixture
def survey(owner):
    return make_survey(owner, epsilon=1.0, respondents=30)


@pytest.fixture
def client(owner):
    return api_client(owner)


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
    ({"mechanism": "laplace", "epsilon": 0.5, "questions": ["age", "age"]}, "questions"),
    (
        {"mechanism": "laplace", "epsilon": 0.5, "questions": ["region"], "group_by": "region"},
        "questions",
    ),
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
    # m = 5 contributions: cheated, drug, region (one each) and age (sum and count).
    assert detail["noise_scale"] == pytest.approx(5 / 0.5)
    assert detail["l1_sensitivity"] == 5.0
    assert detail["finished_at"] is not None
    keys = [q["key"] for q in detail["results"]["questions"]]
    assert keys == ["cheated", "drug", "region", "age"]
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
    assert {r["question"] for r in rows} == {"cheated", "drug", "region", "age"}
    assert len(rows) == 1 + 3 + 2 + 1
    age_row = next(r for r in rows if r["question"] == "age")
    assert age_row["option"] == "mean"
    assert float(age_row["noisy_sum"]) == detail["results"]["questions"][3]["noisy_sum"]


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
    assert release.questions == ["cheated", "drug", "age"]  # not the group_by question itself
    assert release.l1_sensitivity == 4.0  # m = 1 + 1 + 2
    assert release.noise_scale == pytest.approx((4 / (2 * 0.01)) ** 0.5)
    results = release.results
    assert [g["group"] for g in results["groups"]] == ["north", "south"]
    age = next(q for q in results["questions"] if q["key"] == "age")
    age_groups = [next(q for q in g["questions"] if q["key"] == "age") for g in results["groups"]]
    assert age["noisy_sum_units"] == sum(a["noisy_sum_units"] for a in age_groups)
    assert age["noisy_count"] == sum(a["noisy_count"] for a in age_groups)
    assert age["sum_noise_variance"] == pytest.approx(2 * age_groups[0]["sum_noise_variance"])
    overall = {q["key"]: q["noisy_counts"] for q in results["questions"] if q["kind"] != "number"}
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


def test_a_database_blip_keeps_the_charge_and_the_retry_finishes(client, survey, monkeypatch):
    """OperationalError (a restart, a failover) is transient: no refund, no failure; the task's
    autoretry runs the release again and it completes with its one charge."""
    from django.db import OperationalError

    response = client.post(url(survey), {"mechanism": "laplace", "epsilon": 0.5}, format="json")
    release_id = response.json()["id"]
    import privacy.services as services

    def blip(**kwargs):
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setattr("surveys.selectors.survey_counts", blip)
    with pytest.raises(OperationalError):
        services.release_run(release_id=release_id)
    release = Release.objects.get(pk=release_id)
    assert release.status == "running" and release.results is None
    assert not LedgerEntry.objects.get(release=release).refunded
    monkeypatch.undo()
    assert services.release_run(release_id=release_id) == "done"
    release.refresh_from_db()
    assert release.attempts == 2 and release.results is not None
    assert LedgerEntry.objects.filter(release=release, refunded=False).count() == 1


def test_enqueue_failure_leaves_the_release_pending_for_the_sweeper(
    client, survey, monkeypatch, django_capture_on_commit_callbacks
):
    from privacy import services, tasks

    warnings: list[str] = []
    monkeypatch.setattr(services.logger, "warning", lambda msg, *args: warnings.append(msg % args))

    def broker_down(*args, **kwargs):
        raise ConnectionError("redis down")

    monkeypatch.setattr(tasks.release_compute, "apply_async", broker_down)
    # A broker outage is a broker-mode event (embedded mode fails and refunds instead:
    # tests/privacy/test_embedded_mode.py).
    monkeypatch.setitem(tasks.release_compute.app.conf, "task_always_eager", False)
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
    assert 'value="age" checked' in html  # number questions are released by default
    assert '<option value="region">' in html


def test_number_question_release_completes_with_sane_fields(
    client, survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url(survey),
            {"mechanism": "laplace", "epsilon": 0.5, "questions": ["cheated", "age"]},
            format="json",
        )
    assert response.status_code == 202
    detail = client.get(response.json()["url"]).json()
    assert detail["status"] == "done"
    assert detail["l1_sensitivity"] == 3.0  # cheated + age's sum and count
    assert detail["noise_scale"] == pytest.approx(3 / 0.5)
    age = detail["results"]["questions"][1]
    assert age["key"] == "age" and age["kind"] == "number"
    assert (age["min"], age["max"]) == (18.0, 99.0)
    assert age["grid_step"] == 0.05
    assert age["sum_sensitivity"] == 1981  # ⌈99/0.05⌉ + 1
    assert isinstance(age["noisy_sum_units"], int)
    assert isinstance(age["noisy_count"], int)
    assert age["noisy_sum"] == pytest.approx(0.05 * age["noisy_sum_units"])
    assert age["count_std_error"] > 0 and age["sum_std_error"] > age["count_std_error"]
    if age["noisy_count"] > 0:
        assert 18.0 <= age["mean"] <= 99.0
        assert age["mean"] == age["estimate"]
        assert 18.0 <= age["ci_low"] <= age["mean"] <= age["ci_high"] <= 99.0
        assert age["std_error"] > 0 and age["note"] is None
    else:
        assert age["mean"] is None and age["note"]


def test_number_release_is_accurate_at_a_large_epsilon(
    client, owner, django_capture_on_commit_callbacks
):
    """ε = 200 on age alone (m = 2): t = 1/100, the sum's scale is K·t = 19.81 grid units
    (≈ 1 year) and the count's noise is 0 except with probability ≈ 2e^-100. |noise on the
    sum| ≥ 400 grid units (20 years) has probability e^(−400/19.81) ≈ 2e-9."""
    rich = make_survey(owner, epsilon=5000.0, respondents=30)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url(rich),
            {"mechanism": "laplace", "epsilon": 200, "questions": ["age"]},
            format="json",
        )
    assert response.status_code == 202
    age = client.get(response.json()["url"]).json()["results"]["questions"][0]
    true_sum = sum(20 + i % 50 for i in range(30))  # 1035
    assert age["noisy_count"] == 30
    assert abs(age["noisy_sum"] - true_sum) < 20
    assert age["mean"] == pytest.approx(true_sum / 30, abs=0.7)
    # The conservative sampling term dominates the SE: ((99 − 18)/2)²/30.
    assert age["std_error"] == pytest.approx(40.5 / math.sqrt(30), rel=1e-2)


def test_grouped_number_release_gives_every_group(
    client, survey, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            url(survey),
            {"mechanism": "laplace", "epsilon": 0.5, "questions": ["age"], "group_by": "region"},
            format="json",
        )
    results = Release.objects.get(pk=response.json()["id"]).results
    assert [g["group"] for g in results["groups"]] == ["north", "south"]
    parts = [g["questions"][0] for g in results["groups"]]
    overall = results["questions"][0]
    assert overall["noisy_sum_units"] == sum(p["noisy_sum_units"] for p in parts)
    assert overall["noisy_count"] == sum(p["noisy_count"] for p in parts)
    assert overall["noise_variance"] == pytest.approx(2 * parts[0]["noise_variance"])


def test_number_release_does_not_depend_on_the_float_margin(client, survey, monkeypatch):
    """Issue 11, item 9 — this test used to assert the opposite (fail and refund past the float
    margin: a data-dependent refusal). The release sums exactly now, so the float-safe n of the
    grid plays no part: shrunk to 10 (30 answers here), the release still runs."""
    from dpcore.central import sensitivity as release_math

    monkeypatch.setattr(release_math, "max_safe_respondents", lambda lo, hi, step=None: 10)
    response = client.post(
        url(survey), {"mechanism": "laplace", "epsilon": 0.5, "questions": ["age"]}, format="json"
    )
    release_run(release_id=response.json()["id"])
    release = Release.objects.get(pk=response.json()["id"])
    assert release.status == "done" and release.results is not None
    assert not LedgerEntry.objects.get(release=release).refunded


def test_preview_of_a_number_question(client, survey):
    response = client.post(
        url(survey, "preview/"),
        {"mechanism": "gaussian", "rho": 0.1, "questions": ["age"]},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["contributions"] == 2
    assert body["noise_scale"] == pytest.approx(math.sqrt(2 / 0.2))
    age = body["questions"][0]
    assert age["sum_sensitivity"] == 1981
    assert age["expected_sum_std_error"] == pytest.approx(0.05 * 1981 * math.sqrt(10), rel=1e-9)
    assert age["expected_half_width"] > age["expected_std_error"] > 40.5 / math.sqrt(30)
