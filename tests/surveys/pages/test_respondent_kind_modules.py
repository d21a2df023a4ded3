"""The respondent page's data island names each question's kind as the registry does
(``kind_name``): the page picks that kind's ES module, static/js/respond/kinds/<name>.js (issue 23
item 6). Kinds selected by their design (cheating detection, crosswise) are stored as yes/no: the
name is what tells the page apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.templatetags.static import static
from django.urls import reverse

from dpcore.local.designs import registered as registered_designs
from surveys.definitions.innocuous import INNOCUOUS_STATEMENTS
from surveys.kinds import kind_named, kinds
from tests.surveys.cheater.support import DESIGN as CHEATER_DESIGN
from tests.surveys.pages.support import ALL_KINDS, make_survey
from tests.surveys.respondent.support import page

pytestmark = pytest.mark.django_db

STATIC_JS = Path(__file__).resolve().parents[3] / "static" / "js"
STATEMENT = INNOCUOUS_STATEMENTS[0]
QUESTIONS = [
    *ALL_KINDS,
    {"key": "bribe", "text": "I have taken a bribe.", "kind": "yes_no", "design": CHEATER_DESIGN},
    {
        "key": "gift",
        "text": "I have taken a gift.",
        "kind": "yes_no",
        "design": {
            "name": "unrelated_question_unknown",
            "groups": [{"p": 0.5}, {"p": 0.1}],
            "innocuous_text": "I was born in the first half of the year.",
            "innocuous_prevalence_min": 0.4,
            "innocuous_prevalence_max": 0.6,
        },
    },
    {
        "key": "receipt",
        "text": "I have used a false receipt.",
        "kind": "yes_no",
        "design": {
            "name": "crosswise",
            "innocuous_prevalence": STATEMENT["prevalence"],
            "innocuous_text": STATEMENT["text"],
        },
    },
    {
        "key": "sports",
        "text": "Which have you done?",
        "kind": "multi",
        "options": ["ran", "swam"],
    },
    {
        "key": "brand",
        "text": "Which brand do you use?",
        "kind": "choice",
        "options": ["x", "y", "z"],
        "design": {"name": "oue", "epsilon": 1.0},
    },
]


def test_every_kind_has_its_js_module() -> None:
    for kind in kinds():
        assert (STATIC_JS / kind.js_module).is_file(), kind.js_module


def test_the_data_island_names_each_questions_kind(client, alice) -> None:
    _, data = page(client, make_survey(alice, QUESTIONS))
    names = {q["key"]: q["kind_name"] for q in data["questions"]}
    assert names == {
        "cheated": "yes_no",
        "drugs": "yes_no",
        "stolen": "yes_no",
        "vote": "choice",
        "region": "category",
        "age": "number",
        "bribe": "cheater_detection",
        "gift": "unrelated_question_unknown",
        "receipt": "crosswise",
        "sports": "multi",
        "brand": "oue",
    }
    # Every kind of the registry is on this page, and each name finds its kind.
    assert set(names.values()) == {kind.name for kind in kinds()}
    for name in names.values():
        assert kind_named(name).name == name


def test_the_page_loads_every_kinds_module_from_the_registry(client, alice) -> None:
    # One module script per registered kind before the page's entry (each registers itself:
    # static/js/respond/kinds/index.js names no kind), and the offline worker keeps them all.
    survey = make_survey(alice, QUESTIONS[:1])
    _, data = page(client, survey)
    assert data["kind_modules"] == {kind.name: static(f"js/{kind.js_module}") for kind in kinds()}
    html = client.get(reverse("respond", args=[survey.slug])).content.decode()
    scripts = re.findall(r'<script type="module" src="([^"]+)"></script>', html)
    # The designs' draws first (a kind's draw runs through them), then the kinds, then the page.
    assert scripts == [
        *data["design_modules"].values(),
        *data["kind_modules"].values(),
        static("js/respond.js"),
    ]
    for name, address in data["kind_modules"].items():
        assert address == f"/static/js/respond/kinds/{name}.js"
        assert (STATIC_JS / "respond" / "kinds" / f"{name}.js").is_file(), address


def test_the_page_loads_every_one_report_designs_module_from_the_registry(client, alice) -> None:
    # static/js/rr/randomizer.js names no design: each design `randomize` draws registers itself
    # from static/js/rr/designs/<name>.js, and the page loads the registry's list of them. The
    # directory holds those modules and no other.
    _, data = page(client, make_survey(alice, QUESTIONS[:1]))
    with_module = [e for e in registered_designs() if e.page_module]
    assert data["design_modules"] == {e.name: static(f"js/{e.js_module}") for e in with_module}
    assert {"forced_response", "k_rr"} <= set(data["design_modules"])
    for name, address in data["design_modules"].items():
        assert address == f"/static/js/rr/designs/{name}.js"
    on_disk = {p.stem for p in (STATIC_JS / "rr" / "designs").glob("*.js")}
    assert on_disk == set(data["design_modules"])
    # Only a design drawn by `randomize` has one: grouped, no-randomizer and k-bit designs draw
    # in their kind's module, which registers them.
    assert all(e.browser is not None or "options" in e.serves for e in with_module)
    assert not any(e.grouped or e.no_randomizer for e in with_module)
    randomizer = (STATIC_JS / "rr" / "randomizer.js").read_text(encoding="utf-8")
    for entry in registered_designs():
        assert f'"{entry.name}"' not in randomizer, entry.name


def test_no_page_module_lists_the_kinds_by_hand() -> None:
    registry = (STATIC_JS / "respond" / "kinds" / "index.js").read_text(encoding="utf-8")
    assert not re.search(r"^\s*import\b", registry, re.M)
    entry = (STATIC_JS / "respond.js").read_text(encoding="utf-8")
    for kind in kinds():
        for source in (registry, entry):
            assert f"/{kind.name}.js" not in source and f'"{kind.name}"' not in source, kind.name


def test_the_private_note_s_padlock_is_drawn_not_an_emoji(client, alice) -> None:
    """The 🔒 emoji showed as an empty box in the smoke walk's screenshots (no emoji font in
    headless Chromium, nor on many Linux desktops): every kind's note draws its padlock as a
    decorative SVG, hidden from screen readers, beside the same sentence."""
    html = client.get(reverse("respond", args=[make_survey(alice, QUESTIONS).slug])).content
    text = html.decode()
    notes = re.findall(r'<p class="private-note">(.*?)</p>', text, re.S)
    assert len(notes) >= 3  # yes/no designs, a choice, a multi-select at least
    for note in notes:
        assert '<svg class="icon-lock" aria-hidden="true" focusable="false"' in note
        assert "The draw" in note
    assert "\N{LOCK}" not in text
