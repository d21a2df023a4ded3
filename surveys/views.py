"""Server-rendered pages: the respondent form and the researcher dashboard.

Views stay thin: they fetch through ``surveys.selectors``, change state through
``surveys.services`` and shape the results for the templates. The randomization itself happens in
the respondent's browser (``static/js/respond.js``) or with their own coins (the no-JS form).
"""

from __future__ import annotations

import uuid
from typing import Any

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
from privacy import rr, rr_browser
from surveys import designs
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
    invitations_create,
    submission_create,
    survey_close,
    survey_open,
)

DEMO_SLUG = "demo"
RELEASES_TEMPLATE = "privacy/_releases.html"
# The prior used in the respondents' deniability sentences ("someone who thought 10% of people…").
DENIABILITY_PRIOR = 0.1


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
    if q.kind == Question.Kind.YES_NO:
        c, d = float(design.c), float(design.d)
        lam = c * DENIABILITY_PRIOR + d
        out["deniability"] = {
            "prior": DENIABILITY_PRIOR,
            # P(trait | reported yes) = π(c+d)/λ and P(trait | reported no) = π(1−c−d)/(1−λ).
            "posterior_yes": rr.deniability(design, DENIABILITY_PRIOR),
            "posterior_no": DENIABILITY_PRIOR * (1 - c - d) / (1 - lam) if lam < 1 else 0.0,
        }
    else:
        out["deniability"] = {
            "prior": DENIABILITY_PRIOR,
            "posterior_reported": rr.krr_deniability(design, DENIABILITY_PRIOR),
        }
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
            }
        )
    data = {
        "slug": survey.slug,
        "access": survey.access,
        "api_url": f"/api/v1/surveys/{survey.slug}/responses/",
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
    }
    response = render(request, "respond/survey.html", context, status=status)
    # The page can carry an invitation token in its form: keep it out of shared caches.
    response["Cache-Control"] = "no-store"
    return response


def _message(
    request: HttpRequest,
    heading: str,
    text: str,
    *,
    status: int,
    survey: Survey | None = None,
    tone: str = "",
) -> HttpResponse:
    return render(
        request,
        "respond/message.html",
        {"heading": heading, "text": text, "survey": survey, "tone": tone},
        status=status,
    )


def _public_or_404(slug: str) -> Survey:
    try:
        return survey_get_public(slug=slug)
    except NotFound as exc:
        raise Http404("No such survey.") from exc


def _closed(request: HttpRequest, survey: Survey) -> HttpResponse:
    return _message(
        request,
        "This survey is closed",
        "It no longer accepts answers. Thank you for your interest.",
        status=200,
        survey=survey,
        tone="warn",
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
                "Each invitation can be used once, and this one already has been. If you "
                "think this is a mistake, ask the researcher for a new invitation.",
                status=409,
                survey=survey,
                tone="warn",
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
    return _message(
        request,
        "Thank you — your answers were recorded",
        "Only the answers your coins told you to record were sent. Nobody can tell which of "
        "them are your true answers.",
        status=200,
        survey=survey,
        tone="ok",
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


def _percent(x: float | None) -> float | None:
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
    """One table row from an estimate entry (or one of its options); absent fields are None."""
    return {
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
    }  # fmt: skip


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
                "estimate_pct": _percent(r["estimate"]),
                "ci_low_pct": _percent(r["ci_low"]),
                "ci_high_pct": _percent(r["ci_high"]),
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
    groups = [
        {"group": g["group"], "respondents": g["respondents"], "rows": _rows(g["questions"])}
        for g in estimates.get("groups", [])
    ]
    respondents = estimates["respondents"]
    context = {
        "survey": survey,
        "estimates": estimates,
        "rows": rows,
        "chart": _chart(rows),
        "groups": groups,
        "group_by": group_by,
        "category_questions": [q for q in questions if q.kind == Question.Kind.CATEGORY],
        "respondents": respondents,
        "progress_pct": min(100.0, 100.0 * respondents / survey.planned_n)
        if survey.planned_n
        else 0,
        "respond_url": request.build_absolute_uri(reverse("respond", args=[survey.slug])),
        "api_base": f"/api/v1/surveys/{survey.slug}",
        "releases_template": _releases_template(),
    }
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


@never_cache
@login_required
@require_http_methods(["POST"])
def survey_invitations(request: HttpRequest, slug: str) -> HttpResponse:
    """Create invitation tokens and show them once (they are stored only as HMAC digests)."""
    survey = _owned_or_404(request, slug)
    try:
        count = int(request.POST.get("count", ""))
    except ValueError:
        count = 0
    try:
        tokens = invitations_create(survey=survey, count=count)
    except InvalidInput as exc:
        messages.error(request, " ".join(m for ms in exc.errors.values() for m in ms))
        return redirect("survey-detail", slug=survey.slug)
    except Conflict as exc:
        messages.error(request, exc.detail)
        return redirect("survey-detail", slug=survey.slug)
    base = request.build_absolute_uri(reverse("respond", args=[survey.slug]))
    links = [{"token": t, "url": f"{base}#t={t}"} for t in tokens]
    response = render(request, "surveys/invitations.html", {"survey": survey, "links": links})
    response["Cache-Control"] = "no-store"
    return response
