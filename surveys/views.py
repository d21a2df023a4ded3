"""Server-rendered pages: the respondent form and the researcher dashboard.

Views stay thin: they fetch through ``surveys.selectors``, change state through
``surveys.services`` and shape the results for the templates. The randomization itself happens in
the respondent's browser (``static/js/respond.js``) or with their own coins (the no-JS form).
"""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import quote, urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from deniable.errors import Conflict, InvalidInput, NotFound
from privacy import rr_browser
from surveys import analysis_pages, designs, protection
from surveys.forms import RespondForm, design_spec, field_name, physical_protocol
from surveys.models import Question, Survey
from surveys.ratelimit import RateLimited, submission_rate_check
from surveys.selectors import (
    survey_estimates,
    survey_get_for_owner,
    survey_get_public,
    survey_list_for_owner,
)
from surveys.services import (
    MAX_INVITATIONS,
    invitation_counts,
    invitation_links_csv,
    invitations_create,
    invitations_revoke,
    submission_create,
    survey_close,
    survey_open,
)

DEMO_SLUG = "demo"
RELEASES_TEMPLATE = "privacy/_releases.html"


# --- landing -------------------------------------------------------------------------------------


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("researcher-home")
    try:
        demo_url: str | None = reverse("respond", args=[survey_get_public(slug=DEMO_SLUG).slug])
    except NotFound:
        demo_url = None
    return render(request, "home.html", {"demo_url": demo_url})


# --- respondents ---------------------------------------------------------------------------------


def _questions(survey: Survey) -> list[Question]:
    return list(survey.questions.all())


def _question_data(q: Question) -> dict[str, Any]:
    """What the browser needs to randomize and explain one question (never anything secret)."""
    out: dict[str, Any] = {
        "key": q.key,
        "text": q.text,
        "kind": q.kind,
        "randomized": q.is_randomized,
        "options": list(q.options or []),
        "min": q.min_value,
        "max": q.max_value,
        # Handling, randomizer and deniability words and numbers: computed once, server-side.
        "protection": protection.question_protection(q),
    }
    if not q.is_randomized:
        return out
    design = designs.question_design(q)
    out["design"] = dict(design.to_spec()) if design is not None else design_spec(q)
    out["epsilon"] = designs.question_epsilon(q)
    # The page draws U uniform on [0, 2⁵³) and compares it with these integers, unchanged: the
    # probabilities it runs are exactly thresholds/2⁵³, whose ε is at most out["epsilon"].
    plan = designs.question_browser_plan(q)
    out["random_bits"] = rr_browser.RANDOM_BITS
    out["thresholds"] = dict(plan.thresholds) if plan is not None else None
    return out


def _respond_page(
    request: HttpRequest, survey: Survey, form: RespondForm, *, status: int = 200
) -> HttpResponse:
    questions = form.questions
    items = []
    for q in questions:
        protocol = physical_protocol(q)
        items.append(
            {
                "key": q.key,
                "text": q.text,
                "kind": q.kind,
                "randomized": q.is_randomized,
                "options": q.options,
                "min": q.min_value,
                "max": q.max_value,
                "field": form[field_name(q)],
                "protocol": protocol,
                "protection": protection.question_protection(q),
            }
        )
    data = {
        "slug": survey.slug,
        "access": survey.access,
        "api_url": f"/api/v1/surveys/{survey.slug}/responses/",
        "invitation_check_url": reverse("api-survey-invitations-check", args=[survey.slug])
        if survey.access == Survey.Access.INVITE
        else None,
        "epsilon_total": designs.epsilon_local_total(questions),
        "questions": [_question_data(q) for q in questions],
    }
    context = {
        "survey": survey,
        "form": form,
        "items": items,
        "data": data,
        "epsilon_total": data["epsilon_total"],
        "physical_possible": all(item["protocol"].possible for item in items),
        "handling": protection.survey_handling(questions),
        "error_summary": _error_summary(form, questions) if form.is_bound else [],
    }
    response = render(request, "respond/survey.html", context, status=status)
    # The page can carry an invitation token in its form: keep it out of shared caches.
    response["Cache-Control"] = "no-store"
    return response


def _error_summary(form: RespondForm, questions: list[Question]) -> list[dict[str, str]]:
    """The no-JS form's refusals, each linked to its field (shown at the top of the page)."""
    out: list[dict[str, str]] = []
    for message in form.non_field_errors():
        out.append({"href": "#respond-form", "text": message})
    if "token" in form.fields and form["token"].errors:
        text = " ".join(form["token"].errors)
        out.append({"href": "#id_token", "text": f"Invitation code: {text}"})
    for number, q in enumerate(questions, start=1):
        errors = form[field_name(q)].errors
        if not errors:
            continue
        # Radio groups: link to the first radio; a number field: to its input.
        radio = q.kind != Question.Kind.NUMBER
        href = f"#id_{field_name(q)}_0" if radio else f"#id_{field_name(q)}"
        out.append({"href": href, "text": f"Question {number}: {' '.join(errors)}"})
    return out


def _message(
    request: HttpRequest,
    heading: str,
    text: str,
    *,
    status: int,
    survey: Survey | None = None,
    tone: str = "",
    advice: str = "",
    details: dict[str, Any] | None = None,
) -> HttpResponse:
    context = {
        "heading": heading,
        "text": text,
        "survey": survey,
        "tone": tone,
        "advice": advice,
        "details": details,
    }
    return render(request, "respond/message.html", context, status=status)


def _public_or_404(slug: str) -> Survey:
    try:
        return survey_get_public(slug=slug)
    except NotFound as exc:
        raise Http404("No such survey.") from exc


def _closed(request: HttpRequest, survey: Survey) -> HttpResponse:
    return _message(
        request,
        "This survey is closed",
        "It no longer accepts answers: the researcher closed it, its closing date has passed, "
        "or it has all the answers it needs. Nothing you entered was sent.",
        status=200,
        survey=survey,
        tone="warn",
        advice="There is nothing more to do. If you expected it to be open, contact the "
        "researcher who sent you the link.",
    )


@never_cache
@require_GET
def respond(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _public_or_404(slug)
    if not survey.is_accepting():
        return _closed(request, survey)
    # A token given as ?token=… (old links) prefills the form; new links use #t=…, never sent.
    initial = (
        {"token": request.GET.get("token", "")} if survey.access == Survey.Access.INVITE else {}
    )
    questions = _questions(survey)
    if any(q.is_randomized and designs.question_browser_plan(q) is None for q in questions):
        # A design stored before the browser checks existed (e.g. k-RR at ε = 1000): the page
        # cannot run it exactly, so it runs nothing rather than another mechanism.
        return _message(
            request,
            "This survey cannot be answered here",
            "One of its questions uses a randomization this page cannot run exactly. Please let "
            "the researcher know.",
            status=200,
            survey=survey,
            tone="warn",
        )
    form = RespondForm(survey=survey, questions=questions, initial=initial)
    return _respond_page(request, survey, form)


@csrf_exempt
@never_cache
@require_POST
def respond_submit(request: HttpRequest, slug: str) -> HttpResponse:
    """The no-JavaScript path: answers randomized with the respondent's own coins.

    CSRF-exempt, like the JSON endpoint (DRF exempts it): CSRF protects ambient authority — a
    session cookie a forged cross-site post would borrow — and a respondent has none. A forged
    post can do exactly what anyone can do directly (answer an open survey; an invite-only one
    needs the token in the body). So the respondent page sets no CSRF cookie at all: a token the
    server ties to nothing would protect nothing, and a year-long ``csrftoken`` cookie rode on
    every submission, a stable identifier across a respondent's visits (issue 11 §10).
    """
    survey = _public_or_404(slug)
    if not survey.is_accepting():
        return _closed(request, survey)
    try:
        submission_rate_check(survey_id=survey.pk)
    except RateLimited as exc:
        return _message(
            request,
            "Too many answers at once",
            f"This survey is receiving a lot of answers right now. {exc.detail}",
            status=429,
            survey=survey,
            tone="warn",
        )
    form = RespondForm(request.POST, survey=survey, questions=_questions(survey))
    if not form.is_valid():
        return _respond_page(request, survey, form, status=400)
    try:
        submission_create(
            survey=survey,
            submission_id=uuid.uuid4(),  # server-made: a no-JS browser cannot keep one
            randomizer="physical",
            answers=form.answers(),
            token=form.cleaned_data.get("token") or None,
        )
    except InvalidInput as exc:
        form.add_domain_errors(exc.errors)
        return _respond_page(request, survey, form, status=400)
    except Conflict as exc:
        if exc.code == "token_used":
            return _message(
                request,
                "This invitation was already used",
                "Each invitation can be used once, and this one already has been, so your "
                "answers were not recorded.",
                status=409,
                survey=survey,
                tone="warn",
                advice="If you have not answered this survey before, ask the researcher who "
                "invited you for a new invitation. If you already answered, there is nothing "
                "more to do.",
            )
        if exc.code in ("survey_closed", "response_cap_reached"):
            return _closed(request, survey)
        form.add_error(None, exc.detail)
        return _respond_page(request, survey, form, status=409)
    except NotFound as exc:
        raise Http404("No such survey.") from exc
    return HttpResponseRedirect(reverse("respond-thanks", args=[survey.slug]))


@require_GET
def respond_thanks(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _public_or_404(slug)
    # Only the no-JS form lands here (the JS page thanks in place): the randomized answers were
    # the ones the respondent's coins chose.
    return _message(
        request,
        "Thank you — your answers were recorded",
        protection.survey_handling(_questions(survey))["sent"],
        status=200,
        survey=survey,
        tone="ok",
        details=protection.survey_handling(_questions(survey)),
    )


# --- researchers ---------------------------------------------------------------------------------


def _owned_or_404(request: HttpRequest, slug: str) -> Survey:
    try:
        return survey_get_for_owner(user=request.user, slug=slug)
    except NotFound as exc:
        raise Http404("No such survey.") from exc


@login_required
@require_GET
def survey_list(request: HttpRequest) -> HttpResponse:
    surveys = survey_list_for_owner(user=request.user)
    return render(request, "surveys/list.html", {"surveys": surveys})


def _builder_question(q: Question) -> dict[str, Any]:
    out: dict[str, Any] = {"key": q.key, "text": q.text, "kind": q.kind}
    if q.kind in (Question.Kind.CHOICE, Question.Kind.CATEGORY):
        out["options"] = list(q.options)
    if q.is_randomized:
        out["design"] = design_spec(q)
    if q.kind == Question.Kind.NUMBER:
        out["min"], out["max"] = q.min_value, q.max_value
    return out


@login_required
@require_GET
def survey_builder(request: HttpRequest, slug: str | None = None) -> HttpResponse:
    survey = _owned_or_404(request, slug) if slug else None
    if survey is not None and survey.status != Survey.Status.DRAFT:
        messages.warning(
            request, "Only draft surveys can be edited: an open survey's designs are fixed."
        )
        return redirect("survey-detail", slug=survey.slug)
    data: dict[str, Any] = {
        "slug": survey.slug if survey else None,
        "create_url": "/api/v1/surveys/",
        "update_url": f"/api/v1/surveys/{survey.slug}/" if survey else None,
        "preview_url": "/api/v1/designs/preview/",
        "power_url": reverse("api-design-power"),  # static/js/power.js
        "detail_url_template": reverse("survey-detail", args=["__slug__"]),
        "survey": {
            "title": survey.title if survey else "",
            "description": survey.description if survey else "",
            "access": survey.access if survey else Survey.Access.OPEN,
            "planned_n": survey.planned_n if survey else 1000,
            "closes_at": survey.closes_at.isoformat() if survey and survey.closes_at else None,
            "response_cap": survey.response_cap if survey else None,
            "budget": {
                "epsilon": survey.budget_epsilon if survey else 1.0,
                "delta": survey.budget_delta if survey else 1e-6,
            },
            "questions": [_builder_question(q) for q in survey.questions.all()] if survey else [],
        },
    }
    return render(request, "surveys/builder.html", {"survey": survey, "data": data})


def _pct(x: float | None) -> float | None:
    """A proportion as a percentage for display (0.268 → 26.8); None stays None."""
    return None if x is None else 100.0 * x


def _row(
    base: dict[str, Any],
    label: str,
    n: int,
    source: dict[str, Any],
    rate: str | None,
    estimate: str = "estimate",
    *,
    proportion: bool = True,
    direct: bool = False,
) -> dict[str, Any]:
    """One table row from an estimate entry (or one of its options); absent fields are None.

    Proportions are also given as percentages (``*_pct``): the pages show 26.8%, not 0.268.
    ``clipped`` marks an estimate pinned to 0 or 1 because the debiased value fell outside.
    """
    row = {
        **base,
        "label": label,
        "n": n,
        "reported_rate": source.get(rate) if rate else None,
        "estimate": source.get(estimate),
        "std_error": source.get("std_error"),
        "ci_low": source.get("ci_low"),
        "ci_high": source.get("ci_high"),
        "proportion": proportion,
        "direct": direct,
    }
    unclipped = source.get("estimate_unclipped")
    # Pinned at an edge: k-RR estimates are also projected onto the simplex, which moves
    # interior values a little; only a value held at 0 or 1 needs the clip note.
    row["clipped"] = (
        proportion
        and unclipped is not None
        and row["estimate"] in (0.0, 1.0)
        and unclipped != row["estimate"]
    )
    if proportion:
        for name in ("reported_rate", "estimate", "std_error", "ci_low", "ci_high"):
            row[f"{name}_pct"] = _pct(row[name])
    return row


def _rows(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Flatten the estimates JSON into table rows (one per yes/no question or per option)."""
    rows: list[dict[str, Any]] = []
    for e in entries:
        base = {"key": e["key"], "text": e["text"], "kind": e["kind"], "epsilon": e.get("epsilon")}
        if e["kind"] == Question.Kind.YES_NO:
            rows.append(_row(base, "yes", e["n"], e, "reported_yes_rate"))
        elif e["kind"] == Question.Kind.CHOICE:
            rows += [_row(base, o["option"], e["n"], o, "reported_rate") for o in e["options"]]
        elif e["kind"] == Question.Kind.CATEGORY:
            # Asked directly: the share is the estimate, with no randomization to undo.
            rows += [
                _row(base, o["option"], e["n"], o, "share", "share", direct=True)
                for o in e["options"]
            ]
        else:
            rows.append(_row(base, "mean", e["n"], e, None, "mean", proportion=False))
    return rows


def _crosstab(estimates: dict[str, Any], group_by: str | None) -> dict[str, Any] | None:
    """ONE table for a group-by: rows = questions/options, columns = all respondents + groups.

    Each cell is the row's estimate with its interval and n in that group (instead of one full
    table per group, which took seven phone screens). The group-by question itself is left out
    of the rows: within its own groups its shares are 0% or 100% by construction.
    """
    if not group_by or not estimates.get("groups"):
        return None
    overall = [r for r in _rows(estimates["questions"]) if r["key"] != group_by]
    by_group = [
        {
            "group": g["group"],
            "respondents": g["respondents"],
            "rows": {(r["key"], r["label"]): r for r in _rows(g["questions"])},
        }
        for g in estimates["groups"]
    ]
    rows = []
    for r in overall:
        cells = [r] + [g["rows"].get((r["key"], r["label"])) for g in by_group]
        rows.append({"key": r["key"], "text": r["text"], "label": r["label"],
                     "direct": r["direct"], "cells": cells})  # fmt: skip
    columns = [{"group": "All respondents", "respondents": estimates["respondents"]}] + [
        {"group": g["group"], "respondents": g["respondents"]} for g in by_group
    ]
    return {"columns": columns, "rows": rows}


def _chart(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Geometry for the interval chart: randomized proportions on a 0–100% axis (SVG units).

    Each row is a label line above a full-width bar, so the chart stays legible on a phone.
    """
    bars = []
    row_h, top, left, width = 12.0, 8.0, 4.0, 92.0
    shown = [
        r for r in rows if r["proportion"] and not r.get("direct") and r["estimate"] is not None
    ]
    for i, r in enumerate(shown):
        y = top + i * row_h + 5  # bar top; the label sits in the 5 units above it
        lo = r["ci_low"] if r["ci_low"] is not None else r["estimate"]
        hi = r["ci_high"] if r["ci_high"] is not None else r["estimate"]
        bars.append(
            {
                "label": f"{r['key']}: {r['label']}",
                "y": y,
                "text_y": y - 1.2,
                "bar_w": width * r["estimate"],
                "x_est": left + width * r["estimate"],
                "x_lo": left + width * lo,
                "x_hi": left + width * hi,
                "mid": y + 2.5,
                "cap_top": y + 0.5,
                "cap_bottom": y + 4.5,
                "estimate_pct": _pct(r["estimate"]),
                "ci_low_pct": _pct(r["ci_low"]),
                "ci_high_pct": _pct(r["ci_high"]),
            }
        )
    height = top + len(bars) * row_h + 3
    ticks = [{"x": left + width * t / 100, "label": f"{t}%"} for t in (0, 25, 50, 75, 100)]
    return {
        "bars": bars,
        "height": height,
        "left": left,
        "right": left + width,
        "axis_y": height - 1,
        "ticks": ticks,
        "tick_y": 5,
    }


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


@login_required
@require_GET
def survey_detail(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _owned_or_404(request, slug)
    questions = _questions(survey)
    group_by = request.GET.get("group_by") or None
    category_keys = [q.key for q in questions if q.kind == Question.Kind.CATEGORY]
    if group_by not in category_keys:
        group_by = None
    estimates = survey_estimates(survey=survey, group_by=group_by)
    rows = _rows(estimates["questions"])
    crosstab = _crosstab(estimates, group_by)
    respondents = estimates["respondents"]
    context = {
        "survey": survey,
        "estimates": estimates,
        "rows": rows,
        "chart": _chart(rows),
        "crosstab": crosstab,
        "group_by": group_by,
        "group_question": next((q for q in questions if q.key == group_by), None),
        "category_questions": [q for q in questions if q.kind == Question.Kind.CATEGORY],
        "respondents": respondents,
        "progress_pct": min(100.0, 100.0 * respondents / survey.planned_n)
        if survey.planned_n
        else 0,
        "respond_url": request.build_absolute_uri(reverse("respond", args=[survey.slug])),
        "api_base": f"/api/v1/surveys/{survey.slug}",
        "downloads": _downloads(survey, group_by),
        "any_clipped": any(r["clipped"] for r in rows)
        or any(
            c and c["clipped"] for row in (crosstab or {}).get("rows", []) for c in row["cells"]
        ),
        "releases_template": _releases_template(),
    }
    context.update(analysis_pages.detail_context(request, survey, questions, estimates, group_by))
    return render(request, "surveys/detail.html", context)


@login_required
@require_POST
def survey_transition(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    survey = _owned_or_404(request, slug)
    service = {"open": survey_open, "close": survey_close}.get(action)
    if service is None:
        raise Http404("Unknown action.")
    try:
        service(survey=survey)
    except Conflict as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, f"The survey is now {survey.status}.")
    return redirect("survey-detail", slug=survey.slug)


def _invitations_page(
    request: HttpRequest,
    survey: Survey,
    *,
    links: list[str] | None = None,
    count_error: str = "",
    count_value: str = "10",
    status: int = 200,
) -> HttpResponse:
    counts = invitation_counts(survey=survey)
    context = {
        "survey": survey,
        "counts": counts,
        "can_create": survey.access == Survey.Access.INVITE
        and survey.status != Survey.Status.CLOSED,
        "max_count": MAX_INVITATIONS,
        "links": links or [],
        # The links exist only in this response (digests are stored), so the CSV download is
        # built into the page as a data: URL rather than served by a later request.
        "links_csv_url": "data:text/csv;charset=utf-8," + quote(invitation_links_csv(links))
        if links
        else "",
        "count_error": count_error,
        "count_value": count_value,
    }
    response = render(request, "surveys/invitations.html", context, status=status)
    response["Cache-Control"] = "no-store"  # the links are secrets, shown once
    return response


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def survey_invitations(request: HttpRequest, slug: str) -> HttpResponse:
    """Invitation counts (GET); create tokens and show them once (POST) — they are stored only
    as HMAC digests, so this response is the only place the links ever appear."""
    survey = _owned_or_404(request, slug)
    if request.method == "GET":
        return _invitations_page(request, survey)
    raw = request.POST.get("count", "").strip()
    try:
        count: Any = int(raw)
    except ValueError:
        count = raw  # the service words the error
    try:
        tokens = invitations_create(survey=survey, count=count)
    except InvalidInput as exc:
        message = " ".join(m for ms in exc.errors.values() for m in ms)
        return _invitations_page(request, survey, count_error=message, count_value=raw, status=400)
    except Conflict as exc:
        messages.error(request, exc.detail)
        return _invitations_page(request, survey, status=409)
    base = request.build_absolute_uri(reverse("respond", args=[survey.slug]))
    links = [f"{base}#t={t}" for t in tokens]
    return _invitations_page(request, survey, links=links)


@login_required
@require_POST
def survey_invitations_revoke(request: HttpRequest, slug: str) -> HttpResponse:
    """Revoke every unused invitation, after an explicit confirmation checkbox."""
    survey = _owned_or_404(request, slug)
    if request.POST.get("confirm") != "yes":
        messages.error(request, "Tick the box to confirm: revoked links cannot be restored.")
        return redirect("survey-invitations", slug=survey.slug)
    revoked = invitations_revoke(survey=survey)
    messages.success(
        request,
        f"Revoked {revoked} unused invitation link{'s' if revoked != 1 else ''}: "
        "they no longer work. Answers already given are kept.",
    )
    return redirect("survey-invitations", slug=survey.slug)
