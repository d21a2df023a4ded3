"""Researcher pages for survey management (docs/researcher-guide.md#managing-surveys):
duplicate, archive and unarchive, delete with a typed confirmation, the custom slug, the team,
and the respondent preview.

Thin, like the other pages: the permission resolver decides who may (``survey_or_404`` with the
need of docs/teams.md#roles), the services of ``surveys.services.management`` do the work, and
every form post ends in a redirect with a message (or the same page again with its error).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from deniable.errors import Conflict, InvalidInput, refuse_repeated
from deniable.json_input import string_problem
from deniable.users import signed_in_user
from surveys.inputs import collaborator_spec, survey_changes
from surveys.pages import respond_i18n
from surveys.pages.forms import RespondForm
from surveys.pages.researcher import survey_or_404
from surveys.pages.respond_page import respond_page
from surveys.services import (
    collaborator_remove,
    collaborator_set,
    survey_archive,
    survey_delete,
    survey_duplicate,
    survey_unarchive,
    survey_update,
)
from surveys.services.xlsform import survey_import_xlsform
from surveys.xlsform.reader import max_upload_bytes


def _first_error(exc: InvalidInput) -> str:
    return " ".join(m for ms in exc.errors.values() for m in ms)


@login_required
@require_POST
def survey_duplicate_page(request: HttpRequest, slug: str) -> HttpResponse:
    survey = survey_or_404(request, slug, "edit")
    copy = survey_duplicate(survey=survey, owner=signed_in_user(request.user))
    messages.success(
        request,
        f"“{copy.title}” is a new draft with the same questions, designs and budget; it has no "
        "responses, invitations or releases.",
    )
    return redirect("survey-detail", slug=copy.slug)


@login_required
@require_POST
def survey_archive_page(request: HttpRequest, slug: str, action: str) -> HttpResponse:
    survey = survey_or_404(request, slug, "own")
    service = survey_archive if action == "archive" else survey_unarchive
    try:
        service(survey=survey)
    except Conflict as exc:
        messages.error(request, exc.detail)
    else:
        if action == "archive":
            messages.success(
                request,
                "Archived: the survey is read-only and listed under “Archived surveys”.",
            )
        else:
            messages.success(request, "Unarchived: the survey is closed and back in your list.")
    return redirect("survey-detail", slug=survey.slug)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def survey_delete_page(request: HttpRequest, slug: str) -> HttpResponse:
    """Says what is deleted, then asks for the slug typed again (docs/teams.md#deleting)."""
    survey = survey_or_404(request, slug, "own")
    error = ""
    status = 200
    if request.method == "POST":
        try:
            survey_delete(survey=survey, confirm=request.POST.get("confirm", ""))
        except InvalidInput as exc:
            error, status = _first_error(exc), 400
        except Conflict as exc:
            error, status = exc.detail, 409
        else:
            messages.success(request, f"“{survey.title}” and all its reports were deleted.")
            return redirect("researcher-home")
    return render(request, "surveys/delete.html", {"survey": survey, "error": error}, status=status)


@login_required
@require_POST
def survey_slug_page(request: HttpRequest, slug: str) -> HttpResponse:
    """A new slug for a draft (the link respondents will get)."""
    survey = survey_or_404(request, slug, "edit")
    try:
        changes = survey_changes({"slug": request.POST.get("slug", "").strip()})
        survey_update(survey=survey, changes=changes)
    except InvalidInput as exc:
        messages.error(request, f"Slug not changed: {_first_error(exc)}")
    except Conflict as exc:
        messages.error(request, exc.detail)
    else:
        messages.success(request, f"The survey's link is now /s/{survey.slug}/.")
    return redirect("survey-detail", slug=survey.slug)


@login_required
@require_POST
def survey_share_page(request: HttpRequest, slug: str) -> HttpResponse:
    survey = survey_or_404(request, slug, "own")
    try:
        refuse_repeated(request.POST, ("username", "role"))
        data = {
            "username": request.POST.get("username", "").strip(),
            "role": request.POST.get("role"),
        }
        spec = collaborator_spec(data)
        _, created = collaborator_set(survey=survey, username=spec.username, role=spec.role)
    except InvalidInput as exc:
        messages.error(request, f"Not shared: {_first_error(exc)}")
    else:
        verb = "Shared with" if created else "Changed the role of"
        messages.success(request, f"{verb} {spec.username}: {spec.role}.")
    return redirect(reverse("survey-sharing", args=[survey.slug]) + "#team")


@login_required
@require_POST
def survey_unshare_page(request: HttpRequest, slug: str) -> HttpResponse:
    survey = survey_or_404(request, slug, "own")
    username = request.POST.get("username", "")
    problem = string_problem(username)  # a NUL reached the query: a 500
    if problem:
        messages.error(request, f"Not changed: username: {problem}")
    elif collaborator_remove(survey=survey, username=username):
        messages.success(request, f"{username} no longer has access to this survey.")
    else:
        messages.error(request, f"The survey is not shared with {username}.")
    return redirect(reverse("survey-sharing", args=[survey.slug]) + "#team")


# The preview stores nothing, so a forged cross-site post could only render a page to the
# attacker's victim: no CSRF token is needed, as on the respondent form it mirrors.
@csrf_exempt
@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def survey_preview(request: HttpRequest, slug: str) -> HttpResponse:
    """The respondent page exactly, in any status (draft included), with a "Preview — nothing
    is stored" banner. The script sends nothing and keeps its draws in page memory; the no-JS
    form posts back here, where the answers are checked and thrown away."""
    survey = survey_or_404(request, slug, "view")
    # The language a respondent would get (?lang=, Accept-Language), so each translation can be
    # previewed through the switcher.
    language = respond_i18n.activate(request, survey, list(survey.questions.all()))
    if request.method == "GET":
        form = RespondForm(survey=survey, questions=language.questions, labels=language.labels)
        return respond_page(request, survey, form, language, preview=True)
    form = RespondForm(
        request.POST, survey=survey, questions=language.questions, labels=language.labels
    )
    if "token" in form.fields:
        form.fields["token"].required = False  # no invitation is used up by a preview
    if not form.is_valid():
        return respond_page(request, survey, form, language, status=400, preview=True)
    return render(
        request,
        "respond/message.html",
        {
            "heading": "Preview finished — nothing was stored",
            "text": "These answers were checked as a respondent's would be, then discarded: "
            "nothing was sent, saved or counted.",
            "survey": survey,
            "tone": "ok",
            "advice": "",
            "details": None,
        },
    )


#: Problems listed in the page's message after an import refused (the API lists them all).
IMPORT_PROBLEMS_SHOWN = 20


@login_required
@require_POST
def survey_import_page(request: HttpRequest) -> HttpResponse:
    """The builder's "Import XLSForm": a draft survey from an .xlsx (docs/xlsform.md), opened in
    the builder; its problems, by cell, on the new-survey page otherwise."""
    upload = request.FILES.get("file")
    limit = max_upload_bytes()
    if upload is None:
        messages.error(request, _("Choose an .xlsx file first."))
        return redirect("survey-new")
    try:
        refuse_repeated(request.FILES, ("file",))
        data = upload.read(limit + 1)
        if len(data) > limit:
            raise InvalidInput.single("file", f"The file is over {limit} bytes.")
        survey = survey_import_xlsform(owner=signed_in_user(request.user), data=data)
    except InvalidInput as exc:
        problems = [f"{ref}: {m}" for ref, ms in exc.errors.items() for m in ms]
        shown = "; ".join(problems[:IMPORT_PROBLEMS_SHOWN])
        more = len(problems) - IMPORT_PROBLEMS_SHOWN
        if more > 0:
            shown += " " + _("(and %(n)s more)") % {"n": more}
        messages.error(request, _("Not imported: %(problems)s") % {"problems": shown})
        return redirect("survey-new")
    messages.success(request, _("Imported “%(title)s” as a draft.") % {"title": survey.title})
    return redirect("survey-edit", slug=survey.slug)
