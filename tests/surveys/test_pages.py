"""Server-rendered pages: respondent form (JS and no-JS paths), researcher pages, permissions."""

from __future__ import annotations

import uuid
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from surveys.api.estimates import estimates_body as survey_estimates
from surveys.models import Submission, Survey
from surveys.services import survey_close
from testsupport import factories

pytestmark = pytest.mark.django_db

ALL_KINDS = [
    {"key": "cheated", "text": "Have you ever cheated on a test?", "kind": "yes_no"},
    {
        "key": "drugs",
        "text": "Have you used drugs this year?",
        "kind": "yes_no",
        "design": {"name": "warner", "p": 0.75},
    },
    {
        "key": "stolen",
        "text": "Have you stolen at work?",
        "kind": "yes_no",
        "design": {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 0.5},
    },
    {
        "key": "vote",
        "text": "Whom did you vote for?",
        "kind": "choice",
        "options": ["A", "B", "C", "D"],
        "design": {"name": "k_rr", "epsilon": 1.0986122886681098},  # keep = 3/6: a die works
    },
    {"key": "region", "text": "Region", "kind": "category", "options": ["North", "South"]},
    {"key": "age", "text": "Age", "kind": "number", "min": 18, "max": 99},
]


@pytest.fixture
def alice():
    return factories.make_user("alice", "pw-alice-123")


@pytest.fixture
def bob():
    return factories.make_user("bob", "pw-bob-123")


def make_survey(owner, questions=None, *, access="open", open_=True) -> Survey:
    body = {"title": "Campus life", "access": access, "questions": questions or ALL_KINDS}
    return factories.make_survey(owner, body, open_=open_)


@pytest.fixture
def survey(alice) -> Survey:
    return make_survey(alice)


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[tuple[str, dict[str, str | None]]] = []
        self.script_bodies: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_script = tag == "script"

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.script_bodies.append(data)


def parse(html: str) -> _Collector:
    c = _Collector()
    c.feed(html)
    return c


def assert_csp_clean(html: str) -> None:
    """No inline code: every <script> has a src or is JSON data; no on* handler attributes."""
    doc = parse(html)
    for tag, attrs in doc.elements:
        if tag == "script":
            assert attrs.get("src") or attrs.get("type") == "application/json", attrs
        for name in attrs:
            assert not name.lower().startswith("on"), (tag, name)
        assert "style" not in attrs, (tag, attrs)  # style-src 'self' forbids inline styles too
        if tag == "a":
            assert not (attrs.get("href") or "").lower().startswith("javascript:")


# --- respondent ----------------------------------------------------------------------------------


def test_respondent_page_renders_every_kind(client, survey):
    response = client.get(reverse("respond", args=[survey.slug]))
    assert response.status_code == 200
    html = response.content.decode()
    for q in ALL_KINDS:
        assert q["text"] in html
    assert "Flip a coin" in html  # physical protocol for the coin design
    assert 'id="survey-data"' in html
    assert "js/respond.js" in html
    assert "no-store" in response["Cache-Control"]
    assert "script-src" in response["Content-Security-Policy"]


def test_respondent_page_has_no_inline_script_or_handlers(client, survey):
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert_csp_clean(html)


def test_true_answer_inputs_have_no_name(client, survey):
    doc = parse(client.get(reverse("respond", args=[survey.slug])).content.decode())
    truth = [attrs for tag, attrs in doc.elements if "data-truth" in attrs]
    # yes/no questions: 2 buttons each (3 of them), the choice question: one per option (4).
    assert len(truth) == 3 * 2 + 4
    for attrs in truth:
        assert "name" not in attrs
        assert attrs.get("type") == "button"  # a button never carries a value in a form post


def test_survey_data_carries_designs_and_deniability(client, survey):
    response = client.get(reverse("respond", args=[survey.slug]))
    import json
    import re

    doc = response.content.decode()
    match = re.search(r'<script id="survey-data" type="application/json">(.*?)</script>', doc, re.S)
    data = json.loads(match.group(1))
    by_key = {q["key"]: q for q in data["questions"]}
    coin = by_key["cheated"]
    assert coin["design"]["name"] == "forced_response"
    assert coin["epsilon"] == pytest.approx(1.0986, abs=1e-4)
    # Deniability (issue 10: a likelihood ratio and a 50–50 reference prior, not one 10% prior):
    # coin: P(yes | trait)/P(yes | no trait) = 0.75/0.25 = 3, and 3·½/(3·½ + ½) = 0.75.
    reports = coin["protection"]["reports"]
    assert reports["yes"]["likelihood_ratio"] == pytest.approx(3.0)
    assert reports["yes"]["posterior"] == pytest.approx(0.75)
    assert reports["no"]["likelihood_ratio"] == pytest.approx(3.0)
    assert data["api_url"] == f"/api/v1/surveys/{survey.slug}/responses/"
    assert data["epsilon_total"] == pytest.approx(
        sum(q.get("epsilon") or 0 for q in data["questions"])
    )


def _physical_post(survey, **overrides):
    data = {
        "q-cheated": "yes",
        "q-drugs": "no",
        "q-stolen": "no",
        "q-vote": "B",
        "q-region": "North",
        "q-age": "34",
    }
    data.update(overrides)
    return data


def test_no_js_form_stores_a_physical_submission(client, survey):
    response = client.post(reverse("respond-submit", args=[survey.slug]), _physical_post(survey))
    assert response.status_code == 302
    assert response["Location"] == reverse("respond-thanks", args=[survey.slug])
    sub = Submission.objects.get(survey=survey)
    assert sub.randomizer == "physical"
    assert sub.id.version == 4
    estimates = survey_estimates(survey=survey)
    assert estimates["respondents"] == 1
    cheated = next(q for q in estimates["questions"] if q["key"] == "cheated")
    assert cheated["reported_yes"] == 1
    thanks = client.get(response["Location"])
    assert thanks.status_code == 200
    assert b"Thank you" in thanks.content


def test_no_js_form_errors_rerender_with_messages(client, survey):
    data = _physical_post(survey, **{"q-age": "7", "q-vote": "Z"})
    del data["q-cheated"]
    response = client.post(reverse("respond-submit", args=[survey.slug]), data)
    assert response.status_code == 400
    html = response.content.decode()
    assert "Tick the answer the coins told you to record." in html
    assert 'id="err-age"' in html and 'id="err-vote"' in html
    assert Submission.objects.count() == 0
    assert_csp_clean(html)


def test_no_js_form_needs_no_csrf_cookie(survey):
    """Issue 11 §10: the respondent page sets no CSRF cookie (a year-long identifier riding on
    every submission) and the no-JS post needs none: respondents carry no ambient authority for
    a forged post to borrow (surveys.views.respond_submit). Before: 403 without the token."""
    client = Client(enforce_csrf_checks=True)
    page = client.get(reverse("respond", args=[survey.slug]))
    assert page.status_code == 200
    assert "csrfmiddlewaretoken" not in page.content.decode()
    assert not page.cookies and not client.cookies
    response = client.post(reverse("respond-submit", args=[survey.slug]), _physical_post(survey))
    assert response.status_code == 302
    assert Submission.objects.count() == 1
    assert not response.cookies and not client.cookies


def test_closed_survey_page(client, survey):
    survey_close(survey=survey)
    response = client.get(reverse("respond", args=[survey.slug]))
    assert response.status_code == 200
    assert b"This survey is closed" in response.content
    response = client.post(reverse("respond-submit", args=[survey.slug]), _physical_post(survey))
    assert b"This survey is closed" in response.content
    assert Submission.objects.count() == 0


def test_unknown_and_draft_surveys_are_404(client, alice):
    assert client.get(reverse("respond", args=["nosuchsurvey"])).status_code == 404
    draft = make_survey(alice, open_=False)
    assert client.get(reverse("respond", args=[draft.slug])).status_code == 404
    assert client.post(reverse("respond-submit", args=[draft.slug]), {}).status_code == 404


def test_invite_survey_token_field_and_used_token(client, alice):
    from testsupport.factories import invitations_create

    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    [token] = invitations_create(survey=survey, count=1)
    page = client.get(reverse("respond", args=[survey.slug]))
    assert b'name="token"' in page.content
    missing = client.post(reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no"})
    assert missing.status_code == 400
    ok = client.post(
        reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no", "token": token}
    )
    assert ok.status_code == 302
    again = client.post(
        reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no", "token": token}
    )
    assert again.status_code == 409
    assert b"already used" in again.content
    unknown = client.post(
        reverse("respond-submit", args=[survey.slug]), {"q-cheated": "no", "token": "nope"}
    )
    assert unknown.status_code == 400
    assert b"Unknown invitation token" in unknown.content
    assert Submission.objects.filter(survey=survey).count() == 1


def test_physical_instructions_for_each_design(client, survey):
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "Tails: answer truthfully" in html  # the coin design, verbatim protocol
    assert "Flip a coin twice." in html  # Warner p = 3/4: four equally likely outcomes
    assert "tick the opposite of your true answer" in html
    # k-RR with keep e^ε/(e^ε+k−1) = 3/6 = ½: a coin decides keep/swap, a die picks the other.
    assert "Heads: tick your true answer." in html
    assert "roll a die until it shows a number from 1 to 3" in html
    assert "number the other 3 options 1 to 3" in html


def test_k_rr_without_exact_physical_protocol_needs_javascript(client, alice):
    survey = make_survey(
        alice,
        [
            {
                "key": "v",
                "text": "Pick",
                "kind": "choice",
                "options": ["a", "b", "c"],
                "design": {"name": "k_rr", "epsilon": 1.0},
            }
        ],
    )
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "needs JavaScript" in html
    assert 'type="submit">Send my answers' not in html


# --- researcher ----------------------------------------------------------------------------------


def test_home_landing_and_redirect(client, alice):
    response = client.get("/")
    assert response.status_code == 200
    assert b"Researcher login" in response.content
    client.force_login(alice)
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"] == reverse("researcher-home")


def test_login_page_and_login(client, alice):
    assert client.get(reverse("login")).status_code == 200
    response = client.post(reverse("login"), {"username": "alice", "password": "pw-alice-123"})
    assert response.status_code == 302
    assert response["Location"] == reverse("researcher-home")
    response = client.post(reverse("logout"))
    assert response.status_code == 302


@pytest.mark.parametrize("name", ["researcher-home", "survey-new"])
def test_researcher_pages_require_login(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_researcher_survey_pages_require_login(client, survey):
    for name in ("survey-detail", "survey-edit"):
        response = client.get(reverse(name, args=[survey.slug]))
        assert response.status_code == 302
        assert response["Location"].startswith(reverse("login"))


def test_survey_list_and_detail_render(client, alice, survey):
    client.post(reverse("respond-submit", args=[survey.slug]), _physical_post(survey))
    client.force_login(alice)
    listing = client.get(reverse("researcher-home"))
    assert listing.status_code == 200
    assert b"Campus life" in listing.content
    detail = client.get(reverse("survey-detail", args=[survey.slug]))
    assert detail.status_code == 200
    html = detail.content.decode()
    assert 'id="respondent-count">1<' in html
    assert "<svg" in html and 'class="ci"' in html
    assert f"/api/v1/surveys/{survey.slug}/estimates/?format=csv" in html
    assert f"/api/v1/surveys/{survey.slug}/responses/export/?format=csv" in html
    assert_csp_clean(html)
    grouped = client.get(reverse("survey-detail", args=[survey.slug]), {"group_by": "region"})
    assert grouped.status_code == 200
    # One cross-tab with a column per group (was: one "region = North" table per group).
    assert 'North<br><span class="small muted">n = 1</span>' in grouped.content.decode()


def test_builder_renders_for_new_and_draft(client, alice):
    client.force_login(alice)
    response = client.get(reverse("survey-new"))
    assert response.status_code == 200
    assert_csp_clean(response.content.decode())
    draft = make_survey(alice, open_=False)
    response = client.get(reverse("survey-edit", args=[draft.slug]))
    assert response.status_code == 200
    assert b"builder-data" in response.content
    opened = make_survey(alice)
    response = client.get(reverse("survey-edit", args=[opened.slug]))
    assert response.status_code == 302


def test_other_researcher_gets_404(client, bob, survey):
    client.force_login(bob)
    assert client.get(reverse("survey-detail", args=[survey.slug])).status_code == 404
    assert client.get(reverse("survey-edit", args=[survey.slug])).status_code == 404
    assert client.post(reverse("survey-close", args=[survey.slug])).status_code == 404
    assert (
        client.post(reverse("survey-invitations", args=[survey.slug]), {"count": 2}).status_code
        == 404
    )
    survey.refresh_from_db()
    assert survey.status == "open"
    assert b"Campus life" not in client.get(reverse("researcher-home")).content


def test_open_and_close_buttons(client, alice):
    draft = make_survey(alice, open_=False)
    client.force_login(alice)
    assert client.get(reverse("survey-open", args=[draft.slug])).status_code == 405
    client.post(reverse("survey-open", args=[draft.slug]))
    draft.refresh_from_db()
    assert draft.status == "open"
    client.post(reverse("survey-close", args=[draft.slug]))
    draft.refresh_from_db()
    assert draft.status == "closed"
    # Closing again is a conflict: shown as a message, not an error page.
    response = client.post(reverse("survey-close", args=[draft.slug]), follow=True)
    assert response.status_code == 200
    assert b"Cannot close" in response.content


def test_invitations_are_shown_once(client, alice):
    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    client.force_login(alice)
    response = client.post(reverse("survey-invitations", args=[survey.slug]), {"count": 3})
    assert response.status_code == 200
    assert (
        response["Cache-Control"].startswith("no-store") or "no-store" in response["Cache-Control"]
    )
    html = response.content.decode()
    assert html.count('href="http://testserver/s/') == 3
    assert html.count("#t=") == 6  # each link's href and its visible text
    assert survey.invitations.count() == 3
    bad = client.post(reverse("survey-invitations", args=[survey.slug]), {"count": 0})
    # A bad count re-renders the page with the error at the field (it used to redirect).
    assert bad.status_code == 400
    assert "A whole number from 1 to 10000." in bad.content.decode()
    assert 'aria-invalid="true"' in bad.content.decode()
    assert survey.invitations.count() == 3


def _count(html: str, name: str) -> int:
    marker = f'id="count-{name}">'
    return int(html.split(marker, 1)[1].split("<", 1)[0])


def test_invitations_page_counts_and_revoke_needs_confirmation(client, alice):
    from testsupport.factories import invitations_create, submission_create

    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    tokens = invitations_create(survey=survey, count=4)
    submission_create(
        survey=survey,
        submission_id=str(uuid.uuid4()),
        randomizer="browser",
        answers={"cheated": True},
        token=tokens[0],
    )
    client.force_login(alice)
    page = reverse("survey-invitations", args=[survey.slug])
    response = client.get(page)
    assert response.status_code == 200 and "no-store" in response["Cache-Control"]
    html = response.content.decode()
    assert [_count(html, n) for n in ("issued", "used", "revoked", "remaining")] == [4, 1, 0, 3]
    assert "#t=" not in html  # tokens are never shown again
    assert "Yes, revoke the 3 unused links" in html

    revoke = reverse("survey-invitations-revoke", args=[survey.slug])
    assert client.get(revoke).status_code == 405
    refused = client.post(revoke, {}, follow=True)
    assert "Tick the box to confirm" in refused.content.decode()
    assert survey.invitations.filter(revoked=True).count() == 0
    done = client.post(revoke, {"confirm": "yes"}, follow=True)
    html = done.content.decode()
    assert "Revoked 3 unused invitation links" in html
    assert [_count(html, n) for n in ("issued", "used", "revoked", "remaining")] == [4, 1, 3, 0]
    assert "revoke-button" not in html  # nothing left to revoke


def test_invitations_page_for_open_and_closed_surveys(client, alice):
    open_survey = make_survey(alice, ALL_KINDS[:1])
    client.force_login(alice)
    html = client.get(reverse("survey-invitations", args=[open_survey.slug])).content.decode()
    assert "needs no invitations" in html and 'name="count"' not in html
    response = client.post(reverse("survey-invitations", args=[open_survey.slug]), {"count": 2})
    assert response.status_code == 409 and "set access to" in response.content.decode()
    invited = make_survey(alice, ALL_KINDS[:1], access="invite")
    survey_close(survey=invited)
    html = client.get(reverse("survey-invitations", args=[invited.slug])).content.decode()
    assert "The survey is closed" in html and 'name="count"' not in html


def test_other_researcher_gets_404_on_invitation_pages(client, alice, bob):
    from testsupport.factories import invitations_create

    survey = make_survey(alice, ALL_KINDS[:1], access="invite")
    invitations_create(survey=survey, count=2)
    client.force_login(bob)
    assert client.get(reverse("survey-invitations", args=[survey.slug])).status_code == 404
    revoke = reverse("survey-invitations-revoke", args=[survey.slug])
    assert client.post(revoke, {"confirm": "yes"}).status_code == 404
    assert survey.invitations.filter(revoked=True).count() == 0
