"""No-JS bodies have one length per question whatever is ticked (issue 21 item 6), measured in
Chromium with JavaScript off, the way a network observer sees them.

Chromium form-encodes a post with the WHATWG application/x-www-form-urlencoded serializer: it
leaves ``*-._`` and alphanumerics as they are, sends a space as ``+`` and percent-encodes every
other byte of the UTF-8 text (``~`` included) — not Python's ``quote_plus`` (which keeps ``~``
and encodes ``*``). Every printable ASCII character and some non-ASCII ones appear in options
here, each once and three times over (the lengths that differed most: options ``*``/``**``/
``***`` gave 15/13/11 bytes). The test posts each option of every question, reads each field's
bytes from the captured body and requires one length per question.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import unquote_plus

import pytest

from testsupport.factories import make_campus_survey

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

CHARS = [chr(c) for c in range(0x20, 0x7F)] + ["é", "ß", "€", "日", "😀"]


def _options(c: str) -> list[str]:
    # A space cannot open or close an option (they are stripped when saved): wrap it.
    return [f"a{c}b", f"a{c * 3}b"] if c == " " else [c, c * 3]


def _questions() -> list[dict[str, Any]]:
    out = []
    for i in range(0, len(CHARS), 2):
        options = [o for c in CHARS[i : i + 2] for o in _options(c)]
        out.append(
            {
                "key": f"q{i // 2}",
                "text": f"Characters {i // 2}",
                "kind": "choice",
                "options": options,
                # ε = ln 3 with 4 options: keep with ½ (a coin), else a die picks another.
                "design": {"name": "k_rr", "epsilon": math.log(len(options) - 1)},
            }
        )
    return out


def _fields(body: str) -> dict[str, int]:
    """Each field's bytes on the wire (``name=value``), keyed by its decoded name."""
    out = {}
    for part in body.split("&"):
        name = unquote_plus(part.split("=", 1)[0])
        out[name] = len(part.encode())
    return out


def test_every_option_posts_the_same_length(live_server, new_page):
    questions = _questions()
    survey = make_campus_survey(questions)
    url = f"{live_server.url}/s/{survey.slug}/"
    bodies: list[str] = []

    def capture(route: Any) -> None:
        bodies.append(route.request.post_data)
        route.abort()

    for index in range(4):  # every question's option `index`
        # A page per round: the aborted post leaves the page navigating to Chromium's error
        # page, which would cut the next round's goto short.
        page, _ = new_page(java_script_enabled=False)
        page.route("**/thanks/**", capture)
        page.goto(url)
        for q in questions:
            page.locator(f"#id_q-{q['key']}_{index}").check()
        # Wait for the captured post itself to fail (aborted), not for a thanks page that never
        # loads: a 3 s timeout per round was half of this test's time.
        with page.expect_event("requestfailed", lambda request: "/thanks/" in request.url):
            page.locator("button[type=submit]").click()
        assert len(bodies) == index + 1
    assert len(bodies) == 4
    per_round = [_fields(b) for b in bodies]
    sent = [{unquote_plus(p.split("=", 1)[1]).rstrip(" ") for p in b.split("&")} for b in bodies]
    for q in questions:
        name = f"q-{q['key']}"
        lengths = [fields[name] for fields in per_round]
        assert len(set(lengths)) == 1, (q["options"], lengths)
        assert all(option in values for option, values in zip(q["options"], sent, strict=True))
    assert len({len(b.encode()) for b in bodies}) == 1
    print("no-JS body bytes per option round:", [len(b.encode()) for b in bodies])
