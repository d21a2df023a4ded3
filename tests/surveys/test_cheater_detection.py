"""The cheating-detection design (CDMsym, Clark & Desharnais 1998) through the API (issue 15):
spec, answers {group, report}, per-group tally cells, estimates of π, γ, β against the core and
against the truth of simulated respondents. Expected numbers are derived here from the model."""

from __future__ import annotations

import json
import math
import uuid

import numpy as np
import pytest

from dpcore.local.cheater import cheater_detection, estimate_cheater_detection
from surveys.models import Survey

pytestmark = pytest.mark.django_db

# Group 1: forced yes ¼, forced no ¼ (truth ½): ε₁ = ln(¾/¼) = ln 3.
# Group 2: forced yes ½, forced no ¼ (truth ¼): ε₂ = max(|ln(¾/½)|, |ln(½/¼)|) = ln 2.
GROUPS = [{"p_yes": 0.25, "p_no": 0.25}, {"p_yes": 0.5, "p_no": 0.25}]
DESIGN = {"name": "cheater_detection", "groups": GROUPS}
BODY = {
    "title": "Cheating detection",
    "questions": [
        {"key": "cdm", "text": "I have taken a bribe.", "kind": "yes_no", "design": DESIGN},
        {"key": "age", "text": "Age group", "kind": "category", "options": ["young", "old"]},
    ],
}


def url(survey: Survey, suffix: str = "") -> str:
    return f"/api/v1/surveys/{survey.slug}/{suffix}"


def _open_survey(api) -> Survey:
    r = api.post("/api/v1/surveys/", BODY, format="json")
    assert r.status_code == 201, r.content
    survey = Survey.objects.get(slug=r.json()["slug"])
    assert api.post(url(survey, "open/")).status_code == 200
    survey.refresh_from_db()
    return survey


def _submit(anon, survey: Survey, answer, age: str = "young"):
    body = {
        "submission_id": str(uuid.uuid4()),
        "randomizer": "browser",
        "answers": {"cdm": answer, "age": age},
    }
    return anon.post(url(survey, "responses/"), body, format="json")


def test_spec_is_stored_with_exact_local_epsilon(api):
    survey = _open_survey(api)
    body = api.get(url(survey)).json()
    design = next(q for q in body["questions"] if q["key"] == "cdm")["design"]
    assert design["name"] == "cheater_detection" and design["groups"] == GROUPS
    estimates = api.get(url(survey, "estimates/")).json()
    entry = next(q for q in estimates["questions"] if q["key"] == "cdm")
    # A respondent is in one group, drawn independently of the answer: ε = max(ln 3, ln 2).
    assert entry["epsilon"] == pytest.approx(math.log(3), abs=1e-9)
    assert entry["design"]["group_epsilons"] == pytest.approx([math.log(3), math.log(2)])
    assert estimates["epsilon_local_total"] == pytest.approx(math.log(3), abs=1e-9)


@pytest.mark.parametrize(
    ("design", "field"),
    [
        ({"name": "cheater_detection", "groups": [GROUPS[0]]}, "groups"),
        ({"name": "cheater_detection", "groups": [GROUPS[0], GROUPS[0]]}, "groups"),
        (
            {"name": "cheater_detection", "groups": [{"p_yes": 0.0, "p_no": 0.2}, GROUPS[1]]},
            "p_yes",
        ),
        ({"name": "cheater_detection"}, "groups"),
    ],
)
def test_bad_specs_are_400_naming_the_field(api, design, field):
    body = {
        "title": "x",
        "questions": [{"key": "q", "text": "Q?", "kind": "yes_no", "design": design}],
    }
    r = api.post("/api/v1/surveys/", body, format="json")
    assert r.status_code == 400, r.content
    assert any(field in path for path in r.json()["errors"]), r.json()


@pytest.mark.parametrize(
    "answer",
    [
        True,
        {"group": 3, "report": True},
        {"group": True, "report": True},
        {"group": 1},
        {"group": 1, "report": "yes"},
        {"group": 1, "report": True, "truth": False},
        [1, True],
    ],
)
def test_bad_answers_are_400(api, anon, answer):
    survey = _open_survey(api)
    r = _submit(anon, survey, answer)
    assert r.status_code == 400, r.content
    assert "answers.cdm" in r.json()["errors"]


@pytest.mark.slow  # 2,000 respondents posted through the API (~14 s): make test and CI run it
def test_simulated_respondents_recover_pi_and_gamma(api, anon):
    """n = 2000 respondents, group drawn ½ each; π = 0.3 honest yes, γ = 0.15 cheaters (always
    "no"), β = 0.55 honest no.

    λ₁ = π·¾ + β·¼ = 0.3625, λ₂ = π·¾ + β·½ = 0.5; A = [[¾, ¼], [¾, ½]], det A = 3/16, so
    A⁻¹ = [[8/3, −4/3], [−4, 4]]; π̂ = 8/3·λ̂₁ − 4/3·λ̂₂ and γ̂ = 1 − π̂ − β̂ = 1 + 4/3·λ̂₁ − 8/3·λ̂₂.
    With n_i ≈ 1000: Var π̂ ≈ (64/9·0.2311 + 16/9·0.25)/1000 ⇒ SE ≈ 0.046; Var γ̂ ≈ (16/9·0.2311 +
    64/9·0.25)/1000 ⇒ SE ≈ 0.047. Tolerance 5 SE (≈ 0.23): a false failure below 10⁻⁶."""
    survey = _open_survey(api)
    rng = np.random.default_rng(19981122)
    n, yes, reports = [0, 0], [0, 0], 2000
    for i in range(reports):
        group = 1 + int(rng.random() < 0.5)
        g = GROUPS[group - 1]
        kind = rng.random()
        u = rng.random()
        if kind < 0.15:  # cheater: "no" whatever the device says
            report = False
        elif u < g["p_yes"]:
            report = True
        elif u < g["p_yes"] + g["p_no"]:
            report = False
        else:
            report = bool(kind < 0.15 + 0.3)  # honest: the truth
        n[group - 1] += 1
        yes[group - 1] += report
        r = _submit(anon, survey, {"group": group, "report": report}, "young" if i % 2 else "old")
        assert r.status_code in (200, 201), r.content
    estimates = api.get(url(survey, "estimates/")).json()
    entry = next(q for q in estimates["questions"] if q["key"] == "cdm")
    assert entry["groups"] == [
        {"group": 1, "n": n[0], "reported_yes": yes[0]},
        {"group": 2, "n": n[1], "reported_yes": yes[1]},
    ]
    lam1, lam2 = yes[0] / n[0], yes[1] / n[1]
    assert entry["honest_yes"]["estimate_unclipped"] == pytest.approx(8 / 3 * lam1 - 4 / 3 * lam2)
    assert entry["cheaters"]["estimate_unclipped"] == pytest.approx(1 + 4 / 3 * lam1 - 8 / 3 * lam2)
    se_pi = math.sqrt(
        (8 / 3) ** 2 * lam1 * (1 - lam1) / n[0] + (4 / 3) ** 2 * lam2 * (1 - lam2) / n[1]
    )
    assert entry["honest_yes"]["std_error"] == pytest.approx(se_pi)
    assert entry["estimate"] == entry["honest_yes"]["estimate"]
    assert abs(entry["honest_yes"]["estimate"] - 0.3) < 5 * 0.046
    assert abs(entry["cheaters"]["estimate"] - 0.15) < 5 * 0.047
    for name in ("honest_yes", "cheaters", "honest_no"):
        part = entry[name]
        assert part["ci_low"] <= part["estimate"] <= part["ci_high"]
    # Estimates equal the core's on the same counts.
    core = estimate_cheater_detection(cheater_detection(GROUPS), n=n, reported_yes=yes)
    assert entry["honest_no"]["estimate"] == pytest.approx(core.honest_no.estimate)
    assert entry["at_boundary"] is core.at_boundary

    grouped = api.get(url(survey, "estimates/?group_by=age")).json()
    per_age = {
        g["group"]: next(q for q in g["questions"] if q["key"] == "cdm") for g in grouped["groups"]
    }
    assert sum(e["n"] for e in per_age.values()) == reports
    assert set(per_age["young"]) >= {"honest_yes", "cheaters", "groups"}


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
        x for x in csv.DictReader(io.StringIO(as_csv.content.decode())) if x["question"] == "cdm"
    ]
    assert [x["option"] for x in rows] == ["honest_yes", "cheaters", "honest_no"]


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
        'RRreg::RRuni(response = "cdm", data = reports, model = "CDMsym", '
        'p = c(0.25, 0.25, 0.5, 0.25), group = reports[["cdm.group"]])'
    )
    assert columns["cdm"]["rrreg_parameter_order_verified"] is False
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
    html = client.get(f"/surveys/{survey.slug}/").content.decode()
    assert "honest yes (π)" in html and "(γ)" in html and "honest no (β)" in html
    assert 'id="boundary-note"' in html
    grouped = client.get(f"/surveys/{survey.slug}/?group_by=age")
    assert grouped.status_code == 200 and "(γ)" in grouped.content.decode()


def test_estimates_csv_has_a_row_per_parameter(api):
    import csv
    import io

    survey = _open_survey(api)
    r = api.get(url(survey, "estimates/?format=csv"))
    assert r.status_code == 200
    rows = [x for x in csv.DictReader(io.StringIO(r.content.decode())) if x["key"] == "'cdm"]
    assert [x["option"] for x in rows] == ["'honest_yes", "'cheaters", "'honest_no"]


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


@pytest.mark.parametrize(
    "answer",
    [
        {"group": 1e308, "report": True},
        {"group": "1", "report": True},
        {"group": [1], "report": True},
        {"group": {"a": 1}, "report": True},
        {"group": 1, "report": 1},
        {"group": 1, "report": None},
        "g1_yes",
        None,
    ],
)
def test_hostile_answers_are_400_never_500(api, anon, answer):
    survey = _open_survey(api)
    r = _submit(anon, survey, answer)
    assert r.status_code == 400, r.content
    assert "answers.cdm" in r.json()["errors"]


@pytest.mark.django_db(False)
def test_simulated_device_reports_at_the_model_rates():
    """surveys.simulation.randomize_cheater at π = 0.1, γ = 0.15, β = 0.75 (seed_demo's truth):
    λ₁ = 0.1·¾ + 0.75·¼ = 0.2625, λ₂ = 0.1·¾ + 0.75·½ = 0.45. 20 000 draws, ~10 000 per group:
    SE ≤ √(¼/10 000) = 0.005; tolerance 5 SE."""
    from surveys.simulation import randomize_cheater

    rng = np.random.default_rng(1998)
    n, yes = [0, 0], [0, 0]
    for _ in range(20000):
        u = rng.random()
        status = "honest_yes" if u < 0.1 else "cheater" if u < 0.25 else "honest_no"
        out = randomize_cheater(DESIGN, status, rng)
        n[out["group"] - 1] += 1
        yes[out["group"] - 1] += out["report"]
    assert abs(yes[0] / n[0] - 0.2625) < 0.025
    assert abs(yes[1] / n[1] - 0.45) < 0.025
    assert abs(n[0] / 20000 - 0.5) < 5 * math.sqrt(0.25 / 20000)


# --- the analysis of issue 14 needs one linear report model: cheater detection is refused -------


def test_regression_on_a_cheater_question_is_a_400_naming_outcome(api, anon):
    survey = _open_survey(api)
    for i in range(12):
        assert _submit(anon, survey, {"group": 1 + i % 2, "report": i % 3 == 0}).status_code in (
            200,
            201,
        )
    r = api.get(url(survey, "regression/"), {"outcome": "cdm", "predictors": "age"})
    assert r.status_code == 400, r.content
    assert "outcome" in json.dumps(r.json())
    assert "cheater" in json.dumps(r.json())


def test_comparisons_skip_a_cheater_question_without_failing(api, anon):
    survey = _open_survey(api)
    for i in range(20):
        answer = {"group": 1 + i % 2, "report": i % 3 == 0}
        _submit(anon, survey, answer, age="young" if i % 2 else "old")
    r = api.get(url(survey, "estimates/"), {"group_by": "age", "compare": "true"})
    assert r.status_code == 200, r.content
    entry = next(q for q in r.json()["questions"] if q["key"] == "cdm")
    assert "comparison" not in entry


def test_power_for_a_cheater_design_is_a_400_naming_the_design(api):
    body = {
        "kind": "yes_no",
        "design": DESIGN,
        "test": "one_sample",
        "pi0": 0.1,
        "pi1": 0.2,
        "power": 0.8,
    }
    r = api.post("/api/v1/designs/power/", body, format="json")
    assert r.status_code == 400, r.content
    assert "design" in json.dumps(r.json())
