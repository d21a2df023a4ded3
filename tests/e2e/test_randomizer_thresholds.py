"""The page's randomizer uses the server's integer thresholds unchanged (issue 11 §3), in Chromium.

``crypto.getRandomValues`` is replaced (before any page script runs) by a queue of injected 32-bit
words, so the draw ``U = hi·2²¹ + (lo >>> 11)`` takes exactly the values we choose: ``T − 1`` and
``T`` for every threshold ``T`` in the page data. Just below a threshold must land in the branch
below it, at the threshold in the next one; the report is read where the page memoizes it. The
old page compared a 2³² draw with thresholds it computed itself (``round(p·2³²)``, and NaN for
k-RR at large ε), so these boundaries did not exist on it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from surveys.services import survey_open
from testsupport.factories import survey_create

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

QUESTIONS = [
    {"key": "coin", "text": "Coin?", "kind": "yes_no"},
    {
        "key": "forced",
        "text": "Forced?",
        "kind": "yes_no",
        "design": {"name": "forced_response", "p_truth": 0.6, "p_yes": 0.3, "p_no": 0.1},
    },
    {"key": "mirror", "text": "Warner?", "kind": "yes_no", "design": {"name": "warner", "p": 0.7}},
    {
        "key": "other",
        "text": "Unrelated?",
        "kind": "yes_no",
        "design": {"name": "unrelated_question", "p": 0.6, "innocuous_prevalence": 0.3},
    },
    {
        "key": "vote",
        "text": "Vote?",
        "kind": "choice",
        "options": ["a", "b", "c"],
        "design": {"name": "k_rr", "epsilon": 2},
    },
]

# Installed before the page's scripts: words come from window.__words while it has any; a draw
# beyond them is counted in window.__extra (the test asserts there is none).
INJECT = """
(() => {
  const real = crypto.getRandomValues.bind(crypto);
  window.__words = [];
  window.__extra = 0;
  crypto.getRandomValues = (array) => {
    if (!(array instanceof Uint32Array)) return real(array);
    for (let i = 0; i < array.length; i += 1) {
      if (window.__words.length) array[i] = window.__words.shift();
      else { window.__extra += 1; array[i] = real(new Uint32Array(1))[0]; }
    }
    return array;
  };
})();
"""

FLIP = """
([key, truth, words]) => {
  window.__words = words.slice();
  const step = document.getElementById(`step-${key}`);
  step.querySelector(`[data-truth="${truth}"]`).click();
  step.querySelector("[data-role=flip]").click();
  return {
    left: window.__words.length,
    extra: window.__extra,
    stored: window.localStorage.getItem(`deniable:${document.querySelector("#survey-data") &&
      JSON.parse(document.querySelector("#survey-data").textContent).memo_scope}:${key}`),
  };
}
"""


def u53(value: int) -> list[int]:
    """The two words the page turns into ``value``: hi·2²¹ + (lo >>> 11)."""
    assert 0 <= value < 2**53
    return [value >> 21, (value & (2**21 - 1)) << 11]


def _cases(q: dict[str, Any], t: dict[str, int]) -> list[tuple[str, list[int], Any]]:
    """(truth, words, expected report) at every threshold boundary of the question."""
    if q["key"] in ("coin", "forced"):
        out = []
        for truth, value in (("true", True), ("false", False)):
            out += [
                (truth, u53(t["truth"] - 1), value),  # last value of "the truth"
                (truth, u53(t["truth"]), True),  # first forced "yes"
                (truth, u53(t["yes"] - 1), True),  # last forced "yes"
                (truth, u53(t["yes"]), False),  # first forced "no"
            ]
        return out
    if q["key"] == "mirror":
        return [
            ("true", u53(t["as_asked"] - 1), True),
            ("true", u53(t["as_asked"]), False),
            ("false", u53(t["as_asked"] - 1), False),
            ("false", u53(t["as_asked"]), True),
        ]
    if q["key"] == "other":
        out = []
        for truth, value in (("true", True), ("false", False)):
            out += [
                (truth, u53(t["sensitive"] - 1), value),
                (truth, u53(t["sensitive"]) + u53(t["innocuous_yes"] - 1), True),
                (truth, u53(t["sensitive"]) + u53(t["innocuous_yes"]), False),
            ]
        return out
    # k-RR, truth "b": keep below the threshold; else the others [a, c] by one uniform word.
    return [
        ("b", u53(t["keep"] - 1), "b"),
        ("b", [*u53(t["keep"]), 0], "a"),
        ("b", [*u53(t["keep"]), 1], "c"),
        ("b", [*u53(t["keep"]), 2**32 - 1], "c"),
    ]


def test_randomizer_uses_the_thresholds_at_their_boundaries(live_server, new_page):
    user = get_user_model().objects.create_user(username="thresholds")
    survey = survey_open(
        survey=survey_create(owner=user, data={"title": "Boundaries", "questions": QUESTIONS})
    )
    url = f"{live_server.url}/s/{survey.slug}/"
    page, problems = new_page(reduced_motion="reduce")
    page.add_init_script(INJECT)
    page.goto(url)
    html = page.content()
    data = json.loads(
        re.search(r'<script id="survey-data" type="application/json">(.*?)</script>', html, re.S)
        .group(1)
        .replace("&quot;", '"')
    )
    thresholds = {q["key"]: q["thresholds"] for q in data["questions"]}
    assert thresholds["coin"] == {"truth": 2**52, "yes": 3 * 2**51}
    cases = {q["key"]: _cases(q, thresholds[q["key"]]) for q in QUESTIONS}
    rounds = max(len(c) for c in cases.values())
    checked = 0
    for r in range(rounds):
        page.evaluate("window.localStorage.clear()")
        page.goto(url, wait_until="domcontentloaded")
        for q in QUESTIONS:
            if r >= len(cases[q["key"]]):
                continue
            truth, words, expected = cases[q["key"]][r]
            got = page.evaluate(FLIP, [q["key"], truth, words])
            where = (q["key"], truth, words)
            assert got["left"] == 0 and got["extra"] == 0, (where, got)  # every word, no more
            assert got["stored"] is not None, where
            assert json.loads(got["stored"]) == expected, (where, got)
            checked += 1
    assert checked == sum(len(c) for c in cases.values()) == 8 + 8 + 4 + 6 + 4
    assert problems.messages == []
