"""Releases API (docs/api.md#releases): the eager lifecycle (pending → done, grouped), idempotency,
immutable results, refunds, a database blip and an enqueue failure."""

from __future__ import annotations

import csv
import io

import pytest
from rest_framework.test import APIClient

from privacy.models import LedgerEntry, Release, ReleaseResultsImmutable
from privacy.services import release_run
from tests.privacy.api.support import url
from testsupport.factories import make_user

pytestmark = pytest.mark.django_db


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
    # Text cells are "'" + the text, like every CSV (deniable/csv_cells.py).
    assert {r["question"] for r in rows} == {"'cheated", "'drug", "'region", "'age"}
    assert len(rows) == 1 + 3 + 2 + 1
    age_row = next(r for r in rows if r["question"] == "'age")
    assert age_row["option"] == "'mean" and age_row["group"] == ""
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
