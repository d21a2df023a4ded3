"""Round trip, as a property: any survey of every kind and design (words in one or two
languages, skip logic, bounds, required or not) → .xlsx → import gives the identical definition,
and pyxform converts every exported form to an XForm."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpcore.local.designs import design_named
from surveys.inputs.design_specs import DESIGN_NAMES
from surveys.kinds._definitions import definition_kind
from surveys.models import Survey
from surveys.services.xlsform import survey_import_xlsform
from surveys.xlsform.write import survey_xlsx
from tests.surveys.xlsform.support import xform
from testsupport.factories import survey_create

pytestmark = pytest.mark.django_db

# Words: letters of several scripts, digits, punctuation (a leading "=" included: it must stay
# text, never become a formula) and inner newlines. Not "$" (pyxform reads ${…} as a reference)
# and no other control character (XML 1.0 cannot carry most of them).
WORD = (
    st.text(
        alphabet=st.sampled_from("abcXYZ éñüß日本 ДЖ 0123456789=<>'\"&.,;:!?-_()\n"),
        min_size=1,
        max_size=24,
    )
    .map(str.strip)
    .filter(bool)
)
KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


def _designs() -> list[tuple[str, dict[str, Any]]]:
    """(stored kind, starting spec) for every design each kind's validator accepts, from the
    registry (so a new kind or design is covered without a change here)."""
    return [
        (kind, dict(design_named(name).starting))
        for kind, names in DESIGN_NAMES.items()
        for name in names
    ]


DESIGNS = _designs()


@st.composite
def questions(draw: Any) -> list[dict[str, Any]]:
    keys = draw(st.lists(KEYS, min_size=1, max_size=6, unique=True))
    out: list[dict[str, Any]] = []
    for key in keys:
        shape = draw(st.sampled_from(["randomized", "category", "number"]))
        q: dict[str, Any] = {"key": key, "text": draw(WORD), "required": draw(st.booleans())}
        if shape == "randomized":
            stored, spec = draw(st.sampled_from(DESIGNS))
            spec = dict(spec)
            for text in ("innocuous_text",):
                if text in spec:
                    spec[text] = draw(WORD)
            if spec["name"] == "k_rr":
                spec["epsilon"] = draw(st.sampled_from([0.5, 1.0986122886681098, 2, 3.25]))
            q.update(kind=stored, design=spec)
            if stored in ("choice", "multi"):
                q["options"] = draw(st.lists(WORD, min_size=2, max_size=4, unique=True))
            if definition_kind(stored, spec).may_be_ordered:  # k-RR choice (not OUE)
                q["ordered"] = draw(st.booleans())
        elif shape == "category":
            q.update(
                kind="category", options=draw(st.lists(WORD, min_size=2, max_size=4, unique=True))
            )
        else:
            integer = draw(st.booleans())
            bound = st.integers(-1000, 1000) if integer else st.floats(-1e9, 1e9, width=64)
            low, high = sorted(draw(st.lists(bound, min_size=2, max_size=2, unique=True)))
            q.update(kind="number", min=low, max=high, integer=integer)
        targets = [t for t in out if t["kind"] == "category"]
        if shape != "randomized" and targets and draw(st.booleans()):
            target = draw(st.sampled_from(targets))
            chosen = draw(st.lists(st.sampled_from(target["options"]), min_size=1, unique=True))
            q["show_if"] = {"key": target["key"], "in": chosen}
        out.append(q)
    return out


@st.composite
def bodies(draw: Any) -> dict[str, Any]:
    qs = draw(questions())
    body: dict[str, Any] = {
        "title": draw(WORD),
        "questions": qs,
        "budget": {"epsilon": draw(st.sampled_from([0.5, 1.0, 3.3])), "delta": 1e-6},
        "planned_n": draw(st.integers(10, 5000)),
    }
    if draw(st.booleans()):
        body["description"] = draw(WORD)
    if draw(st.booleans()):
        body["languages"] = ["en", "es"]
        words: dict[str, Any] = {"title": draw(WORD), "questions": {}}
        if "description" in body:
            words["description"] = draw(WORD)
        for q in qs:
            entry: dict[str, Any] = {"text": draw(WORD)}
            if q.get("options"):
                entry["options"] = {o: draw(WORD) for o in q["options"]}
            if q.get("design", {}).get("name") == "crosswise":
                entry["innocuous_text"] = draw(WORD)
            words["questions"][q["key"]] = entry
        body["translations"] = {"es": words}
    return body


def snapshot(survey: Survey) -> dict[str, Any]:
    """Everything a survey's definition holds (not its slug, owner, dates or answers)."""
    fields = ("title", "description", "access", "planned_n", "response_cap", "budget_epsilon")
    fields += ("budget_delta", "languages", "translations", "status")
    out: dict[str, Any] = {name: getattr(survey, name) for name in fields}
    out["questions"] = [
        (
            q.key,
            q.text,
            q.kind,
            q.design,
            q.options,
            q.min_value,
            q.max_value,
            q.required,
            q.show_if,
            q.ordered,
            q.integer,
        )
        for q in survey.questions.order_by("position")
    ]
    return out


@settings(
    max_examples=20,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(body=bodies())
def test_export_then_import_gives_the_same_survey(alice, body):
    original = survey_create(owner=alice, data=body)
    data = survey_xlsx(original)
    before = snapshot(original)
    original.delete()  # the form carries its slug (form_id)
    xform(data)
    imported = survey_import_xlsform(owner=alice, data=data)
    assert snapshot(imported) == before
    imported.delete()


def test_every_design_of_every_kind_is_generated():
    assert {kind for kind, _ in DESIGNS} == {"yes_no", "choice", "multi"}
    assert {spec["name"] for _, spec in DESIGNS} >= {"crosswise", "cheater_detection", "k_rr"}
