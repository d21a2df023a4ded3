"""A survey's researcher pages, one per section (issue 22.10; docs/researcher-guide.md#sections):
overview, results, analysis, releases and sharing, each its own server-rendered URL, linked from
a section bar on every one of them (no JavaScript needed to move between them).

Thin: fetch through ``surveys.selectors``, hand the data to the presenters of
``surveys.pages.charts``
and ``surveys.pages.analysis`` and render. Every API URL a page's script calls is rendered here
with ``reverse()``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from deniable.errors import InvalidInput
from surveys.analysis.export import shuffled_file
from surveys.inputs.poststratify import poststratification, shares_text
from surveys.kinds import kind_of
from surveys.kinds._fit import fit_warnings
from surveys.models import Question, Survey
from surveys.pages import analysis as analysis_pages
from surveys.pages import charts
from surveys.pages.researcher import survey_or_404
from surveys.selectors import survey_collaborators, survey_estimates
from surveys.services import survey_population_shares_set
from surveys.webhooks.selectors import webhooks_with_history

RELEASES_TEMPLATE = "privacy/_releases.html"

#: The sections, in the bar's order: (name, URL name, label).
SECTIONS = (
    ("overview", "survey-detail", "Overview"),
    ("results", "survey-results", "Results"),
    ("analysis", "survey-analysis", "Analysis"),
    ("releases", "survey-releases", "Releases"),
    ("sharing", "survey-sharing", "Sharing"),
)


def _releases_template() -> str | None:
    """The releases section (privacy app) when it is installed; the pages work without it."""
    try:
        get_template(RELEASES_TEMPLATE)
    except TemplateDoesNotExist:
        return None
    return RELEASES_TEMPLATE


def _sections(survey: Survey, current: str) -> list[dict[str, Any]]:
    has_releases = _releases_template() is not None
    return [
        {
            "name": name,
            "label": label,
            "url": reverse(url_name, args=[survey.slug]),
            "current": name == current,
        }
        for name, url_name, label in SECTIONS
        if name != "releases" or has_releases
    ]


def _base(request: HttpRequest, survey: Survey, section: str) -> dict[str, Any]:
    """What every section shows: the title, the status, the section bar and the user's role."""
    role = survey.role  # type: ignore[attr-defined]
    return {
        "survey": survey,
        "section": section,
        "sections": _sections(survey, section),
        # Teams (docs/teams.md#roles): which controls show. The server refuses the rest anyway.
        "role": role,
        "can_edit": role in ("owner", "editor"),
        "is_owner": role == "owner",
        "respond_url": request.build_absolute_uri(reverse("respond", args=[survey.slug])),
    }


def _weighted(survey: Survey, questions: list[Question]) -> dict[str, Any]:
    """The stored population shares, the form's values and the post-stratified rows beside the
    raw ones (docs/analysis.md#post-stratification); a stored setting that no longer holds (a
    suppressed group, a changed draft) is shown as its error, never a 500."""
    stored = survey.population_shares or {}
    out: dict[str, Any] = {
        "weighting_key": stored.get("key", ""),
        "weighting_shares": shares_text(stored.get("shares") or {}),
    }
    if not stored:
        return out
    try:
        spec = poststratification(
            {"poststratify": stored.get("key"), "shares": stored.get("shares")}, questions
        )
        if spec is not None:  # in the question's option order (jsonb keeps its own key order)
            out["weighting_shares"] = shares_text(dict(spec.shares))
        weighted = survey_estimates(survey=survey, poststratify=spec)
    except InvalidInput as exc:
        out["weighting_error"] = " ".join(m for ms in exc.errors.values() for m in ms)
        return out
    if spec is not None:
        query = urlencode({"poststratify": spec.key, "shares": shares_text(dict(spec.shares))})
        out["weighted_rows"] = charts.estimate_rows(weighted.questions)
        out["weighted_by"] = next(q for q in questions if q.key == spec.key)
        out["weighted_shares"] = [(o, 100.0 * w) for o, w in spec.shares]
        estimates = reverse("api-survey-estimates", args=[survey.slug])
        out["weighted_csv"] = f"{estimates}?{query}&format=csv"
        out["weighted_json"] = f"{estimates}?{query}&download=1"
    return out


@login_required
@require_POST
def survey_population_shares_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Store the population shares (or clear them: ``clear``), by the API's serializer. Groups
    still too small are not refused here: the shares are usually known before the data, and the
    page says why no weighted figures are shown until every weighted group has k respondents."""
    survey = survey_or_404(request, slug, "edit")
    back = reverse("survey-results", args=[survey.slug]) + "#weighting"
    if request.POST.get("clear"):
        survey_population_shares_set(survey=survey, weighting=None)
        messages.success(request, "The population shares are removed.")
        return redirect(back)
    data = {name: request.POST.get(name, "").strip() for name in ("poststratify", "shares")}
    try:
        spec = poststratification(data, list(survey.questions.all()))
        if spec is None:
            raise InvalidInput.single("poststratify", "Choose a question and give its shares.")
    except InvalidInput as exc:
        words = "; ".join(f"{field}: {' '.join(ms)}" for field, ms in exc.errors.items())
        messages.error(request, f"Population shares not saved — {words}")
        return redirect(back)
    survey_population_shares_set(survey=survey, weighting=spec)
    messages.success(request, "Population shares saved: weighted estimates are shown.")
    return redirect(back)


def _downloads(survey: Survey, group_by: str | None) -> dict[str, str]:
    """Download links: every one is served as an attachment with its own file name."""
    estimates = reverse("api-survey-estimates", args=[survey.slug])
    export = reverse("api-survey-export", args=[survey.slug])
    links = {
        "estimates_csv": f"{estimates}?format=csv",
        "estimates_json": f"{estimates}?download=1",
        "export_csv": f"{export}?format=csv",
        "export_json": f"{export}?format=json",
        "export_dta": f"{export}?format=dta",
        "export_sav": f"{export}?format=sav",
        "export_metadata": reverse("api-survey-export-metadata", args=[survey.slug]),
    }
    if group_by:
        query = urlencode({"group_by": group_by})
        links["grouped_csv"] = f"{estimates}?{query}&format=csv"
        links["grouped_json"] = f"{estimates}?{query}&download=1"
    return links


def _any_clipped(rows: list[dict[str, Any]], crosstab: dict[str, Any] | None) -> bool:
    cells = [c for row in (crosstab or {}).get("rows", []) for c in row["cells"]]
    return any(r["clipped"] for r in rows) or any(c and c["clipped"] for c in cells)


def crosswise_notes(survey: Survey, questions: list[Question]) -> list[dict[str, Any]]:
    """The crosswise questions' innocuous statements in every language, each checked against the
    library (issue 21.9), and the assumption their ε rests on."""
    notes = (kind_of(q).researcher_note(survey, q) for q in questions)
    return [note for note in notes if note is not None]


def _overview(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    estimates = survey_estimates(survey=survey, group_by=None)
    respondents, planned = estimates.respondents, survey.planned_n
    unverified = [
        n for n in crosswise_notes(survey, list(survey.questions.all())) if not n["verified"]
    ]
    return {
        "estimates": estimates,
        "respondents": respondents,
        "progress_pct": min(100.0, 100.0 * respondents / planned) if planned else 0,
        "unverified_crosswise": unverified,
    }


def _results(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    questions = list(survey.questions.all())
    category_questions = [q for q in questions if kind_of(q).groups_results]
    group_by = request.GET.get("group_by") or None
    if group_by not in [q.key for q in category_questions]:
        group_by = None
    estimates = survey_estimates(survey=survey, group_by=group_by)
    by_key = {q.key: q for q in questions}
    rows = charts.estimate_rows(estimates.questions)
    crosstab = charts.crosstab(estimates, group_by)
    return {
        "estimates": estimates,
        "rows": rows,
        "chart": charts.interval_chart(rows),
        "crosstab": crosstab,
        "group_by": group_by,
        "group_question": next((q for q in questions if q.key == group_by), None),
        "category_questions": category_questions,
        "downloads": _downloads(survey, group_by),
        "any_clipped": _any_clipped(rows, crosstab),
        # Issue 27: the shuffled file's link and, once produced, its guarantee (shown only when it
        # is a gain over the local ε: li#shuffle-guarantee).
        "shuffled": shuffled_file(survey),
        "crosswise_notes": crosswise_notes(survey, questions),
        "any_at_boundary": any(r.get("at_boundary") for r in rows),
        # docs/analysis.md#goodness-of-fit: where the answers contradict the design (p < 0.05).
        "fit_warnings": fit_warnings(estimates.questions, lambda key: kind_of(by_key[key])),
        "comparisons": analysis_pages.comparisons(estimates, survey, group_by),
        **_weighted(survey, questions),
    }


def _analysis(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    return analysis_pages.regression_context(request, survey, list(survey.questions.all()))


def _releases(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    return {"releases_template": _releases_template()}


def _sharing(request: HttpRequest, survey: Survey) -> dict[str, Any]:
    context: dict[str, Any] = {"collaborators": list(survey_collaborators(survey=survey))}
    if survey.role == "owner":  # type: ignore[attr-defined]  # hooks and deliveries: owner only
        context["webhooks"] = webhooks_with_history(survey=survey)
    return context


_CONTEXT: dict[str, Callable[[HttpRequest, Survey], dict[str, Any]]] = {
    "overview": _overview,
    "results": _results,
    "analysis": _analysis,
    "releases": _releases,
    "sharing": _sharing,
}


@login_required
@require_GET
def survey_section(request: HttpRequest, slug: str, section: str = "overview") -> HttpResponse:
    """One section of the survey's pages (``templates/surveys/section_<name>.html``)."""
    survey = survey_or_404(request, slug, "view")
    context = _base(request, survey, section)
    context.update(_CONTEXT[section](request, survey))
    template = "surveys/detail.html" if section == "overview" else f"surveys/section_{section}.html"
    return render(request, template, context)
