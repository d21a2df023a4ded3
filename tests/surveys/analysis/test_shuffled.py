"""The shuffled file (issue 27; docs/exports.md#the-shuffled-file): the attacks of the audit,
written before the code.

* the old metadata claimed amplification for a file that did not exist (direct columns in the
  rows, ordered by the database's random(), re-drawn on every download, so two downloads differ
  and can be differenced);
* a row per respondent makes an optional question's empty cells a non-random pattern;
* the crosswise ε assumes the recipient cannot learn the innocuous fact.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from audit.models import Entry as AuditEntry
from dpcore.central import shuffle, shuffle_compose
from surveys import services
from surveys.analysis import shuffled
from surveys.definitions import question_designs as designs
from surveys.models import Collaborator, ShuffledExport, Submission
from tests.surveys.crosswise.test_statements import LIBRARY
from testsupport.factories import make_survey, make_user, reload, submit

pytestmark = pytest.mark.django_db

BODY: dict[str, Any] = {
    "title": "Shuffled file",
    "budget": {"epsilon": 5.0, "delta": 1e-6},
    "questions": [
        {"key": "cheated", "text": "Cheated?", "kind": "yes_no"},
        {
            "key": "party",
            "text": "Party?",
            "kind": "choice",
            "options": ["a", "b", "c"],
            "design": {"name": "k_rr", "epsilon": 1.0},
            "required": False,
        },
        {"key": "drugs", "text": "Used?", "kind": "multi", "options": ["x", "y"]},
        {
            "key": "copied",
            "text": "Copied?",
            "kind": "yes_no",
            "design": {
                "name": "crosswise",
                "innocuous_prevalence": LIBRARY["prevalence"],
                "innocuous_text": LIBRARY["text"],
            },
        },
        {"key": "region", "text": "Region", "kind": "category", "options": ["north", "south"]},
        {"key": "hours", "text": "Hours", "kind": "number", "min": 0, "max": 80},
    ],
}


def _answer(i: int) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "cheated": i % 3 == 0,
        "drugs": {"x": i % 2 == 0, "y": i % 5 == 0},
        "copied": i % 4 == 0,
        "region": "north" if i % 2 else "south",
        "hours": float(i % 17),
    }
    if i % 3:  # optional: a third of the respondents skip it
        answer["party"] = "abc"[i % 3]
    return answer


def _survey(owner: Any, n: int = 30, *, close: bool = True) -> Any:
    survey = make_survey(owner, BODY)
    for i in range(n):
        submit(survey, _answer(i))
    if close:
        services.survey_close(survey=reload(survey))
    return reload(survey)


def _url(survey: Any, fmt: str | None = "json") -> str:
    url = reverse("api-survey-export-shuffled", args=[survey.slug])
    return url if fmt is None else f"{url}?format={fmt}"


def _api(user: Any) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_two_downloads_are_byte_identical_in_both_formats():
    owner = make_user("owner")
    survey = _survey(owner)
    api = _api(owner)
    for fmt in ("json", "csv"):
        first, second = api.get(_url(survey, fmt)), api.get(_url(survey, fmt))
        assert first.status_code == second.status_code == 200, first.content
        assert first.content == second.content
        assert first["ETag"] == second["ETag"]
        assert (
            first["Content-Disposition"] == f'attachment; filename="{survey.slug}-shuffled.{fmt}"'
        )
    stored = ShuffledExport.objects.get(survey=survey)

    assert hashlib.sha256(api.get(_url(survey, "csv")).content).hexdigest() == stored.csv_sha256
    assert hashlib.sha256(api.get(_url(survey, "json")).content).hexdigest() == stored.json_sha256
    # CSV is the default, as for the reports export.
    assert api.get(_url(survey, None)).content == api.get(_url(survey, "csv")).content


def test_bad_format_is_400_naming_format():
    owner = make_user("owner")
    survey = _survey(owner, 3)
    r = _api(owner).get(_url(survey, "xlsx"))
    assert r.status_code == 400
    assert "format" in r.json()["errors"]
    assert not ShuffledExport.objects.exists()


def test_a_viewer_gets_the_same_file_a_stranger_a_404():
    owner, viewer, stranger = make_user("owner"), make_user("vera"), make_user("bob")
    survey = _survey(owner, 10)
    Collaborator.objects.create(survey=survey, user=viewer, role="viewer")
    mine = _api(owner).get(_url(survey)).content
    assert _api(viewer).get(_url(survey)).content == mine
    r = _api(stranger).get(_url(survey))
    assert r.status_code == 404
    assert b"reports" not in r.content
    assert Client().get(_url(survey)).status_code in (401, 403)


def test_the_download_is_audited_with_its_format():
    owner = make_user("owner")
    survey = _survey(owner, 4)
    _api(owner).get(_url(survey, "csv"))
    entry = AuditEntry.objects.filter(action="export.download").latest("pk")
    assert entry.detail == {"format": "csv", "file": "shuffled"}


def test_the_file_holds_only_the_randomized_reports_each_question_on_its_own():
    owner = make_user("owner")
    survey = _survey(owner, 30)
    body = _api(owner).get(_url(survey)).json()
    assert set(body) == {"survey", "file", "questions", "guarantee"}
    sections = {q["key"]: q for q in body["questions"]}
    # No direct column (region, hours), no crosswise (its ε assumes the innocuous fact unknown).
    assert list(sections) == ["cheated", "party", "drugs"]
    left = {q["key"]: q["reason"] for q in body["guarantee"]["left_out"]}
    assert set(left) == {"copied", "region", "hours"}
    assert "innocuous" in left["copied"] and "directly" in left["region"]
    assert sections["drugs"]["columns"] == ["drugs.x", "drugs.y"]
    assert sections["party"]["options"] == ["a", "b", "c"] and sections["party"]["kind"] == "choice"
    assert sections["party"]["design"]["k"] == 3
    # Each section is the multiset of that question's stored reports (the skipped are absent).
    stored = list(Submission.objects.filter(survey=survey, sealed=True).values_list("answers"))
    answers = [a for (a,) in stored]
    assert sections["cheated"]["n"] == 30 and sections["party"]["n"] == 20
    assert Counter(r[0] for r in sections["cheated"]["reports"]) == Counter(
        int(a["cheated"]) for a in answers
    )
    assert Counter(r[0] for r in sections["party"]["reports"]) == Counter(
        a["party"] for a in answers if "party" in a
    )
    assert Counter(tuple(r) for r in sections["drugs"]["reports"]) == Counter(
        (int(a["drugs"]["x"]), int(a["drugs"]["y"])) for a in answers
    )
    # No id, no date, no batch anywhere in the file.
    text = json.dumps(body["questions"])
    for forbidden in ["submission", "submitted_on", "sealed", "batch", "region", "north", "hours"]:
        assert forbidden not in text, forbidden
    for (sid,) in Submission.objects.filter(survey=survey).values_list("pk"):
        assert str(sid) not in text


def test_the_csv_has_the_same_sections_and_no_other_column():
    owner = make_user("owner")
    survey = _survey(owner, 30)
    api = _api(owner)
    csv_text = api.get(_url(survey, "csv")).content.decode()
    header, *rows = [line.split(",") for line in csv_text.split("\r\n") if line]
    assert header == ["cheated", "party", "drugs.x", "drugs.y"]
    assert len(rows) == 30
    # party has 20 reports: its block ends in 10 empty cells (padding, after every report).
    party = [row[1] for row in rows]
    assert all(party[:20]) and not any(party[20:])
    body = api.get(_url(survey, "json")).json()
    # Same shuffle in both encodings.
    assert [int(row[0]) for row in rows] == [r[0] for r in body["questions"][0]["reports"]]
    assert [row[1][1:] for row in rows[:20]] == [r[0] for r in body["questions"][1]["reports"]]


def test_rows_are_not_in_insertion_order():
    """With 50 reports of distinct values a uniform shuffle leaves them in stored order with
    probability 1/50! — the check cannot fail by chance."""
    owner = make_user("owner")
    survey = make_survey(
        owner,
        {
            "title": "Order",
            "budget": {"epsilon": 5.0, "delta": 1e-6},
            "questions": [
                {
                    "key": "pick",
                    "text": "Pick",
                    "kind": "choice",
                    "options": [f"o{i:02d}" for i in range(50)],
                    "design": {"name": "k_rr", "epsilon": 3.0},
                }
            ],
        },
    )
    for i in range(50):
        submit(survey, {"pick": f"o{i:02d}"})
    services.survey_close(survey=reload(survey))
    stored = [
        a["pick"]
        for (a,) in Submission.objects.filter(survey=survey).order_by("pk").values_list("answers")
    ]
    body = _api(owner).get(_url(reload(survey))).json()
    got = [r[0] for r in body["questions"][0]["reports"]]
    assert sorted(got) == sorted(stored) and got != stored and got != sorted(stored)


def test_fisher_yates_draws_randbelow_i_plus_one_from_the_top(monkeypatch):
    """The algorithm itself, with a scripted CSPRNG: for i = n−1 … 1 one call randbelow(i + 1),
    and item i swapped with the drawn j."""
    calls: list[int] = []
    script = iter([0, 2, 1, 0])  # j for i = 4, 3, 2, 1

    def randbelow(bound: int) -> int:
        calls.append(bound)
        return next(script)

    monkeypatch.setattr(shuffled.secrets, "randbelow", randbelow)
    items = ["a", "b", "c", "d", "e"]
    shuffled.fisher_yates(items)
    assert calls == [5, 4, 3, 2]
    # i=4,j=0: e b c d a; i=3,j=2: e b d c a; i=2,j=1: e d b c a; i=1,j=0: d e b c a.
    assert items == ["d", "e", "b", "c", "a"]
    shuffled.fisher_yates([])  # nothing to draw
    assert calls == [5, 4, 3, 2]


def test_the_shuffle_is_uniform_over_the_permutations():
    """24 000 shuffles of 4 items: each of the 24 orders expected 1000 times. Pearson's χ² with
    23 degrees of freedom exceeds 70.55 with probability 1e-6 under uniformity
    (scipy.stats.chi2.isf(1e-6, 23) = 70.5496), so a correct shuffle fails this once in 10⁶
    runs. The classic wrong shuffle (swap item i with any j in 0..n−1: 4⁴ = 256 equally likely
    paths onto 24 orders, 8 to 15 paths each) has an expected χ² of 715 here; Sattolo's
    off-by-one (j < i) reaches only the 6 cyclic orders."""
    draws = 24_000
    counts: Counter[tuple[int, ...]] = Counter()
    for _ in range(draws):
        items = [0, 1, 2, 3]
        shuffled.fisher_yates(items)
        counts[tuple(items)] += 1
    assert set(counts) <= set(itertools.permutations(range(4)))
    expected = draws / 24
    chi2 = sum(
        (counts.get(p, 0) - expected) ** 2 / expected for p in itertools.permutations(range(4))
    )
    assert chi2 < 70.55, (chi2, counts)


def test_the_guarantee_is_per_question_and_composed():
    owner = make_user("owner")
    survey = _survey(owner, 400)
    g = _api(owner).get(_url(survey)).json()["guarantee"]
    assert {"epsilon", "delta", "n", "local_epsilon", "method"} <= set(g)
    assert g["n"] == 400
    per = {q["key"]: q for q in g["questions"]}
    assert set(per) == {"cheated", "party", "drugs"}
    assert per["party"]["n"] == 266 and per["cheated"]["n"] == 400  # i % 3 != 0 answered party
    share = survey.budget_delta / 3
    for q in g["questions"]:
        assert q["delta"] == pytest.approx(share)
        k = designs.report_arity(survey.questions.get(key=q["key"]))
        expected = shuffle.shuffled_guarantee(q["n"], q["local_epsilon"], share, k)
        assert (q["epsilon"], q["method"]) == (expected.epsilon, expected.method)
        assert 0 < q["epsilon"] <= q["local_epsilon"]
    assert per["party"]["local_epsilon"] == 1.0
    # Each section is one column: a yes/no question gets the bound over every split of the
    # others' answers, a k-RR question the privacy blanket (below the 2023 clone bound).
    assert per["cheated"]["method"] == "histogram-splits"
    assert per["party"]["method"] == "privacy-blanket"
    assert g["method"] == "+".join(sorted({q["method"] for q in g["questions"]}))
    # The file: the sections' profiles composed at the total δ, well below the basic sum.
    basic = sum(q["epsilon"] for q in g["questions"])
    parts = [
        shuffle_compose.Section(
            q["n"], q["local_epsilon"], designs.report_arity(survey.questions.get(key=q["key"]))
        )
        for q in g["questions"]
    ]
    assert g["epsilon"] == shuffle_compose.composed_epsilon(parts, survey.budget_delta)
    assert g["epsilon"] < 0.8 * basic
    assert g["composition"] == shuffled.COMPOSED
    assert g["delta"] == pytest.approx(survey.budget_delta)
    assert g["local_epsilon"] == pytest.approx(sum(q["local_epsilon"] for q in g["questions"]))
    assert g["gain"] is True and g["epsilon"] < g["local_epsilon"]
    assert any("optional" in a for a in g["assumptions"])
    assert {q["key"] for q in g["left_out"]} == {"copied", "region", "hours"}


def test_metadata_no_longer_claims_amplification_for_the_reports_export():
    owner = make_user("owner")
    survey = _survey(owner, 400, close=False)
    api = _api(owner)
    meta = api.get(reverse("api-survey-export-metadata", args=[survey.slug])).json()
    assert "shuffled_randomized_only" not in meta
    assert "no amplification" in meta["shuffling"]
    assert "random order" in meta["rows"] and "not a cryptographic shuffle" in meta["rows"]
    assert meta["shuffled_file"]["url"] == _url(survey, None)
    assert meta["shuffled_file"]["available"] is False
    assert meta["shuffled_file"]["guarantee"] is None
    services.survey_close(survey=reload(survey))
    body = api.get(_url(survey)).json()
    meta = api.get(reverse("api-survey-export-metadata", args=[survey.slug])).json()
    # The CSV's guarantee lives in the metadata (no comment lines in a CSV): the stored one.
    assert meta["shuffled_file"]["produced"] is True
    assert meta["shuffled_file"]["guarantee"] == body["guarantee"]


def test_the_results_page_links_the_file_and_shows_a_gain_only():
    owner = make_user("owner")
    page = Client()
    page.force_login(owner)
    survey = _survey(owner, 400, close=False)
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert 'id="shuffled-file"' in html and "available once the survey is closed" in html
    assert 'id="shuffle-guarantee"' not in html
    services.survey_close(survey=reload(survey))
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert f'href="{_url(survey, "csv")}"' in html  # the link exists before the first download
    assert "not made yet: a worker makes it once the survey is closed" in html
    _api(owner).get(_url(survey))
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    item = html[html.index('id="shuffle-guarantee"') :][:3000]
    assert "only to that file" in item and "Feldman, McMillan &amp; Talwar" in item
    assert "cheated ε = " in item and "privacy-blanket bound" in item  # each names its bound
    assert "drawn at random (the &quot;privacy blanket&quot;)" in item or (
        'drawn at random (the "privacy blanket")' in item
    )
    assert "bound over every split of the others&#x27; answers" in item or (
        "bound over every split of the others' answers" in item
    )  # the yes/no question's, in words
    assert "copied" in item  # left out, with its reason
    # The file's ε is the composed one (the guarantee's "composition"), and the words say so.
    assert "privacy profiles composed" in item and "summed over its questions" not in item


def test_no_gain_is_not_announced():
    owner = make_user("owner")
    page = Client()
    page.force_login(owner)
    survey = _survey(owner, 3)
    g = _api(owner).get(_url(survey)).json()["guarantee"]
    assert g["gain"] is False and g["epsilon"] >= g["local_epsilon"]
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert 'id="shuffle-guarantee"' not in html and 'id="shuffle-no-gain"' in html


def test_the_seam_to_the_accounting_is_one_function():
    """One call into dpcore's shuffle accounting: the blanket (or 2023) bound where each report is
    one k-ary randomized response (k given), the 2021 one for any randomizer."""
    for k in (None, 2, 4):
        g = shuffled._guarantee(n=1000, local_epsilon=2.0, delta=1e-6, k=k)
        expected = shuffle.shuffled_guarantee(1000, 2.0, 1e-6, k)
        assert dict(g) == {
            "epsilon": expected.epsilon,
            "delta": 1e-6,
            "n": 1000,
            "local_epsilon": 2.0,
            "method": expected.method,
        }
    assert shuffled._guarantee(n=1000, local_epsilon=2.0, delta=1e-6, k=None)["method"] == (
        "clones-2021"
    )
    assert shuffled._guarantee(n=1000, local_epsilon=2.0, delta=1e-6, k=2)["method"] == (
        "histogram-splits"
    )
    assert shuffled._guarantee(n=1000, local_epsilon=2.0, delta=1e-6, k=3)["method"] == (
        "privacy-blanket"
    )
    assert shuffled._guarantee(n=0, local_epsilon=2.0, delta=1e-6, k=2)["epsilon"] == 0.0
    one = shuffled._guarantee(n=1, local_epsilon=2.0, delta=1e-6, k=2)
    assert (one["epsilon"], one["delta"]) == (2.0, 0.0)  # one report: its local ε


def test_a_survey_without_randomized_questions_gets_an_empty_file_and_no_claim():
    owner = make_user("owner")
    survey = make_survey(
        owner,
        {
            "title": "Direct only",
            "questions": [
                {"key": "region", "text": "Region", "kind": "category", "options": ["n", "s"]}
            ],
        },
    )
    submit(survey, {"region": "n"})
    services.survey_close(survey=reload(survey))
    body = _api(owner).get(_url(survey)).json()
    assert body["questions"] == []
    assert body["guarantee"]["left_out"][0]["key"] == "region"
    assert body["guarantee"]["epsilon"] == 0 and body["guarantee"]["gain"] is False
    page = Client()
    page.force_login(owner)
    html = page.get(f"/surveys/{survey.slug}/results/").content.decode()
    assert 'id="shuffle-guarantee"' not in html and 'id="shuffle-no-gain"' not in html


def test_a_composition_out_of_time_states_the_basic_sum(monkeypatch):
    # The composition's time is bounded (COMPOSE_SECONDS): past it, the file states the sum of
    # its sections' ε — sound, only less tight.
    def sections() -> list[shuffled.Section]:
        return [
            shuffled.Section(key, [], {"epsilon": 1.0}, arity=2, reports=[[True]] * 500)
            for key in ("a", "b", "c")
        ]

    composed = shuffled.file_guarantee(sections(), 500, 1e-6)
    assert composed["composition"] == shuffled.COMPOSED
    monkeypatch.setattr(shuffled, "COMPOSE_SECONDS", -1.0)
    basic = shuffled.file_guarantee(sections(), 500, 1e-6)
    assert basic["composition"] == shuffled.BASIC
    assert basic["epsilon"] == pytest.approx(sum(q["epsilon"] for q in basic["questions"]))
    assert composed["epsilon"] < 0.7 * basic["epsilon"]
    assert basic["delta"] == composed["delta"] == pytest.approx(1e-6)
