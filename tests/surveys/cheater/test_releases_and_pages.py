"""The cheater-detection design in releases, pages, export, builder preview and dashboard
(issue 15). Expected numbers are derived here from the model."""

from __future__ import annotations

import json
import math
import uuid

import pytest

from tests.surveys.cheater.support import BODY, DESIGN, url

pytestmark = pytest.mark.django_db


def test_central_dp_release_per_group_counts(api, alice, django_capture_on_commit_callbacks):
    """A Laplace release: the four cells (group × report) are one histogram (Δ = 1); π̂ and γ̂
    recomputed here from the released noisy counts by A⁻¹ = [[8/3, −4/3], [−4, 4]]."""
    from surveys import services
    from testsupport import factories as boundary

    survey = boundary.survey_create(
        owner=alice, data={**BODY, "budget": {"epsilon": 1.0, "delta": 1e-6}}
    )
    services.survey_open(survey=survey)
    for i in range(80):
        boundary.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={"cdm": {"group": 1 + i % 2, "report": i % 3 == 0}, "age": "young"},
        )
    preview = api.post(
        url(survey, "releases/preview/"), {"mechanism": "laplace", "epsilon": 0.5}, format="json"
    )
    assert preview.status_code == 200, preview.content
    entry = next(q for q in preview.json()["questions"] if q["key"] == "cdm")
    # Without noise, SE(π̂) = √(Σ_i (A⁻¹)₀ᵢ²·¼/(n/2)) = √((64/9 + 16/9)·¼/40) at n = 80.
    z = 1.959963984540054
    assert entry["sampling_half_width"] == pytest.approx(z * math.sqrt(80 / 9 * 0.25 / 40))
    assert entry["expected_half_width"] > entry["sampling_half_width"]
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(
            url(survey, "releases/"), {"mechanism": "laplace", "epsilon": 0.5}, format="json"
        )
    assert r.status_code == 202, r.content
    detail = api.get(r.json()["url"]).json()
    assert detail["status"] == "done", detail
    row = next(q for q in detail["results"]["questions"] if q["key"] == "cdm")
    counts = row["noisy_counts"]
    assert set(counts) == {"g1_yes", "g1_no", "g2_yes", "g2_no"}
    totals = [counts["g1_yes"] + counts["g1_no"], counts["g2_yes"] + counts["g2_no"]]
    if min(totals) >= 1:
        lam = [min(max(counts[f"g{i}_yes"] / totals[i - 1], 0.0), 1.0) for i in (1, 2)]
        assert row["honest_yes"]["estimate_unclipped"] == pytest.approx(
            8 / 3 * lam[0] - 4 / 3 * lam[1]
        )
        assert row["cheaters"]["estimate_unclipped"] == pytest.approx(
            1 + 4 / 3 * lam[0] - 8 / 3 * lam[1]
        )
        assert row["estimate"] == row["honest_yes"]["estimate"]
    import csv
    import io

    as_csv = api.get(r.json()["url"] + "?format=csv")
    assert as_csv.status_code == 200
    rows = [
        x for x in csv.DictReader(io.StringIO(as_csv.content.decode())) if x["question"] == "'cdm"
    ]  # text cells are "'" + the text, like every CSV (deniable/csv_cells.py)
    assert [x["option"] for x in rows] == ["'honest_yes", "'cheaters", "'honest_no"]


def test_page_gives_thresholds_per_group_and_words(client, alice):
    """Group 1: truth ½, YES ¼ → thresholds (2⁵²·1, 2⁵³·¾); group 2: truth ¼, YES ½ → (2⁵³·¼,
    2⁵³·¾). The words use the larger ratio over groups: YES max(¾/¼, ¾/½) = 3, NO
    max(¾/¼, ½/¼) = 3 (ε = ln 3)."""
    from surveys import services
    from testsupport import factories as boundary

    survey = boundary.survey_create(owner=alice, data=BODY)
    services.survey_open(survey=survey)
    page = client.get(f"/s/{survey.slug}/")
    assert page.status_code == 200
    html = page.content.decode()
    grid = 2**53
    item = next(q for q in page.context["data"]["questions"] if q["key"] == "cdm")
    exact = {
        "group_1_truth": grid // 2,
        "group_1_yes": 3 * grid // 4,
        "group_2_truth": grid // 4,
        "group_2_yes": 3 * grid // 4,
    }
    assert set(item["thresholds"]) == set(exact)
    # Each group's forced-response plan (dpcore.local.browser) rounds to the 2⁵³ grid: within
    # one unit of the exact cumulative probabilities.
    for name, value in exact.items():
        assert abs(item["thresholds"][name] - value) <= 1, name
    assert item["epsilon"] == pytest.approx(math.log(3))
    reports = item["protection"]["reports"]
    assert reports["yes"]["likelihood_ratio"] == pytest.approx(3.0)
    assert reports["no"]["likelihood_ratio"] == pytest.approx(3.0)
    assert len(item["protection"]["randomizer"]["groups"]) == 2
    assert "Heads: you are in group 1" in html
    assert 'name="q-cdm" value="g2_no' in html
    assert page.context["physical_possible"]


def test_no_js_post_stores_group_and_report(client, api, alice):
    from surveys import services
    from surveys.models import Submission
    from testsupport import factories as boundary

    survey = boundary.survey_create(owner=alice, data=BODY)
    services.survey_open(survey=survey)
    r = client.post(f"/s/{survey.slug}/submit/", {"q-cdm": "g2_no", "q-age": "young"})
    assert r.status_code == 302, r.content.decode()[:2000]
    r = client.post(f"/s/{survey.slug}/submit/", {"q-cdm": "g1_yes  ", "q-age": "old"})
    assert r.status_code == 302
    stored = sorted(
        (s.answers["cdm"] for s in Submission.objects.filter(survey=survey)),
        key=lambda a: a["group"],
    )
    assert stored == [{"group": 1, "report": True}, {"group": 2, "report": False}]
    bad = client.post(f"/s/{survey.slug}/submit/", {"q-cdm": "g3_yes", "q-age": "old"})
    assert bad.status_code == 400 or b"q-cdm" in bad.content


def test_export_has_a_group_column_and_the_cdmsym_call(api, alice):
    import csv
    import io

    from surveys import services
    from testsupport import factories as boundary

    survey = boundary.survey_create(owner=alice, data=BODY)
    services.survey_open(survey=survey)
    answers = [{"group": 1, "report": True}, {"group": 2, "report": False}]
    for answer in answers:
        boundary.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={"cdm": answer, "age": "old"},
        )
    r = api.get(url(survey, "responses/export/?format=csv"))
    assert r.status_code == 200, r.content
    text = b"".join(r.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["cdm", "cdm.group", "age"]
    assert sorted((row["cdm.group"], row["cdm"]) for row in rows) == [("1", "1"), ("2", "0")]
    meta = api.get(url(survey, "responses/export/metadata/")).json()
    columns = {c["key"]: c for c in meta["columns"]}
    assert columns["cdm"]["rrreg"] == (
        'RRreg::RRuni(response = cdm, data = reports, model = "CDMsym", '
        'p = c(0.25, 0.25, 0.5, 0.25), group = reports[["cdm.group"]])'
    )
    assert columns["cdm"]["rrreg_parameter_order_verified"] is True
    assert columns["cdm.group"]["type"] == "integer"
    as_json = api.get(url(survey, "responses/export/?format=json"))
    assert as_json.status_code == 200
    body = json.loads(b"".join(as_json.streaming_content))
    assert {"cdm": 1, "cdm.group": 1, "age": "old"} in body["rows"]


def test_builder_preview_gives_epsilon_and_n_per_group(api):
    """ε = max(ln 3, ln 2); n per group for ±5 points on π at the worst case λ_i = ½:
    ⌈1.96²·(64/9 + 16/9)·¼/0.05²⌉ (A⁻¹ row of π: 8/3, −4/3)."""
    r = api.post(
        "/api/v1/designs/preview/",
        {"kind": "yes_no", "design": DESIGN, "planned_n": 1000},
        format="json",
    )
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["epsilon"] == pytest.approx(math.log(3), abs=1e-9)
    assert body["group_epsilons"] == pytest.approx([math.log(3), math.log(2)])
    z = 1.959963984540054
    per_group = math.ceil(z * z * (80 / 9) * 0.25 / 0.05**2)
    assert body["sample_size_per_group_for_5pp"] == per_group
    assert body["sample_size_for_5pp"] == 2 * per_group
    assert body["planned_n_per_group"] == 500
    assert body["planned_half_width"] == pytest.approx(z * math.sqrt(80 / 9 * 0.25 / 500))
    # Deniability at the default 10 % prior with the larger YES ratio, 3: 0.3/(0.3 + 0.9).
    assert body["deniability"] == pytest.approx(0.25)


def test_dashboard_shows_pi_gamma_and_beta(client, alice):
    from surveys import services
    from testsupport import factories as boundary

    survey = boundary.survey_create(owner=alice, data=BODY)
    services.survey_open(survey=survey)
    # Group 1: 3 of 4 yes; group 2: 1 of 4 yes → λ̂ = (¾, ¼): π̂ = 8/3·¾ − 4/3·¼ = 5/3 > 1,
    # outside the simplex: the boundary note is shown.
    for group, yes in ((1, 3), (2, 1)):
        for i in range(4):
            boundary.submission_create(
                survey=survey,
                submission_id=str(uuid.uuid4()),
                randomizer="browser",
                answers={"cdm": {"group": group, "report": i < yes}, "age": "old"},
            )
    client.force_login(alice)
    html = client.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert "honest yes (π)" in html and "(γ)" in html and "honest no (β)" in html
    assert 'id="boundary-note"' in html
    grouped = client.get(f"/surveys/{survey.slug}/results/?group_by=age")
    assert grouped.status_code == 200 and "(γ)" in grouped.content.decode()


def test_grouped_release_sums_the_groups_cells(api, alice, django_capture_on_commit_callbacks):
    """With group_by, each age group's four cells get their own noise; the overall noisy cells
    are their sums (free), as for any histogram question."""
    from surveys import services
    from testsupport import factories as boundary

    survey = boundary.survey_create(
        owner=alice, data={**BODY, "budget": {"epsilon": 1.0, "delta": 1e-6}}
    )
    services.survey_open(survey=survey)
    for i in range(40):
        boundary.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={
                "cdm": {"group": 1 + i % 2, "report": i % 5 == 0},
                "age": "young" if i % 3 else "old",
            },
        )
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post(
            url(survey, "releases/"),
            {"mechanism": "laplace", "epsilon": 0.5, "group_by": "age"},
            format="json",
        )
    assert r.status_code == 202, r.content
    results = api.get(r.json()["url"]).json()["results"]
    overall = next(q for q in results["questions"] if q["key"] == "cdm")["noisy_counts"]
    per_group = [
        next(q for q in g["questions"] if q["key"] == "cdm")["noisy_counts"]
        for g in results["groups"]
    ]
    assert len(per_group) == 2
    for cell in ("g1_yes", "g1_no", "g2_yes", "g2_no"):
        assert overall[cell] == sum(c[cell] for c in per_group)
