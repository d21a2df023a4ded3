"""Respondent pages (issue 10): true words per question, deniability numbers per design, the
invitation check, branded error pages and the no-JS error summary."""

from __future__ import annotations

import json
import math
import re
from html.parser import HTMLParser
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse

from surveys.models import Submission, Survey
from surveys.services import survey_close
from testsupport import factories
from testsupport.factories import invitations_create

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]

COIN = {"key": "coin", "text": "Have you ever cheated on a test?", "kind": "yes_no"}
FR = {
    "key": "fr",
    "text": "Have you driven after drinking?",
    "kind": "yes_no",
    "design": {"name": "forced_response", "p_truth": 0.6, "p_yes": 0.3, "p_no": 0.1},
}
WARNER = {
    "key": "warner",
    "text": "I used a drug this year.",
    "kind": "yes_no",
    "design": {"name": "warner", "p": 0.8},
}
UQ = {
    "key": "uq",
    "text": "Have you stolen at work?",
    "kind": "yes_no",
    "design": {"name": "unrelated_question", "p": 0.6, "innocuous_prevalence": 0.3},
}
KRR = {
    "key": "vote",
    "text": "Whom did you vote for?",
    "kind": "choice",
    "options": ["Red", "Green", "Blue"],
    "design": {"name": "k_rr", "epsilon": 0.7},
}
CATEGORY = {
    "key": "region",
    "text": "Where do you live?",
    "kind": "category",
    "options": ["N", "S"],
}
NUMBER = {"key": "age", "text": "How old are you?", "kind": "number", "min": 18, "max": 99}

RANDOMIZED_ONLY = [COIN, WARNER]
DIRECT_ONLY = [CATEGORY, NUMBER]
MIXED = [COIN, FR, WARNER, UQ, KRR, CATEGORY, NUMBER]


def make(alice, questions: list[dict[str, Any]], *, access: str = "open") -> Survey:
    return factories.make_survey(
        alice, {"title": "Words", "access": access, "questions": questions}
    )


class _Text(HTMLParser):
    """Visible text by element id (for the few ids the tests read) and every id on the page."""

    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()
        self.stack: list[str | None] = []
        self.text: dict[str, list[str]] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attr = dict(attrs)
        if attr.get("id"):
            self.ids.add(attr["id"])
        if tag in ("input", "br", "meta", "link"):
            return
        self.stack.append(attr.get("id"))

    def handle_endtag(self, tag: str) -> None:
        if tag not in ("input", "br", "meta", "link") and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        for element_id in self.stack:
            if element_id:
                self.text.setdefault(element_id, []).append(data)

    def of(self, element_id: str) -> str:
        return " ".join(" ".join(self.text.get(element_id, [])).split())


def page(client, survey: Survey) -> tuple[_Text, dict[str, Any]]:
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    doc = _Text()
    doc.feed(html)
    match = re.search(
        r'<script id="survey-data" type="application/json">(.*?)</script>', html, re.S
    )
    return doc, json.loads(match.group(1))


# --- 1. words true per question -------------------------------------------------------------------


def test_randomized_only_survey_says_every_answer_is_randomized(client, alice):
    doc, data = page(client, make(alice, RANDOMIZED_ONLY))
    assert "Every answer in this survey is randomized" in doc.of("intro")
    assert "sent exactly as" not in doc.of("intro")
    assert doc.of("intro").count("Randomized on this device") == 2
    thanks = doc.of("thanks")
    assert "Your true answers were never sent or saved" in thanks
    assert {q["protection"]["handling"] for q in data["questions"]} == {"randomized"}


def test_direct_only_survey_never_claims_randomization(client, alice):
    survey = make(alice, DIRECT_ONLY)
    doc, data = page(client, survey)
    intro, thanks = doc.of("intro"), doc.of("thanks")
    assert "No answer in this survey is randomized" in intro
    assert intro.count("Not randomized: sent exactly as you enter it.") == 2
    assert "sent exactly as you gave them" in thanks
    for false_claim in ("randomized answers left", "never sent", "true answers were"):
        assert false_claim not in thanks
    assert {q["protection"]["handling"] for q in data["questions"]} == {"direct"}
    # The no-JS path's thank-you page says the same.
    r = client.post(reverse("respond-submit", args=[survey.slug]), {"q-region": "N", "q-age": "30"})
    assert r.status_code == 302
    thanks_page = client.get(r["Location"]).content.decode()
    assert "sent exactly as you gave them" in thanks_page
    assert "never sent" not in thanks_page and "coins" not in thanks_page


def test_mixed_survey_names_each_question_handling(client, alice):
    survey = make(alice, MIXED)
    doc, data = page(client, survey)
    intro = doc.of("intro")
    assert "5 of 7 answers are randomized on your device" in intro
    assert "the other 2 are sent exactly as you enter them" in intro
    items = re.findall(
        r"Question (\d) \(([^)]*)\): (Randomized on this device|Not randomized)", intro
    )
    handling = {text: kind for _, text, kind in items}
    for q in MIXED:
        expected = (
            "Randomized on this device" if q["kind"] in ("yes_no", "choice") else ("Not randomized")
        )
        assert handling[q["text"]] == expected, q["key"]
    thanks = doc.of("thanks")
    assert "Only the randomized answers left this device" not in thanks
    assert "Your answers to the other questions were sent exactly as you gave them" in thanks
    assert "Randomized on this device: " + " · ".join(q["text"] for q in MIXED[:5]) in thanks
    assert "Sent exactly as you gave them: " + " · ".join(q["text"] for q in MIXED[5:]) in thanks
    # Per question in the data the summary step is built from.
    kinds = {q["key"]: q["protection"]["handling"] for q in data["questions"]}
    assert kinds == {
        "coin": "randomized", "fr": "randomized", "warner": "randomized", "uq": "randomized",
        "vote": "randomized", "region": "direct", "age": "direct",
    }  # fmt: skip
    # The no-JS thank-you page lists both groups.
    answers = {"q-coin": "yes", "q-fr": "no", "q-warner": "no", "q-uq": "yes"}
    # k-RR at ε = 0.7 over 3 options cannot be done with coins: the no-JS form refuses it.
    r = client.post(reverse("respond-submit", args=[survey.slug]), answers)
    assert r.status_code == 400
    thanks_page = client.get(reverse("respond-thanks", args=[survey.slug])).content.decode()
    assert "Your answers to the other questions were sent exactly as you gave them" in thanks_page
    parsed = _Text()
    parsed.feed(thanks_page)
    assert parsed.of("sent-direct") == " ".join(q["text"] for q in MIXED[5:])
    assert parsed.of("sent-randomized") == " ".join(q["text"] for q in MIXED[:5])


def test_question_legends_say_randomized_or_sent_as_answered(client, alice):
    survey = make(alice, MIXED)
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    legends = re.findall(r"<legend>Question \d · ([^<]*)</legend>", html)
    assert legends == ["randomized on this device"] * 5 + ["sent as you answer"] * 2


# --- 2. deniability numbers per design (docs/formulas.md#deniability) ----------------------------


def _binary_expected(c: float, d: float) -> dict[str, float]:
    """LR(yes) = P(yes|trait)/P(yes|no trait) = (c+d)/d; LR(no) = (1−d)/(1−c−d)."""
    return {"yes": (c + d) / d, "no": (1 - d) / (1 - c - d)}


@pytest.mark.parametrize(
    ("question", "c", "d"),
    [
        (COIN, 0.5, 0.25),
        (FR, 0.6, 0.3),  # c = p_truth, d = p_yes
        (WARNER, 2 * 0.8 - 1, 1 - 0.8),  # c = 2p − 1, d = 1 − p
        (UQ, 0.6, (1 - 0.6) * 0.3),  # c = p, d = (1 − p)·u
    ],
    ids=["coin", "forced_response", "warner", "unrelated_question"],
)
def test_yes_no_deniability_numbers_follow_the_design(client, alice, question, c, d):
    _, data = page(client, make(alice, [question]))
    [q] = data["questions"]
    reports = q["protection"]["reports"]
    expected = _binary_expected(c, d)
    epsilon = max(math.log(v) for v in expected.values())
    assert q["epsilon"] == pytest.approx(epsilon)  # the larger ratio is e^ε
    for report, ratio in expected.items():
        entry = reports[report]
        assert entry["likelihood_ratio"] == pytest.approx(ratio, rel=1e-12)
        assert entry["reference_prior"] == 0.5
        assert entry["posterior"] == pytest.approx(ratio / (ratio + 1), rel=1e-12)
        text = entry["text"]
        ratio_words = f"{round(ratio, 9):.1f}".removesuffix(".0")
        assert f"A {report.upper()} report is {ratio_words} times as likely" in text
        # Half-up percentages: every ratio here gives a posterior with at most one decimal.
        percent = math.floor(100 * ratio / (ratio + 1) + 0.5 + 1e-9)
        assert f"would now think it is {percent}% likely" in text
        assert " only " not in text  # a neutral statement, no "only 25%"


def test_yes_no_ratios_differ_by_report_when_the_design_is_asymmetric(client, alice):
    _, data = page(client, make(alice, [FR]))
    reports = data["questions"][0]["protection"]["reports"]
    # Forced response (0.6, 0.3, 0.1): a yes is (0.9/0.3) = 3×, a no (0.7/0.1) = 7× as likely.
    assert reports["yes"]["likelihood_ratio"] == pytest.approx(3.0)
    assert reports["no"]["likelihood_ratio"] == pytest.approx(7.0)
    assert "A NO report is 7 times as likely" in reports["no"]["text"]
    assert "would now think it is 88% likely that your true answer is no" in reports["no"]["text"]


def test_krr_deniability_numbers_per_option(client, alice):
    _, data = page(client, make(alice, [KRR]))
    [q] = data["questions"]
    reports = q["protection"]["reports"]
    e, k = math.exp(0.7), 3
    p, other = e / (e + k - 1), 1 / (e + k - 1)  # docs/formulas.md#krr: keep p, each other option q
    assert set(reports) == set(KRR["options"])
    for option in KRR["options"]:
        entry = reports[option]
        assert entry["likelihood_ratio"] == pytest.approx(p / other, rel=1e-12)
        assert entry["likelihood_ratio"] == pytest.approx(e, rel=1e-12)
        assert entry["reference_prior"] == pytest.approx(1 / k)
        # From a uniform prior 1/k the belief is exactly the keep probability p.
        assert entry["posterior"] == pytest.approx(p, rel=1e-12)
        assert f"A “{option}” report is 2 times as likely" in entry["text"]
        assert f"all {k} options equally likely" in entry["text"]
        assert f"{100 * p:.0f}% likely that your true answer is “{option}”" in entry["text"]


def test_randomizer_visual_matches_each_design(client, alice):
    _, data = page(client, make(alice, [COIN, FR, WARNER, UQ, KRR]))
    by_key = {q["key"]: q["protection"]["randomizer"] for q in data["questions"]}
    assert by_key["coin"]["kind"] == "coins" and by_key["coin"]["button"] == "Flip the coins"
    for key in ("fr", "warner", "uq", "vote"):
        assert by_key[key]["kind"] == "spinner" and by_key[key]["button"] == "Spin the spinner"
        shares = [s["share"] for s in by_key[key]["sectors"]]
        assert sum(shares) == pytest.approx(1.0)
    assert [s["share"] for s in by_key["fr"]["sectors"]] == pytest.approx([0.6, 0.3, 0.1])
    assert [s["share"] for s in by_key["warner"]["sectors"]] == pytest.approx([0.8, 0.2])
    assert [s["share"] for s in by_key["uq"]["sectors"]] == pytest.approx([0.6, 0.12, 0.28])
    e = math.exp(0.7)
    assert by_key["vote"]["sectors"][0]["share"] == pytest.approx(e / (e + 2))
    html = client.get(reverse("respond", args=[Survey.objects.get().slug])).content.decode()
    buttons = re.findall(r'data-role="flip" disabled>([^<]*)<', html)
    assert buttons == ["Flip the coins"] + ["Spin the spinner"] * 4


def test_the_page_gets_every_number_it_shows_from_the_server(client, alice):
    """Issue 12: the browser computes no probability. Each spinner slice carries its printed
    percentage, and each randomized question its integer thresholds (what rr/randomizer.js
    compares a 53-bit draw with) — the legend and the draw never derive one in JavaScript."""
    _, data = page(client, make(alice, [COIN, FR, WARNER, UQ, KRR]))
    by_key = {q["key"]: q for q in data["questions"]}
    assert [s["percent"] for s in by_key["fr"]["protection"]["randomizer"]["sectors"]] == [
        "60%",
        "30%",
        "10%",
    ]
    assert [s["percent"] for s in by_key["uq"]["protection"]["randomizer"]["sectors"]] == [
        "60%",
        "12%",
        "28%",
    ]
    for q in data["questions"]:
        assert all(isinstance(t, int) and 0 < t < 2**53 for t in q["thresholds"].values())
        for sector in q["protection"]["randomizer"]["sectors"]:
            assert sector["percent"].endswith("%")
    keep = by_key["vote"]["thresholds"]["keep"] / 2**53  # within a grid step of e^ε/(e^ε + 2)
    assert keep == pytest.approx(math.exp(0.7) / (math.exp(0.7) + 2), abs=2**-51)


# --- 4. invitation check --------------------------------------------------------------------------


def check_url(survey: Survey) -> str:
    return reverse("api-survey-invitations-check", args=[survey.slug])


def test_invitation_check_answers_without_consuming_the_token(anon, alice):
    survey = make(alice, [COIN], access="invite")
    [token, other] = invitations_create(survey=survey, count=2)
    url = check_url(survey)
    assert url == f"/api/v1/surveys/{survey.slug}/invitations/check/"
    for _ in range(3):  # asking again and again never uses it up
        r = anon.post(url, {"token": token}, format="json")
        assert r.status_code == 200 and r.json() == {"valid": True}
    assert survey.invitations.filter(used=True).count() == 0
    assert anon.post(url, {"token": "not-a-token"}, format="json").json() == {"valid": False}
    # The token still works for the one submission, and is then reported as used.
    body = {
        "submission_id": "6f1c2b1e-4a55-4c1b-9d8e-0a3c4f5e6a7b",
        "randomizer": "browser",
        "answers": {"coin": True},
        "token": token,
    }
    assert anon.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json").status_code
    assert survey.invitations.filter(used=True).count() == 1
    assert anon.post(url, {"token": token}, format="json").json() == {"valid": False}
    assert anon.post(url, {"token": other}, format="json").json() == {"valid": True}
    survey_close(survey=survey)
    assert anon.post(url, {"token": other}, format="json").json() == {"valid": False}


def test_invitation_check_refuses_bad_bodies_naming_the_field(anon, alice):
    survey = make(alice, [COIN], access="invite")
    url = check_url(survey)
    for body in ({}, {"token": ""}, {"token": 12}, {"token": ["x"]}, {"token": "x" * 201}):
        r = anon.post(url, body, format="json")
        assert r.status_code == 400, body
        assert "token" in r.json()["errors"], body
    r = anon.post(url, [1, 2], format="json")
    assert r.status_code == 400 and "non_field_errors" in r.json()["errors"]
    r = anon.post(url, data="{nope", content_type="application/json")
    assert r.status_code == 400 and "errors" in r.json()
    assert anon.get(url).status_code == 405
    r = anon.post(
        "/api/v1/surveys/no-such-survey/invitations/check/", {"token": "x"}, format="json"
    )
    assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_invitation_check_of_an_open_survey_is_false_and_rate_limited(anon, alice, settings):
    survey = make(alice, [COIN])
    url = check_url(survey)
    assert anon.post(url, {"token": "anything"}, format="json").json() == {"valid": False}
    settings.DENIABLE_SUBMISSION_RATE_LIMIT = 2
    cache.clear()
    codes = [anon.post(url, {"token": "x"}, format="json").status_code for _ in range(3)]
    assert codes == [200, 200, 429]
    # A separate counter: checks do not eat the submissions' allowance.
    body = {
        "submission_id": "0b6a4f2e-3c1d-4e5f-8a9b-0c1d2e3f4a5b",
        "randomizer": "browser",
        "answers": {"coin": False},
    }
    r = anon.post(f"/api/v1/surveys/{survey.slug}/responses/", body, format="json")
    assert r.status_code == 201


def test_invitation_check_is_in_the_openapi_schema(tmp_path):
    target = tmp_path / "schema.yaml"
    call_command(
        "spectacular",
        "--validate",
        "--fail-on-warn",
        "--file",
        str(target),
        "--urlconf",
        "tests.surveys.schema_urls",
    )
    text = target.read_text()
    assert "/api/v1/surveys/{slug}/invitations/check/" in text
    assert "InvitationCheckRequest" in text and "InvitationCheckResponse" in text


def test_invite_page_carries_the_check_url_and_open_page_does_not(client, alice):
    invite = make(alice, [COIN], access="invite")
    _, data = page(client, invite)
    assert data["invitation_check_url"] == check_url(invite)
    _, data = page(client, make(alice, [COIN]))
    assert data["invitation_check_url"] is None


# --- 5. branded pages and the no-JS error summary -------------------------------------------------


def test_bad_survey_link_gets_a_branded_404_page_and_api_404s_stay_json(client):
    r = client.get("/s/no-such-survey/")
    assert r.status_code == 404
    html = r.content.decode()
    assert "We can't find that page" in html
    assert 'class="brand"' in html and "What to do" in html
    assert 'href="/"' in html
    r = client.get("/api/v1/surveys/no-such-survey/estimates/")
    assert r.status_code in (401, 403, 404) and r["Content-Type"].startswith("application/json")
    r = client.get("/api/v1/no/such/route/")
    assert r.status_code == 404 and r.json() == {"error": "not_found", "detail": "Not found."}


def test_closed_page_says_what_happened_and_what_to_do(client, alice):
    survey = make(alice, [COIN])
    survey_close(survey=survey)
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "This survey is closed" in html and 'class="brand"' in html
    assert "Nothing you entered was sent" in html
    assert "What to do:" in html


def test_used_invitation_page_says_what_to_do(client, alice):
    survey = make(alice, [COIN], access="invite")
    [token] = invitations_create(survey=survey, count=1)
    url = reverse("respond-submit", args=[survey.slug])
    assert client.post(url, {"token": token, "q-coin": "yes"}).status_code == 302
    r = client.post(url, {"token": token, "q-coin": "no"})
    assert r.status_code == 409
    html = r.content.decode()
    assert "This invitation was already used" in html
    assert "your answers were not recorded" in html
    assert "What to do:" in html and "ask the researcher who invited you" in html
    assert Submission.objects.filter(survey=survey).count() == 1


def test_no_js_refusal_has_an_error_summary_linked_to_the_fields(client, alice):
    survey = make(alice, [COIN, CATEGORY, NUMBER], access="invite")
    r = client.post(reverse("respond-submit", args=[survey.slug]), {"q-age": "7"})
    assert r.status_code == 400
    html = r.content.decode()
    doc = _Text()
    doc.feed(html)
    assert "error-summary" in doc.ids
    # The summary comes first in the form, before the intro and the questions.
    assert html.index('id="error-summary"') < html.index('id="intro"')
    links = re.findall(r'<li><a href="#([^"]+)">([^<]*)</a></li>', html)
    targets = [target for target, _ in links]
    assert targets == ["id_token", "id_q-coin_0", "id_q-region_0", "id_q-age"]
    for target in targets:
        assert target in doc.ids, target  # every link lands on a real field
    texts = [text for _, text in links]
    assert texts[0].startswith("Invitation code:")
    assert texts[1].startswith("Question 1:") and texts[3].startswith("Question 3:")
    assert "18" in texts[3]  # the number's bound is named
    # A clean GET has no summary.
    assert (
        'id="error-summary"'
        not in client.get(reverse("respond", args=[survey.slug])).content.decode()
    )
