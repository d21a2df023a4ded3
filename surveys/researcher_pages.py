"""Researcher read pages: the survey list, the builder and the survey's results page.

Thin: fetch through ``surveys.selectors``, hand the data to the presenters of ``surveys.charts``
and render. Every API URL a page's script calls is rendered here with ``reverse()`` (the scripts
read them from the page's JSON data or ``data-*`` attributes and never write one themselves).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.views.decorators.http import require_GET

from deniable.errors import Forbidden, NotFound
from surveys import analysis_pages, charts, designs
from surveys.forms import design_spec
from surveys.innocuous import CROSSWISE_RESEARCHER_ASSUMPTION, INNOCUOUS_STATEMENTS
from surveys.inputs import ORDERINGS
from surveys.models import Question, Survey
from surveys.selectors import (
    Need,
    survey_collaborators,
    survey_estimates,
    survey_get_for_user,
    survey_list_sorted,
)
from surveys.shuffle_guarantee import shuffled_export_guarantee
from surveys.specs import TITLE_MAX
from surveys.translations import TEXT_MAX

RELEASES_TEMPLATE = "privacy/_releases.html"


def survey_or_404(request: HttpRequest, slug: str, need: Need) -> Survey:
    """The survey if the user's role allows ``need`` (docs/teams.md#roles): a 404 page outside
    the survey's team (existence is not leaked), a 403 page for a member without the role."""
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
    if q.kind in (Question.Kind.CHOICE, Question.Kind.CATEGORY, Question.Kind.MULTI):
        out["options"] = list(q.options)
    if q.is_randomized:
        out["design"] = design_spec(q)
    if q.kind == Question.Kind.NUMBER:
        out["min"], out["max"] = q.min_value, q.max_value
        out["integer"] = q.integer
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
        "power_url": reverse("api-design-power"),  # static/js/power.js
        "starting_designs": designs.starting_designs(),
        # The yes/no designs a multi question may use (the rest are refused for multi).
        "multi_design_names": list(designs.MULTI_DESIGN_NAMES),
        "innocuous_statements": INNOCUOUS_STATEMENTS,
        "detail_url_template": reverse("survey-detail", args=["__slug__"]),
        "survey": _builder_survey(survey),
        # static/js/builder/translations.js: the languages a survey may declare, by name.
        "language_choices": [[code, str(name)] for code, name in settings.LANGUAGES],
    }
    # The text limits the builder counts against (the API's: surveys.specs, surveys.translations).
    limits = {"title_max": TITLE_MAX, "text_max": TEXT_MAX}
    return render(request, "surveys/builder.html", {"survey": survey, "data": data, **limits})


def _downloads(survey: Survey, group_by: str | None) -> dict[str, str]:
    """Download links: every one is served as an attachment with its own file name."""
    estimates = reverse("api-survey-estimates", args=[survey.slug])
    export = reverse("api-survey-export", args=[survey.slug])
    links = {
        "estimates_csv": f"{estimates}?format=csv",
        "estimates_json": f"{estimates}?download=1",
        "export_csv": f"{export}?format=csv",
        "export_json": f"{export}?format=json",
        "export_metadata": reverse("api-survey-export-metadata", args=[survey.slug]),
    }
    if group_by:
        query = urlencode({"group_by": group_by})
        links["grouped_csv"] = f"{estimates}?{query}&format=csv"
        links["grouped_json"] = f"{estimates}?{query}&download=1"
    return links


def _releases_template() -> str | None:
    """The releases section (privacy app) when it is installed; the page works without it."""
    try:
        get_template(RELEASES_TEMPLATE)
    except TemplateDoesNotExist:
        return None
    return RELEASES_TEMPLATE


def _any_clipped(rows: list[dict[str, Any]], crosstab: dict[str, Any] | None) -> bool:
    cells = [c for row in (crosstab or {}).get("rows", []) for c in row["cells"]]
    return any(r["clipped"] for r in rows) or any(c and c["clipped"] for c in cells)


@login_required
@require_GET
def survey_detail(request: HttpRequest, slug: str) -> HttpResponse:
    survey = survey_or_404(request, slug, "view")
    questions = list(survey.questions.all())
    category_questions = [q for q in questions if q.kind == Question.Kind.CATEGORY]
    group_by = request.GET.get("group_by") or None
    if group_by not in [q.key for q in category_questions]:
        group_by = None
    estimates = survey_estimates(survey=survey, group_by=group_by)
    rows = charts.estimate_rows(estimates.questions)
    crosstab = charts.crosstab(estimates, group_by)
    respondents = estimates.respondents
    planned = survey.planned_n
    context = {
        "survey": survey,
        "estimates": estimates,
        "rows": rows,
        "chart": charts.interval_chart(rows),
        "crosstab": crosstab,
        "group_by": group_by,
        "group_question": next((q for q in questions if q.key == group_by), None),
        "category_questions": category_questions,
        "respondents": respondents,
        "progress_pct": min(100.0, 100.0 * respondents / planned) if planned else 0,
        "respond_url": request.build_absolute_uri(reverse("respond", args=[survey.slug])),
        "downloads": _downloads(survey, group_by),
        "any_clipped": _any_clipped(rows, crosstab),
        "releases_template": _releases_template(),
        # Issue 13: what the randomized-only shuffled file protects (li#shuffle-guarantee).
        "shuffle_guarantee": shuffled_export_guarantee(survey),
        "crosswise_notes": _crosswise_notes(questions),
        "any_at_boundary": any(r.get("at_boundary") for r in rows),
        # Teams (docs/teams.md#roles): which controls show. The server refuses the rest anyway.
        "role": survey.role,  # type: ignore[attr-defined]
        "can_edit": survey.role in ("owner", "editor"),  # type: ignore[attr-defined]
        "is_owner": survey.role == "owner",  # type: ignore[attr-defined]
        "collaborators": list(survey_collaborators(survey=survey)),
    }
    context.update(analysis_pages.detail_context(request, survey, questions, estimates, group_by))
    return render(request, "surveys/detail.html", context)


def _crosswise_notes(questions: list[Question]) -> list[dict[str, Any]]:
    """The crosswise questions' innocuous statements and the assumption their ε rests on."""
    notes = []
    for q in questions:
        spec = q.design or {}
        if q.kind == Question.Kind.YES_NO and spec.get("name") == "crosswise":
            notes.append(
                {
                    "text": q.text,
                    "innocuous_text": spec.get("innocuous_text") or "(no statement given)",
                    "prevalence": spec.get("innocuous_prevalence"),
                    "assumption": CROSSWISE_RESEARCHER_ASSUMPTION,
                }
            )
    return notes
