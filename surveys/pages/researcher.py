"""Researcher read pages: the survey list and the builder (the survey's own pages, one per
section, are :mod:`surveys.pages.dashboard`).

Thin: fetch through ``surveys.selectors``, hand the data to the presenters of
``surveys.pages.charts``
and render. Every API URL a page's script calls is rendered here with ``reverse()`` (the scripts
read them from the page's JSON data or ``data-*`` attributes and never write one themselves).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET

from deniable.errors import Forbidden, NotFound
from surveys.analysis.regression_power import OUTCOME_KIND as REGRESSION_OUTCOME_KIND
from surveys.analysis.regression_power import regression_design_names
from surveys.definitions import question_designs as designs
from surveys.definitions.innocuous import INNOCUOUS_STATEMENTS
from surveys.definitions.specs import TITLE_MAX
from surveys.definitions.translations import TEXT_MAX
from surveys.inputs import ORDERINGS
from surveys.kinds import kind_of
from surveys.kinds.base import QuestionKind
from surveys.kinds.registry import kinds
from surveys.models import Question, Survey
from surveys.pages.forms import design_spec
from surveys.selectors import Need, survey_get_for_user, survey_list_sorted
from surveys.services.closing import surveys_sweep_embedded


def survey_or_404(request: HttpRequest, slug: str, need: Need) -> Survey:
    """The survey if the user's role allows ``need`` (docs/teams.md#roles): a 404 page outside
    the survey's team (existence is not leaked), a 403 page for a member without the role.
    Embedded mode (no beat): surveys past their closing time are closed first, once a minute."""
    surveys_sweep_embedded()
    try:
        return survey_get_for_user(user=request.user, slug=slug, need=need)
    except NotFound as exc:
        raise Http404("No such survey.") from exc
    except Forbidden as exc:
        raise PermissionDenied(exc.detail) from exc


# The list's sortable columns: (query value, heading).
LIST_COLUMNS = [
    ("title", "Title"),
    ("status", "Status"),
    ("responses", "Responses"),
    ("budget_left", "Budget left (ε)"),
    ("created", "Created"),
]


def _sort_links(ordering: str, archived: bool) -> list[dict[str, Any]]:
    """Each column heading's link: sorts by it, or reverses it when it is the current sort
    (plain links: sorting works without JavaScript)."""
    current = ordering.lstrip("-")
    descending = ordering.startswith("-")
    links = []
    for name, label in LIST_COLUMNS:
        next_desc = (not descending) if name == current else name in ("created", "responses")
        query = {"ordering": f"-{name}" if next_desc else name}
        if archived:
            query["archived"] = "true"
        links.append(
            {
                "name": name,
                "label": label,
                "href": "?" + urlencode(query),
                "sorted": ("descending" if descending else "ascending") if name == current else "",
            }
        )
    return links


@login_required
@require_GET
def survey_list(request: HttpRequest) -> HttpResponse:
    ordering = request.GET.get("ordering") or "-created"
    if ordering.lstrip("-") not in ORDERINGS:
        ordering = "-created"  # a hand-edited link: the default order rather than an error page
    archived = request.GET.get("archived") == "true"
    surveys_sweep_embedded()  # embedded mode: no beat closes them (surveys.services.closing)
    surveys = survey_list_sorted(user=request.user, ordering=ordering, archived=archived)
    context = {
        "surveys": surveys,
        "archived": archived,
        "ordering": ordering,
        "columns": _sort_links(ordering, archived),
    }
    return render(request, "surveys/list.html", context)


def _builder_question(q: Question) -> dict[str, Any]:
    out: dict[str, Any] = {"key": q.key, "text": q.text, "kind": q.kind}
    out.update(kind_of(q).builder_fields(q))  # options, or a number's bounds
    if q.is_randomized:
        out["design"] = design_spec(q)
    out["required"] = q.required
    if q.show_if:
        out["show_if"] = {"key": q.show_if["key"], "in": list(q.show_if["in"])}
    if q.ordered:
        out["ordered"] = True
    return out


def _builder_survey(survey: Survey | None) -> dict[str, Any]:
    """The builder's starting values: the draft's, or the defaults of a new survey."""
    if survey is None:
        return {
            "title": "",
            "description": "",
            "access": Survey.Access.OPEN,
            "planned_n": 1000,
            "closes_at": None,
            "response_cap": None,
            "budget": {"epsilon": 1.0, "delta": 1e-6},
            "questions": [],
            "languages": [],
            "translations": {},
        }
    return {
        "title": survey.title,
        "description": survey.description,
        "access": survey.access,
        "planned_n": survey.planned_n,
        "closes_at": survey.closes_at.isoformat() if survey.closes_at else None,
        "response_cap": survey.response_cap,
        "budget": {"epsilon": survey.budget_epsilon, "delta": survey.budget_delta},
        "questions": [_builder_question(q) for q in survey.questions.all()],
        "languages": list(survey.languages or []),
        "translations": dict(survey.translations or {}),
    }


def builder_kinds() -> dict[str, Any]:
    """The builder's kinds by stored kind (the kind select's values): whether a card lists options,
    takes bounds, is randomized, chooses its design (``select``) or has the one its shape serves
    (``fixed``), may be ordered, is a skip-logic source; and which kind the power calculator plans
    it as (a design per option: each option a yes/no report). ``default_kind``: a new card's."""
    plain = [kind for kind in kinds() if kind.priority == 0]
    binary = next(kind.stored_kind for kind in plain if kind.design_shape == "binary")
    out = {
        kind.stored_kind: {
            "options": kind.has_options,
            "bounds": kind.has_bounds,
            "randomized": kind.randomized,
            "design": None
            if kind.design_shape is None
            else "fixed"
            if kind.design_shape == "options"
            else "select",
            "ordered": kind.may_be_ordered,
            # Its report is one of its options (the preview's deniability words say so).
            "reports_an_option": kind.design_shape == "options",
            "show_if_source": kind.slices_tallies,
            "power_kind": binary if kind.design_per_option else kind.stored_kind,
        }
        for kind in plain
    }
    # The designs whose own texts are translated (the builder's translation panel offers them).
    translated = {
        kind.name: list(kind.translated_design_fields)
        for kind in kinds()
        if kind.translated_design_fields
    }
    return {"kinds": out, "default_kind": binary, "translated_design_fields": translated}


def builder_card(described: list[dict[str, Any]]) -> dict[str, Any]:
    """What the card's template needs from the registry, so it names no kind: the kind select's
    entries (``menu``, in ``Question.Kind``'s order, each kind's ``builder_title``), the kinds each
    part of the card is shown for (``show``: space-separated, as ``data-show`` lists them; the
    same properties as :func:`builder_kinds`) and the designs each design select offers."""
    order = list(Question.Kind.values)
    plain = sorted(
        (kind for kind in kinds() if kind.priority == 0), key=lambda k: order.index(k.stored_kind)
    )

    def shown(test: Callable[[QuestionKind], bool]) -> str:
        return " ".join(kind.stored_kind for kind in plain if test(kind))

    def offered(test: Callable[[QuestionKind], bool]) -> list[dict[str, Any]]:
        names = {kind.stored_kind for kind in plain if test(kind)}
        return [design for design in described if names & set(design["kinds"])]

    def chosen(kind: QuestionKind) -> bool:  # the card's design select (builder_kinds "select")
        return kind.design_shape is not None and kind.design_shape != "options"

    def fixed(kind: QuestionKind) -> bool:  # its shape's one design family, ε chosen
        return kind.design_shape == "options"

    return {
        "menu": [{"value": kind.stored_kind, "title": kind.builder_title} for kind in plain],
        "show": {
            "options": shown(lambda k: k.has_options),
            "bounds": shown(lambda k: k.has_bounds),
            "design": shown(chosen),
            "design_per_option": shown(lambda k: k.design_per_option),
            "fixed_design": shown(fixed),
            "ordered": shown(lambda k: k.may_be_ordered),
            "direct": shown(lambda k: not k.randomized),
            "randomized": shown(lambda k: k.randomized),
            "regression": str(REGRESSION_OUTCOME_KIND),
        },
        # The design select lists the designs of the binary shape (a multi card narrows it to
        # multi_design_names); the fixed one those of its kind.
        "designs": offered(lambda k: k.design_shape == "binary"),
        "fixed_designs": offered(fixed),
    }


def builder_group_inputs(described: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The card's inputs of each grouped design (a design's registry entry with ``grouped``):
    one input per field of each group, and one per other number it takes (the unrelated question
    with an unknown prevalence: its prevalence bounds), so the template renders them with no
    design named. Its text (``innocuous_text``) is the shared statement input
    (:func:`builder_text_designs`)."""
    blocks = []
    for design in described:
        for param in design["params"]:
            if param["type"] == "groups":
                inputs = [
                    {
                        "path": f"design.{param['name']}[{i}].{sub['name']}",
                        "label": f"Group {i + 1}: {sub['label']}",
                    }
                    for i in range(param["count"])
                    for sub in param["fields"]
                ]
            elif design["grouped"] and param["type"] != "text":
                inputs = [{"path": f"design.{param['name']}", "label": param["label"]}]
            else:
                continue
            blocks.append({"design": design["name"], "param": param["name"], "inputs": inputs})
    return blocks


def builder_number_inputs(offered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The card's number inputs of the design select's one-group designs (``offered``: the card's
    ``designs``): one input per parameter name, shown for every design taking it (space-separated,
    as ``data-design`` lists them; Warner and the unrelated question share ``p``), with the label
    of the first design that takes it. So the template renders them with no design named; the
    grouped designs' inputs are :func:`builder_group_inputs`'."""
    inputs: dict[str, dict[str, Any]] = {}
    for design in offered:
        if design["grouped"]:
            continue
        for param in design["params"]:
            if param["type"] not in ("probability", "positive"):
                continue
            entry = inputs.setdefault(
                param["name"],
                {
                    "path": f"design.{param['name']}",
                    "label": param["label"],
                    "maximum": 1 if param["type"] == "probability" else param["maximum"],
                    "designs": [],
                },
            )
            entry["designs"].append(design["name"])
    return [
        {key: value for key, value in i.items() if key != "designs"}
        | {"design": " ".join(i["designs"])}
        for i in inputs.values()
    ]


def builder_text_designs(described: list[dict[str, Any]], name: str) -> str:
    """The designs (space-separated, as ``data-design`` lists them) taking the text parameter
    ``name``: they share its one input."""
    return " ".join(d["name"] for d in described if any(p["name"] == name for p in d["params"]))


@login_required
@require_GET
def survey_builder(request: HttpRequest, slug: str | None = None) -> HttpResponse:
    survey = survey_or_404(request, slug, "edit") if slug else None
    if survey is not None and survey.status != Survey.Status.DRAFT:
        messages.warning(
            request, "Only draft surveys can be edited: an open survey's designs are fixed."
        )
        return redirect("survey-detail", slug=survey.slug)
    data: dict[str, Any] = {
        "slug": survey.slug if survey else None,
        "create_url": reverse("api-surveys"),
        "update_url": reverse("api-survey", args=[survey.slug]) if survey else None,
        "preview_url": reverse("api-design-preview"),
        "power_url": reverse("api-design-power"),  # static/js/power/live.js
        # static/js/power/regression.js: the regression's power, for questions of this kind.
        "regression_power_url": reverse("api-design-power-regression"),
        "regression_outcome_kind": REGRESSION_OUTCOME_KIND,
        "regression_design_names": regression_design_names(),
        "recommend_url": reverse("api-design-recommend"),  # static/js/builder/recommend.js
        "starting_designs": designs.starting_designs(),
        # Each design's parameters (dpcore.local.designs): the builder has no copy of their names.
        "designs": designs.builder_designs(),
        # The yes/no designs a multi question may use (the rest are refused for multi).
        "multi_design_names": list(designs.MULTI_DESIGN_NAMES),
        # What each kind's card offers (static/js/builder.js reads these, never a kind's name).
        **builder_kinds(),
        "innocuous_statements": INNOCUOUS_STATEMENTS,
        "detail_url_template": reverse("survey-detail", args=["__slug__"]),
        "survey": _builder_survey(survey),
        # static/js/builder/translations.js: the languages a survey may declare, by name.
        "language_choices": [[code, str(name)] for code, name in settings.LANGUAGES],
    }
    # The text limits the builder counts against (the API's: surveys.definitions.specs,
    # surveys.definitions.translations).
    limits = {"title_max": TITLE_MAX, "text_max": TEXT_MAX}
    group_inputs = builder_group_inputs(data["designs"])
    innocuous = builder_text_designs(data["designs"], "innocuous_text")
    card = builder_card(data["designs"])
    number_inputs = builder_number_inputs(card["designs"])
    context = {
        "survey": survey,
        "data": data,
        "group_inputs": group_inputs,
        "number_inputs": number_inputs,
        # The row of number inputs is shown for every design with one of them.
        "number_designs": " ".join(
            dict.fromkeys(d for i in number_inputs for d in i["design"].split())
        ),
        "innocuous_designs": innocuous,
        "card": card,
        **limits,
    }
    return render(request, "surveys/builder.html", context)
