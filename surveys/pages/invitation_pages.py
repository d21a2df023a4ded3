"""Researcher actions on a survey's life and invitations: open/close, and the invitation links
(created and shown once, revoked)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST

from deniable.errors import Conflict, InvalidInput
from surveys.inputs import invitation_request
from surveys.models import Survey
from surveys.pages.researcher import survey_or_404
from surveys.selectors import estimate_batch
from surveys.services import (
    MAX_INVITATIONS,
    invitation_counts,
    invitation_links_csv,
    invitations_create,
    invitations_revoke,
    survey_close,
    survey_open,
)


@login_required
@require_POST
def survey_transition(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    survey = survey_or_404(request, slug, "edit")
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
        "estimate_batch": estimate_batch(),
        "can_create": survey.access == Survey.Access.INVITE
        and survey.status not in (Survey.Status.CLOSED, Survey.Status.ARCHIVED)
        and getattr(survey, "role", None) in ("owner", "editor"),
        "can_revoke": survey.status != Survey.Status.ARCHIVED
        and getattr(survey, "role", None) in ("owner", "editor"),
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
    survey = survey_or_404(request, slug, "view" if request.method == "GET" else "edit")
    if request.method == "GET":
        return _invitations_page(request, survey)
    raw = request.POST.get("count", "").strip()
    try:
        count: Any = int(raw)
    except ValueError:
        count = raw  # the serializer words the error
    try:
        wanted = invitation_request({"count": count})
        tokens = invitations_create(survey=survey, count=wanted.count)
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
    survey = survey_or_404(request, slug, "edit")
    if request.POST.get("confirm") != "yes":
        messages.error(request, "Tick the box to confirm: revoked links cannot be restored.")
        return redirect("survey-invitations", slug=survey.slug)
    try:
        revoked = invitations_revoke(survey=survey)
    except Conflict as exc:
        messages.error(request, exc.detail)
        return redirect("survey-invitations", slug=survey.slug)
    messages.success(
        request,
        f"Revoked {revoked} unused invitation link{'s' if revoked != 1 else ''}: "
        "they no longer work. Answers already given are kept.",
    )
    return redirect("survey-invitations", slug=survey.slug)
