"""Researcher pages (issue 10): percentages, the group-by cross-tab, clip notes, downloads."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.urls import reverse

from surveys.api.estimates import estimates_body as survey_estimates
from surveys.definitions import question_designs as designs
from testsupport import factories

pytestmark = pytest.mark.django_db

QUESTIONS = [
    {"key": "cheated", "text": "Have you ever cheated on a test?", "kind": "yes_no"},
    {
        "key": "vote",
        "text": "Whom did you vote for?",
        "kind": "choice",
        "options": ["A", "B", "C"],
        "design": {"name": "k_rr", "epsilon": 1.0},
    },
    {"key": "region", "text": "Region", "kind": "category", "options": ["North", "South"]},
    {"key": "age", "text": "Age", "kind": "number", "min": 18, "max": 99},
]


@pytest.fixture
def alice():
    return factories.make_user("alice", "pw-alice-123")


def make_survey(owner, *, answers):
    survey = factories.make_survey(owner, {"title": "Campus life", "questions": QUESTIONS})
    for a in answers:
        factories.submit(survey, a)
    return survey


def mixed(i: int) -> dict:
    return {
        "cheated": i % 3 == 0,
        "vote": "ABC"[i % 3],
        "region": "North" if i % 2 else "South",
        "age": 20 + i % 40,
    }


@pytest.fixture
def survey(alice):
    return make_survey(alice, answers=[mixed(i) for i in range(60)])


def page(client, survey, section="survey-results", **query):
    response = client.get(reverse(section, args=[survey.slug]), query)
    assert response.status_code == 200
    return response.content.decode()


def test_proportions_are_shown_as_percentages(client, alice, survey):
    client.force_login(alice)
    html = page(client, survey)
    cheated = next(q for q in survey_estimates(survey=survey)["questions"] if q["key"] == "cheated")
    row = re.search(r'<tr data-key="cheated".*?</tr>', html, re.S).group(0)
    assert f">{100 * cheated['estimate']:.1f}%<" in row
    lo, hi = 100 * cheated["ci_low"], 100 * cheated["ci_high"]
    assert f"{lo:.1f}–{hi:.1f}%" in row
    assert f"{100 * cheated['std_error']:.1f} pp" in row
    assert f"{cheated['estimate']:.3f}" not in row  # not 0.268 any more


def test_group_by_gives_one_cross_tab_with_every_group(client, alice, survey):
    client.force_login(alice)
    plain = page(client, survey)
    assert "crosstab" not in plain
    html = page(client, survey, group_by="region")
    estimates = survey_estimates(survey=survey, group_by="region")
    assert html.count('<table class="crosstab stack">') == 1
    assert (
        html.count('<table class="estimates stack">') == 1
    )  # the overall table only, not one a group
    head = re.search(r'<table class="crosstab stack">.*?</thead>', html, re.S).group(0)
    for g in estimates["groups"]:
        label = f'{g["group"]}<br><span class="small muted">n = {g["respondents"]}</span>'
        assert label in head
    # One row per option of the other questions; the group-by question is not a row.
    body = html.split('<table class="crosstab stack">')[1].split("</table>")[0]
    assert 'data-key="region"' not in body
    rows = re.findall(r'<tr data-key="(\w+)" data-option="([^"]*)"', body)
    assert rows == [
        ("cheated", "yes"),
        ("vote", "A"),
        ("vote", "B"),
        ("vote", "C"),
        ("age", "mean"),
    ]
    # Each cell: the group's estimate and its interval.
    north = next(g for g in estimates["groups"] if g["group"] == "North")
    n_cheated = next(q for q in north["questions"] if q["key"] == "cheated")
    row = re.search(r'<tr data-key="cheated".*?</tr>', body, re.S).group(0)
    assert f"{100 * n_cheated['estimate']:.1f}%" in row
    assert f"{100 * n_cheated['ci_low']:.1f}–{100 * n_cheated['ci_high']:.1f}%" in row


def test_an_estimate_pinned_at_zero_is_explained(client, alice):
    # Everybody reports "no" to a coin question: λ̂ = 0 < d = 0.25, so π̂ = −0.5, shown as 0%.
    survey = make_survey(alice, answers=[{**mixed(i), "cheated": False} for i in range(20)])
    est = next(q for q in survey_estimates(survey=survey)["questions"] if q["key"] == "cheated")
    assert est["estimate"] == 0.0 and est["estimate_unclipped"] < 0
    client.force_login(alice)
    html = page(client, survey)
    assert 'id="clip-note"' in html and 'href="#clip-note"' in html
    assert "Pinned at 0% or 100%" in html


def test_no_clip_note_without_a_pinned_estimate(client, alice, survey):
    estimates = survey_estimates(survey=survey)
    flat = [estimates["questions"][0]] + estimates["questions"][1]["options"]
    assert all(0 < e["estimate"] < 1 for e in flat)
    client.force_login(alice)
    assert "clip-note" not in page(client, survey)


def test_downloads_are_attachments_with_distinct_names(client, alice, survey):
    client.force_login(alice)
    html = page(client, survey, group_by="region")
    base = f"/api/v1/surveys/{survey.slug}/estimates/"
    links = {
        f"{base}?format=csv": f"{survey.slug}-estimates.csv",
        f"{base}?download=1": f"{survey.slug}-estimates.json",
        f"{base}?group_by=region&amp;format=csv": f"{survey.slug}-estimates-by-region.csv",
        f"{base}?group_by=region&amp;download=1": f"{survey.slug}-estimates-by-region.json",
    }
    for href, name in links.items():
        assert f'href="{href}" download' in html
        response = client.get(href.replace("&amp;", "&"))
        assert response.status_code == 200
        assert response["Content-Disposition"] == f'attachment; filename="{name}"'
    # The labelled reports for Stata and SPSS (issue 25), each an attachment named by its format.
    export = reverse("api-survey-export", args=[survey.slug])
    for fmt in ("dta", "sav"):
        href = f"{export}?format={fmt}"
        assert f'href="{href}" download' in html
        response = client.get(href)
        assert response.status_code == 200
        disposition = response["Content-Disposition"]
        assert disposition.startswith("attachment;") and disposition.endswith(f'.{fmt}"')
    # The JSON API answer itself is unchanged: no attachment header, the same body.
    plain = client.get(base, {"group_by": "region"})
    assert "Content-Disposition" not in plain
    assert plain.json() == client.get(base, {"group_by": "region", "download": "1"}).json()
    grouped_csv = client.get(base, {"group_by": "region", "format": "csv"}).content.decode()
    # Text cells carry the exports' "'" tag (docs/exports.md): drop it as the documented reads do.
    groups = {r["group"].removeprefix("'") for r in csv.DictReader(io.StringIO(grouped_csv))}
    assert groups == {"", "North", "South"}


def test_close_button_asks_first(client, alice, survey):
    client.force_login(alice)
    html = page(client, survey, "survey-detail")
    form = re.search(r'<form[^>]*action="[^"]*/close/"[^>]*>', html).group(0)
    assert 'data-confirm="close-dialog"' in form
    dialog = re.search(r'<dialog id="close-dialog".*?</dialog>', html, re.S).group(0)
    assert "cannot be undone" in dialog
    assert 'data-role="confirm"' in dialog and 'data-role="cancel"' in dialog
    assert "js/dashboard.js" in html


def test_builder_gets_its_starting_designs_from_the_server(client, alice):
    """Issue 12: builder.js keeps no copy of any design or ε; each starting design is valid."""
    client.force_login(alice)
    html = client.get(reverse("survey-new")).content.decode()
    island = r'<script id="builder-data" type="application/json">(.*?)</script>'
    match = re.search(island, html, re.S)
    assert match is not None
    starting = json.loads(match.group(1))["starting_designs"]
    assert starting == json.loads(json.dumps(designs.starting_designs()))
    assert starting["forced_response"] == designs.default_design_spec("yes_no")
    assert starting["k_rr"] == designs.default_design_spec("choice")
    for name, spec in starting.items():
        kind = "choice" if name in designs.design_names("choice") else "yes_no"
        assert designs.design_for(kind, spec, k=3).epsilon <= 10


# ── the builder's kinds and grouped inputs, from the registries (issue 23) ──


def test_builder_kinds_say_what_the_builder_used_to_hard_code() -> None:
    from surveys.pages.researcher import builder_kinds

    got = builder_kinds()
    kinds = got["kinds"]
    # The lists builder.js and logic.js carried before they read the island.
    assert {k for k, v in kinds.items() if v["options"]} == {"choice", "category", "multi"}
    assert {k for k, v in kinds.items() if v["bounds"]} == {"number"}
    assert {k for k, v in kinds.items() if v["randomized"]} == {"yes_no", "choice", "multi"}
    assert {k for k, v in kinds.items() if v["design"] == "select"} == {"yes_no", "multi"}
    assert {k for k, v in kinds.items() if v["design"] == "fixed"} == {"choice"}
    assert {k for k, v in kinds.items() if v["ordered"]} == {"choice"}
    assert {k for k, v in kinds.items() if v["show_if_source"]} == {"category"}
    assert {k for k, v in kinds.items() if v["reports_an_option"]} == {"choice"}
    assert kinds["multi"]["power_kind"] == "yes_no"
    assert kinds["choice"]["power_kind"] == "choice"
    assert got["default_kind"] == "yes_no"
    # The translation panel offers a design's own texts where its kind translates them: the
    # crosswise statement and the unknown-prevalence design's innocuous question (the server
    # already required both; the builder offered only the crosswise one).
    assert got["translated_design_fields"] == {
        "crosswise": ["innocuous_text"],
        "unrelated_question_unknown": ["innocuous_text"],
    }


def test_builder_group_inputs_are_the_grouped_designs_fields() -> None:
    from surveys.pages.researcher import builder_group_inputs

    blocks = builder_group_inputs(designs.builder_designs())
    assert [(b["design"], b["param"]) for b in blocks] == [
        ("unrelated_question_unknown", "groups"),
        ("unrelated_question_unknown", "innocuous_prevalence_min"),
        ("unrelated_question_unknown", "innocuous_prevalence_max"),
        ("cheater_detection", "groups"),
    ]
    assert [i["path"] for i in blocks[0]["inputs"]] == ["design.groups[0].p", "design.groups[1].p"]
    assert [i["path"] for i in blocks[1]["inputs"]] == ["design.innocuous_prevalence_min"]
    assert [(i["path"], i["label"]) for i in blocks[3]["inputs"]] == [
        ("design.groups[0].p_yes", "Group 1: P(forced YES)"),
        ("design.groups[0].p_no", "Group 1: P(forced NO)"),
        ("design.groups[1].p_yes", "Group 2: P(forced YES)"),
        ("design.groups[1].p_no", "Group 2: P(forced NO)"),
    ]


def test_the_builder_page_renders_the_grouped_inputs(client, alice) -> None:
    client.force_login(alice)
    html = client.get(reverse("survey-new")).content.decode()
    for path in ("design.groups[0].p_yes", "design.groups[1].p_no"):
        assert f'data-path="{path}"' in html
        assert f'data-error-for="{path}"' in html
    assert 'data-error-for="design.groups"' in html
    # The innocuous statement's one input serves every design taking it.
    shared = re.search(r'<div data-design="([^"]*)">\s*<label data-for="innocuous_pick">', html)
    assert shared and set(shared[1].split()) == {"crosswise", "unrelated_question_unknown"}


def test_the_builder_card_names_its_kinds_from_the_registry(client, alice) -> None:
    # builder.html once listed the kinds itself (issue 23's ratchet, tests/test_quoted_names.py):
    # the page the registry renders holds the same select, data-show lists and design selects.
    from surveys.pages.researcher import builder_card

    card = builder_card(designs.builder_designs())
    assert [(k["value"], k["title"]) for k in card["menu"]] == [
        ("yes_no", "Sensitive yes/no (randomized)"),
        ("choice", "Sensitive choice (randomized, k-RR)"),
        ("category", "Non-sensitive category (direct)"),
        ("number", "Non-sensitive number (direct)"),
        ("multi", "Sensitive multi-select (randomized, one yes/no per option)"),
    ]
    assert card["show"] == {
        "options": "choice category multi",
        "bounds": "number",
        "design": "yes_no multi",
        "design_per_option": "multi",
        "fixed_design": "choice",
        "ordered": "choice",
        "direct": "category number",
        "randomized": "yes_no choice multi",
        "regression": "yes_no",
    }
    described = designs.builder_designs()
    assert card["designs"] == [d for d in described if "yes_no" in d["kinds"]]
    assert card["fixed_designs"] == [d for d in described if "choice" in d["kinds"]]
    client.force_login(alice)
    html = client.get(reverse("survey-new")).content.decode()
    options = re.search(r'<select data-path="kind">(.*?)</select>', html, re.S)
    assert options and re.findall(r'<option value="([^"]+)">', options[1]) == [
        "yes_no", "choice", "category", "number", "multi"
    ]  # fmt: skip
    shows = re.findall(r'data-show="([^"]*)"', html)
    assert shows == [
        "choice category multi", "number", "yes_no multi", "multi", "choice", "choice",
        "category number", "yes_no choice multi", "yes_no choice multi", "yes_no",
    ]  # fmt: skip
    for select in ("design.name", "options_design"):
        listed = re.search(rf'<select data-path="{re.escape(select)}">(.*?)</select>', html, re.S)
        names = re.findall(r'<option value="([^"]+)">', listed[1]) if listed else []
        wanted = "yes_no" if select == "design.name" else "choice"
        assert names == [d["name"] for d in described if wanted in d["kinds"]], select


def test_builder_number_inputs_are_the_one_group_designs_numbers(client, alice) -> None:
    # builder.html once wrote each design's inputs itself (issue 23's ratchet): one input per
    # number parameter of the design select's one-group designs, shown for each design taking it.
    from surveys.pages.researcher import builder_card, builder_number_inputs

    offered = builder_card(designs.builder_designs())["designs"]
    inputs = builder_number_inputs(offered)
    by_path = {i["path"]: (i["design"], i["label"], i["maximum"]) for i in inputs}
    assert by_path == {
        "design.p_truth": ("forced_response", "P(answer truthfully)", 1),
        "design.p_yes": ("forced_response", "P(forced YES)", 1),
        "design.p_no": ("forced_response", "P(forced NO)", 1),
        "design.p": ("warner unrelated_question", "P(the real question)", 1),
        "design.innocuous_prevalence": (
            "unrelated_question crosswise",
            "Prevalence of the innocuous “yes”",
            1,
        ),
        "design.p_yes_if_trait": ("two_probability", "P(YES | trait)", 1),
        "design.p_yes_if_not": ("two_probability", "P(YES | no trait)", 1),
    }
    # Every number of every one-group design has its input: none is left without a field.
    for design in offered:
        for param in design["params"]:
            if not design["grouped"] and param["type"] == "probability":
                assert design["name"] in by_path[f"design.{param['name']}"][0].split()
    client.force_login(alice)
    html = client.get(reverse("survey-new")).content.decode()
    for path, (names, label, _) in by_path.items():
        found = re.search(
            rf'<div data-design="([^"]*)"><label data-for="{re.escape(path)}">([^<]*)</label>', html
        )
        assert found and (found[1], found[2]) == (names, label), path
    # Only the crosswise model reports SAME/DIFFERENT (static/js/builder/crosswise.js reads it).
    assert [d["name"] for d in designs.builder_designs() if d["paired"]] == ["crosswise"]
