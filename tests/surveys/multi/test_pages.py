"""The multi-select kind on the respondent page (issue 16): the data the browser randomizes with
(thresholds and ε from the server), words that are true for per-box randomization, and the
no-JavaScript path (one YES/NO radio pair per option, a coin per option)."""

from __future__ import annotations

import math
import re

import pytest
from django.urls import reverse

from surveys.models import Submission
from tests.surveys.multi.support import OPTIONS
from tests.surveys.respondent.support import CATEGORY, PageText, make, page

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_limiter")]
MULTI = {"key": "drugs", "text": "Which have you used?", "kind": "multi", "options": OPTIONS}
WARNER_MULTI = {**MULTI, "design": {"name": "warner", "p": 0.75}}


def test_page_data_carries_thresholds_and_summed_epsilon(client, alice):
    _, data = page(client, make(alice, [MULTI]))
    [q] = data["questions"]
    assert q["kind"] == "multi" and q["randomized"] and q["options"] == OPTIONS
    assert q["design"]["name"] == "forced_response"
    # The coin design's integer thresholds (2⁵² and 3·2⁵¹), the same for every option.
    assert q["thresholds"] == {"truth": 2**52, "yes": 3 * 2**51}
    assert q["epsilon_per_option"] == pytest.approx(math.log(3), rel=1e-12)
    assert q["epsilon"] == pytest.approx(3 * math.log(3), rel=1e-12)
    assert data["epsilon_total"] == pytest.approx(3 * math.log(3), rel=1e-12)


def test_words_are_true_for_per_box_randomization(client, alice):
    _, data = page(client, make(alice, [MULTI]))
    protection = data["questions"][0]["protection"]
    assert protection["handling"] == "randomized"
    assert "each box separately" in protection["handling_text"]
    assert (
        "nobody who sees a box can tell whether it is your true answer or one picked by chance"
        in protection["handling_text"]
    )
    how = protection["randomizer"]["how"]
    # The device's own words follow one sentence that maps them onto the boxes (translated
    # sentences are never edited: docs/translations.md).
    assert how.startswith(
        "Each of the 3 options is decided separately, with its own draw, as if it were a yes/no "
        "question about that option: YES ticks its box, NO leaves it empty. Two coins decide."
    )
    assert [s["label"] for s in protection["randomizer"]["sectors"]] == []  # coins: no spinner
    yes, no = protection["reports"]["yes"], protection["reports"]["no"]
    assert yes["likelihood_ratio"] == pytest.approx(3.0) and no[
        "likelihood_ratio"
    ] == pytest.approx(3.0)
    assert (
        "A ticked box is 3 times as likely from someone for whom that option is true"
        in (yes["text"])
    )
    assert "nobody can tell whether a ticked box is your true answer" in yes["text"]
    assert "75% likely that the option is true for you" in yes["text"]
    assert (
        "An empty box is 3 times as likely from someone for whom that option is false"
        in (no["text"])
    )
    assert "75% likely that the option is false for you" in no["text"]
    for text in (yes["text"], no["text"]):
        assert " only " not in text  # a neutral statement (docs/respondent-pages.md)
    # The true answers are checkboxes with no name: nothing the form could post.
    html = client.get(reverse("respond", args=[data["slug"]])).content.decode()
    boxes = re.findall(r'<input type="checkbox" data-truth-option="([^"]+)">', html)
    assert boxes == OPTIONS
    assert 'type="checkbox" name=' not in html
    assert "whole survey: ε = 3.30" in html  # 3 · ln 3 = 3.296


def test_no_js_protocol_per_option_and_post(client, alice):
    survey = make(alice, [MULTI, CATEGORY])
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "Do this for each of the 3 options in turn, with a new flip" in html
    for i in range(3):
        assert f'name="q-drugs.{i}"' in html
    post = {"q-drugs.0": "yes", "q-drugs.1": "no", "q-drugs.2": "yes", "q-region": "N"}
    r = client.post(reverse("respond-submit", args=[survey.slug]), post)
    assert r.status_code in (200, 302), r.content.decode()[:2000]
    stored = Submission.objects.get(survey=survey)
    assert stored.randomizer == "physical"
    assert stored.answers["drugs"] == {"cannabis": True, "cocaine": False, "ecstasy": True}


def test_no_js_missing_option_is_refused_and_linked(client, alice):
    survey = make(alice, [MULTI])
    r = client.post(
        reverse("respond-submit", args=[survey.slug]), {"q-drugs.0": "yes", "q-drugs.2": "no"}
    )
    assert r.status_code == 400
    html = r.content.decode()
    doc = PageText()
    doc.feed(html)
    links = re.findall(r'<li><a href="#([^"]+)">([^<]*)</a></li>', html)
    assert links and links[0][0] == "id_q-drugs.0_0" and links[0][0] in doc.ids
    assert "cocaine" in links[0][1]
    assert not Submission.objects.filter(survey=survey).exists()


def test_warner_multi_no_js_uses_a_device_per_option(client, alice):
    survey = make(alice, [WARNER_MULTI])
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    assert "Flip a coin twice." in html
    assert "tick the opposite of your true answer for that option" in html


def test_survey_page_shows_multi_estimates_and_per_option_comparisons(client, alice):
    import uuid

    from testsupport import factories as boundary

    survey = make(alice, [MULTI, CATEGORY])  # open already
    for i in range(40):
        boundary.submission_create(
            survey=survey,
            submission_id=str(uuid.uuid4()),
            randomizer="browser",
            answers={
                "drugs": {"cannabis": i % 2 == 0, "cocaine": i % 3 == 0, "ecstasy": i % 4 == 0},
                "region": "N" if i % 2 else "S",
            },
        )
    client.force_login(alice)
    r = client.get(reverse("survey-results", args=[survey.slug]) + "?group_by=region")
    assert r.status_code == 200
    html = r.content.decode()
    for option in OPTIONS:
        assert f"drugs: {option}" in html  # a chart bar per option
    comparison = html[html.index('class="comparison" data-key="drugs"') :]
    comparison = comparison[: comparison.index("</div>")]
    assert "Each option tested separately" in comparison
    assert "Nothing to test" not in comparison
    for option in OPTIONS:
        assert f"<li>{option}: " in comparison


def test_a_spinner_names_its_sectors_by_the_box_they_leave():
    """A forced-response spinner for a multi question: the YES/NO sectors read Ticked/Empty
    (by branch, in the page's language), the truth sector is unchanged."""
    from surveys.models import Question
    from surveys.pages.protection import question_protection

    q = Question(
        key="m",
        text="Which?",
        kind="multi",
        options=OPTIONS,
        design={"name": "forced_response", "p_truth": 0.6, "p_yes": 0.2, "p_no": 0.2},
    )
    randomizer = question_protection(q)["randomizer"]
    assert randomizer["kind"] == "spinner"
    assert randomizer["button"] == "Spin the spinner for each option"
    labels = {s["branch"]: s["label"] for s in randomizer["sectors"]}
    assert labels == {"truth": "Your true answer", "yes": "Ticked", "no": "Empty"}
