"""End-to-end in real headless Chromium against the live server.

The respondent's browser flips the coins; these tests check what leaves the browser (only the
reported answers), memoization (no re-flip), idempotent resubmission, the no-JS physical-coin path,
the researcher's view of the estimates, and a phone-sized layout.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any
from urllib.parse import urlsplit

import pytest
from django.contrib.auth import get_user_model

from surveys.api.estimates import estimates_body as survey_estimates
from surveys.models import Submission, Survey
from surveys.services import survey_open
from tests.e2e.respondent_support import flip, memo_key
from testsupport.factories import make_campus_survey as make_survey
from testsupport.factories import submission_create, survey_create

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

EVERY_KIND = [
    {"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"},
    {
        "key": "drugs",
        "text": "I used an illegal drug this year.",
        "kind": "yes_no",
        "design": {"name": "warner", "p": 0.75},
    },
    {
        "key": "stolen",
        "text": "Have you taken something from work?",
        "kind": "yes_no",
        "design": {"name": "unrelated_question", "p": 0.5, "innocuous_prevalence": 0.5},
    },
    {
        "key": "vote",
        "text": "Whom did you vote for?",
        "kind": "choice",
        "options": ["Alpha", "Beta", "Gamma", "Delta"],
        "design": {"name": "k_rr", "epsilon": 1.2},
    },
    {
        "key": "region",
        "text": "Where do you live?",
        "kind": "category",
        "options": ["North", "South"],
    },
    {"key": "age", "text": "How old are you?", "kind": "number", "min": 18, "max": 99},
]
COIN_ONLY = [{"key": "cheated", "text": "Have you ever cheated on an exam?", "kind": "yes_no"}]
TRUTHS = {"cheated": "true", "drugs": "false", "stolen": "true", "vote": "Gamma"}


def stored(page: Any, slug: str, name: str) -> str | None:
    """The memo entry ``name`` of the open survey ``slug`` on this page: keyed by the page's
    ``memo_scope`` (the survey's identity and designs), never by the slug (issue 21 item 8)."""
    scope = page.evaluate(
        "() => JSON.parse(document.getElementById('survey-data').textContent).memo_scope"
    )
    assert slug not in scope
    return page.evaluate("k => window.localStorage.getItem(k)", f"deniable:{scope}:{name}")


def answer_every_kind(page: Any, *, skip: bool = False) -> None:
    for key, truth in TRUTHS.items():
        flip(page, key, truth, skip=skip, advance=True)
    page.locator("#step-region label", has_text="South").click()
    page.locator("#step-region [data-role=next]").click()
    page.locator("#step-age input").fill("41")
    page.locator("#step-age [data-role=next]").click()
    page.locator("#step-summary").wait_for()


def test_complete_survey_sends_only_reported_answers(live_server, new_page):
    survey = make_survey(EVERY_KIND)
    page, problems = new_page()
    requests: list[Any] = []
    page.on("request", lambda r: requests.append(r))
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    # The stepper shows one question at a time.
    assert page.locator("#step-cheated").is_visible()
    assert not page.locator("#step-drugs").is_visible()
    # The physical-coin instructions and their named radios are gone with JS on.
    assert not page.locator("[data-role=physical]").first.is_visible()
    answer_every_kind(page, skip=True)
    summary = page.locator("#step-summary").inner_text()
    assert "ε = " in summary and "Your total privacy loss" in summary
    assert "would now think it is" in summary
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()

    memo = {q["key"]: stored(page, survey.slug, q["key"]) for q in EVERY_KIND}
    posts = [r for r in requests if r.method != "GET"]
    assert len(posts) == 1, [(r.method, r.url) for r in posts]
    post = posts[0]
    assert urlsplit(post.url).path == f"/api/v1/surveys/{survey.slug}/responses/"
    body = json.loads(post.post_data)
    assert set(body) == {"submission_id", "randomizer", "answers"}
    assert body["randomizer"] == "browser"
    assert body["submission_id"] == stored(page, survey.slug, "~submission")
    assert set(body["answers"]) == {q["key"] for q in EVERY_KIND}
    for key in TRUTHS:  # randomized: exactly the memoized *reported* value
        assert body["answers"][key] == json.loads(memo[key]), key
    assert body["answers"]["region"] == "South"
    assert body["answers"]["age"] == 41
    assert memo["region"] is None and memo["age"] is None  # direct answers are not stored
    # Nothing else carries data: every other request is a GET without a query string or body.
    for r in requests:
        if r is post:
            continue
        assert r.method == "GET" and r.post_data is None and not urlsplit(r.url).query, r.url
    # Storage holds only reports and bookkeeping, never a truth field.
    keys = page.evaluate("Object.keys(window.localStorage)")
    allowed = {memo_key(survey, k) for k in [*TRUTHS, "~submission", "~done"]}
    assert set(keys) <= allowed, keys
    assert page.evaluate("Object.keys(window.sessionStorage).length") == 0

    sub = Submission.objects.get(survey=survey)
    assert sub.randomizer == "browser" and str(sub.id) == body["submission_id"]
    assert sub.answers == body["answers"]
    assert sub.answers["cheated"] is body["answers"]["cheated"]
    assert sub.answers["vote"] == body["answers"]["vote"]
    assert problems.messages == []

    # A revisit from the same browser says so instead of showing the form.
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    assert page.locator("#already").is_visible()
    assert not page.locator("#respond-form").is_visible()


# Words for ``crypto.getRandomValues`` queued by the test: a Uint32Array request takes them while
# the queue lasts (the randomizer's draws; the page's other draws use Uint8Array), then Web Crypto.
QUEUED_WORDS = """
(() => {
  const real = crypto.getRandomValues.bind(crypto);
  window.__words = [];
  crypto.getRandomValues = (a) => {
    if (a instanceof Uint32Array && window.__words.length) {
      for (let i = 0; i < a.length; i += 1) a[i] = window.__words.shift();
      return a;
    }
    return real(a);
  };
})();
"""
GRID = 2**53  # the randomizer's draw U is uniform on [0, 2⁵³) (static/js/rr/randomizer.js)


def _words(u: int) -> list[int]:
    """The two 32-bit words ``uint53`` turns into ``u``: u = hi·2²¹ + (lo >>> 11)."""
    return [u >> 21, (u & (2**21 - 1)) << 11]


def test_coin_design_reports_exactly_at_the_servers_thresholds(live_server, new_page):
    """The page's click path: truth → the server's integer thresholds → the report, at every
    boundary of the coin design (forced response: U < T_truth → the truth; T_truth ≤ U < T_yes
    → "yes"; U ≥ T_yes → "no"). The draw is queued by the test, so each case is exact; both
    truths, so a page that reports the truth or a forced answer in the wrong band fails."""
    survey = make_survey(COIN_ONLY)
    page, problems = new_page(reduced_motion="reduce")
    page.add_init_script(QUEUED_WORDS)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    key = memo_key(survey, "cheated")
    question = page.evaluate(
        "JSON.parse(document.getElementById('survey-data').textContent).questions[0]"
    )
    t = question["thresholds"]
    # ½ truth, ¼ forced yes, ¼ forced no (the coin design's P), on the 2⁵³ grid.
    assert (t["truth"], t["yes"]) == (GRID // 2, GRID * 3 // 4)
    cases = [
        (0, None),
        (t["truth"] - 1, None),
        (t["truth"], True),
        (t["yes"] - 1, True),
        (t["yes"], False),
        (GRID - 1, False),
    ]
    for truth in (True, False):
        for u, forced in cases:
            page.evaluate("localStorage.clear()")
            page.reload()
            page.evaluate("w => { window.__words = w; }", _words(u))
            page.locator(f'#step-cheated [data-truth="{str(truth).lower()}"]').click()
            page.locator("#step-cheated [data-role=flip]").click()
            page.locator("#step-cheated [data-role=result]").wait_for()
            assert page.evaluate("window.__words.length") == 0  # the flip drew this U
            reported = json.loads(page.evaluate("k => localStorage.getItem(k)", key))
            assert reported is (truth if forced is None else forced), (truth, u, reported)
    assert problems.messages == []


@pytest.mark.slow
def test_coin_design_reported_yes_share(live_server, new_page):
    """The page's own randomizer module, with the page's Web Crypto and the thresholds the server
    rendered, 10,000 draws per truth (the click path around it is held exactly by the test above;
    it once opened 200 fresh browser contexts for one draw each, 220 s of CI).

    P(report yes | truth yes) = ½ + ¼ = 0.75 and P(yes | no) = 0.25: the count of yes reports is
    Binomial(10⁴, 0.75) or (10⁴, 0.25); SE of a share = √(0.75·0.25/10⁴) ≈ 0.0043 and 5 SE ≈
    0.022. A correct page falls outside with probability α ≈ 6e-7 each (two-sided normal tail at
    5σ); a broken coin (the truth always: 1.0 and 0.0; a fair coin: 0.5; a draw biased by a few
    points) falls outside it."""
    survey = make_survey(COIN_ONLY)
    page, problems = new_page(reduced_motion="reduce")
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    runs = 10_000
    shares = page.evaluate(
        """async (runs) => {
          const entry = document.querySelector('script[src*="respond.js"]').src;
          const rr = await import(new URL("rr/randomizer.js", entry).href);
          const data = JSON.parse(document.getElementById("survey-data").textContent);
          const q = data.questions[0];
          const fill = (a) => crypto.getRandomValues(a);
          const share = (truth) => {
            let yes = 0;
            for (let i = 0; i < runs; i += 1) yes += rr.randomize(q, truth, fill).reported ? 1 : 0;
            return yes / runs;
          };
          return [share(true), share(false)];
        }""",
        runs,
    )
    bound = 5 * math.sqrt(0.75 * 0.25 / runs)
    assert abs(shares[0] - 0.75) <= bound, (shares, bound)
    assert abs(shares[1] - 0.25) <= bound, (shares, bound)
    assert problems.messages == []


def test_reload_keeps_the_report_and_resubmission_is_idempotent(live_server, new_page):
    survey = make_survey(COIN_ONLY)
    page, problems = new_page(reduced_motion="reduce")
    posts: list[Any] = []
    page.on("request", lambda r: posts.append(r) if r.method == "POST" else None)
    url = f"{live_server.url}/s/{survey.slug}/"
    page.goto(url)
    flip(page, "cheated", "true")
    first = stored(page, survey.slug, "cheated")
    for _ in range(3):
        page.reload()
        result = page.locator("#step-cheated [data-role=result]")
        assert "already randomized" in result.inner_text()
        assert "weaken your protection" in result.inner_text()
        assert not page.locator("#step-cheated [data-truth]").first.is_visible()  # no re-flip
        assert stored(page, survey.slug, "cheated") == first
    page.locator("#step-cheated [data-role=next]").click()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    assert len(posts) == 1
    body = posts[0].post_data
    assert json.loads(body)["answers"] == {"cheated": json.loads(first)}
    # The same body again (a retry after a lost response) is a duplicate, not a second respondent.
    again = page.request.post(
        f"{live_server.url}/api/v1/surveys/{survey.slug}/responses/",
        data=body,
        headers={"Content-Type": "application/json"},
    )
    assert again.status == 200 and again.json()["status"] == "duplicate"
    assert Submission.objects.filter(survey=survey).count() == 1
    assert survey_estimates(survey=survey)["respondents"] == 1
    assert problems.messages == []


def test_without_javascript_the_physical_coin_form_works(live_server, new_page):
    survey = make_survey(COIN_ONLY + EVERY_KIND[4:])
    page, _ = new_page(java_script_enabled=False)
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    text = page.locator("#step-cheated").inner_text()
    assert "Flip a coin" in text and "Tails: answer truthfully" in text
    assert not page.locator("#step-cheated [data-role=flipper]").is_visible()
    page.locator("#step-cheated label", has_text="No").click()
    page.locator("#step-region label", has_text="North").click()
    page.locator("#step-age input").fill("30")
    page.locator("button[type=submit]", has_text="Send my answers").click()
    page.wait_for_url(f"**/s/{survey.slug}/thanks/")
    assert "Thank you" in page.content()
    sub = Submission.objects.get(survey=survey)
    assert sub.randomizer == "physical"
    assert sub.answers == {"cheated": False, "region": "North", "age": 30.0}


def test_researcher_logs_in_and_sees_the_estimate(live_server, new_page):
    survey = make_survey(EVERY_KIND)
    import uuid

    for i in range(40):
        submission_create(
            survey=survey,
            submission_id=uuid.uuid4(),
            randomizer="browser",
            answers={
                "cheated": i % 4 != 0,
                "drugs": i % 3 == 0,
                "stolen": i % 2 == 0,
                "vote": EVERY_KIND[3]["options"][i % 4],
                "region": ["North", "South"][i % 2],
                "age": 20 + i,
            },
        )
    expected = next(
        q for q in survey_estimates(survey=survey)["questions"] if q["key"] == "cheated"
    )
    page, problems = new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/surveys/{survey.slug}/")
    assert "/accounts/login/" in page.url  # login required
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"**/surveys/{survey.slug}/")
    assert page.locator("#respondent-count").inner_text() == "40"
    page.locator(".section-nav a[data-section=results]").click()  # issue 22.10: one click
    page.wait_for_url(f"**/surveys/{survey.slug}/results/")
    cell = page.locator('tr[data-key="cheated"] td.estimate').first.inner_text()
    assert cell == f"{100 * expected['estimate']:.1f}%"  # percentages (was 0.268)
    assert page.locator("svg.chart circle.point").count() >= 1 + 1 + 1 + 4
    page.select_option("#group_by", "region")
    page.locator("#group-form button").click()
    page.wait_for_url("**group_by=region")
    assert page.locator("table.crosstab thead").filter(has_text="North").count() == 1
    page.screenshot(path="/tmp/deniable-researcher.png", full_page=True)
    page.locator("figure").first.screenshot(path="/tmp/deniable-chart.png")
    assert problems.messages == []


def test_phone_sized_viewport(live_server, new_page):
    survey = make_survey(EVERY_KIND)
    page, problems = new_page(
        viewport={"width": 360, "height": 740},
        is_mobile=True,
        has_touch=True,
        device_scale_factor=2,
    )
    page.goto(f"{live_server.url}/s/{survey.slug}/")
    flip(page, "cheated", "true", skip=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # no sideways scrolling
    box = page.locator("#step-cheated [data-role=next]").bounding_box()
    assert box is not None and box["height"] >= 44  # a comfortable tap target
    page.locator("#step-cheated fieldset").scroll_into_view_if_needed()
    page.screenshot(path="/tmp/deniable-mobile.png", full_page=True)
    assert problems.messages == []


def test_builder_live_preview_and_save(live_server, new_page):
    user = get_user_model().objects.create_user("builder", password="pw-builder-123")
    page, problems = new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{live_server.url}/accounts/login/?next=/surveys/new/")
    page.fill("#id_username", "builder")
    page.fill("#id_password", "pw-builder-123")
    page.click("button[type=submit]")
    page.wait_for_url("**/surveys/new/")
    page.fill("#b-title", "Built in the browser")
    # Close date (the browser's local time; the page sends an absolute UTC instant) and a cap.
    page.fill("#b-closes", "2031-06-15T18:30")
    page.fill("#b-cap", "250")
    first = page.locator("#questions > li").first
    first.locator('[data-path="text"]').fill("Have you ever lied to your doctor?")
    preview = first.locator("[data-role=preview]")
    preview.filter(has_text="Local ε = 1.099").wait_for()
    assert "25.0%" in preview.inner_text()  # coin design, 10% prior → 25%
    # A server-side error lands next to its field: k-RR needs at least two options.
    page.click("#add-question")
    second = page.locator("#questions > li").nth(1)
    second.locator('[data-path="kind"]').select_option("choice")
    second.locator('[data-path="text"]').fill("Which?")
    second.locator('[data-path="options"]').fill("only one")
    page.click("#save")
    error = second.locator('[data-error-for="options"]')
    error.wait_for()
    assert error.inner_text()
    second.locator('[data-path="options"]').fill("a\nb\nc")
    second.locator("[data-role=preview]").filter(has_text="Local ε").wait_for()
    page.click("#save")
    # "**/surveys/*/" would already match /surveys/new/: wait for the saved survey's own page.
    page.wait_for_url(re.compile(r"/surveys/(?!new/)[a-z0-9]+/$"))
    survey = Survey.objects.get(owner=user)
    assert [q.key for q in survey.questions.all()] == ["q1", "q2"]
    assert survey.status == "draft"
    assert survey.response_cap == 250
    local = page.evaluate("new Date('2031-06-15T18:30').toISOString()")
    assert survey.closes_at.isoformat().replace("+00:00", "Z") == local.replace(".000Z", "Z")
    # Editing shows the saved values again, in local time.
    page.goto(f"{live_server.url}/surveys/{survey.slug}/edit/")
    assert page.input_value("#b-closes") == "2031-06-15T18:30"
    assert page.input_value("#b-cap") == "250"
    # The one expected console line is the browser's note about the deliberate 400 above.
    assert all("status of 400" in m for m in problems.messages), problems.messages


def test_invitation_token_travels_in_the_fragment_and_the_body_only(live_server, new_page):
    from testsupport.factories import invitations_create

    user = get_user_model().objects.create_user("inviter", password="pw-inviter-123")
    survey = survey_create(
        owner=user, data={"title": "Invite only", "access": "invite", "questions": COIN_ONLY}
    )
    survey_open(survey=survey)
    [token] = invitations_create(survey=survey, count=1)
    page, problems = new_page(reduced_motion="reduce")
    requests: list[Any] = []
    page.on("request", lambda r: requests.append(r))
    page.goto(f"{live_server.url}/s/{survey.slug}/#t={token}")
    assert "#" not in page.url  # dropped from the address bar and history
    assert page.locator("#id_token").input_value() == token
    flip(page, "cheated", "false")
    page.locator("#step-cheated [data-role=next]").click()
    page.locator("#send-button").click()
    page.locator("#thanks").wait_for()
    for r in requests:
        assert token not in r.url  # fragments are never sent; nor is it put in a query
    posts = [r for r in requests if r.method == "POST"]
    # Issue 10: the page now checks the invitation when it opens (token in the body only).
    [check] = [r for r in posts if urlsplit(r.url).path.endswith("/invitations/check/")]
    assert json.loads(check.post_data) == {"token": token}
    [post] = [r for r in posts if urlsplit(r.url).path.endswith("/responses/")]
    assert len(posts) == 2
    assert json.loads(post.post_data)["token"] == token
    assert survey.invitations.get().used is True
    assert problems.messages == []
