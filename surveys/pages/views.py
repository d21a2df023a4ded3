"""Server-rendered pages: the respondent form and the researcher dashboard.

Views stay thin: they fetch through ``surveys.selectors``, change state through
``surveys.services`` and shape the results for the templates. The randomization itself happens in
the respondent's browser (``static/js/respond.js`` with ``static/js/rr/randomizer.js``) or with
their own coins (the no-JS form).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from deniable.errors import Conflict, InvalidInput, NotFound
from surveys.collection.admission import charge_respondent_post, client_of
from surveys.collection.ratelimit import RateLimited
from surveys.definitions import question_designs as designs
from surveys.definitions.specs import SubmissionSpec
from surveys.inputs import submission_spec
from surveys.models import Question, Survey
from surveys.pages import protection, respond_i18n
from surveys.pages.forms import (
    RespondForm,
)
from surveys.pages.respond_page import respond_page
from surveys.selectors import survey_get_public
from surveys.services import (
    submission_create,
)

DEMO_SLUG = "demo"


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
    language: respond_i18n.RespondentLanguage | None = None,
) -> HttpResponse:
    context = {
        "heading": heading,
        "text": text,
        "survey": survey,
        "survey_title": language.words.title if language else (survey.title if survey else ""),
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


def _closed(
    request: HttpRequest, survey: Survey, language: respond_i18n.RespondentLanguage
) -> HttpResponse:
    return _message(
        request,
        _("This survey is closed"),
        _(
            "It no longer accepts answers: the researcher closed it, its closing date has "
            "passed, or it has all the answers it needs. Nothing you entered was sent."
        ),
        status=200,
        survey=survey,
        tone="warn",
        advice=_(
            "There is nothing more to do. If you expected it to be open, contact the "
            "researcher who sent you the link."
        ),
        language=language,
    )


def _already_sent(
    request: HttpRequest, survey: Survey, language: respond_i18n.RespondentLanguage
) -> HttpResponse:
    """This form was sent before with other answers (Back, changed, sent again): only the
    first sending counts, so nothing changed."""
    return _message(
        request,
        _("These answers were already sent"),
        _(
            "This form was already sent once, and only the first sending counts. Your second "
            "sending was not recorded, and the first one was not changed."
        ),
        status=409,
        survey=survey,
        tone="warn",
        advice=_("There is nothing more to do."),
        language=language,
    )


@require_GET
def respond(request: HttpRequest, slug: str) -> HttpResponse:
    survey = _public_or_404(slug)
    questions = _questions(survey)
    language = respond_i18n.activate(request, survey, questions)
    if not survey.is_accepting():
        return _closed(request, survey, language)
    # A token given as ?token=… (old links) prefills the form; new links use #t=…, never sent.
    initial = (
        {"token": request.GET.get("token", "")} if survey.access == Survey.Access.INVITE else {}
    )
    if any(q.is_randomized and designs.question_thresholds(q) is None for q in questions):
        # A design stored before the browser checks existed (e.g. k-RR at ε = 1000): the page
        # cannot run it exactly, so it runs nothing rather than another mechanism.
        return _message(
            request,
            _("This survey cannot be answered here"),
            _(
                "One of its questions uses a randomization this page cannot run exactly. Please "
                "let the researcher know."
            ),
            status=200,
            survey=survey,
            tone="warn",
            language=language,
        )
    form = RespondForm(
        survey=survey, questions=language.questions, labels=language.labels, initial=initial
    )
    return respond_page(request, survey, form, language)


def _form_spec(form: RespondForm) -> tuple[SubmissionSpec | None, InvalidInput | None]:
    """The no-JS form checked by the API's validator (one copy of every rule): the spec, or
    None with the validator's error (None too when the form itself was invalid)."""
    if not form.is_valid():
        return None, None
    body = {
        # The form's one-time id (DESIGN §8.4): the same form posted again is the same
        # submission. A post without one (a page rendered before the field existed) gets a
        # fresh id, as every no-JS post did before.
        "submission_id": form.cleaned_data.get("submission_id") or str(uuid.uuid4()),
        "randomizer": "physical",
        "answers": form.answers(),
        "token": form.cleaned_data.get("token") or None,
    }
    try:
        return submission_spec(questions=form.questions, data=body), None
    except InvalidInput as exc:
        return None, exc


def _rate_limited(
    request: HttpRequest,
    survey: Survey,
    language: respond_i18n.RespondentLanguage,
    exc: RateLimited,
) -> HttpResponse:
    if exc.extra.get("limit") == "sender":
        # Junk from this connection (surveys.collection.admission), not a busy survey.
        text = _(
            "Too many answers that could not be recorded were sent from your connection. "
            "Please check your answers and your invitation code, and try again in "
            "%(seconds)s seconds."
        )
    else:
        text = _(
            "This survey is receiving a lot of answers right now. Please try again in "
            "%(seconds)s seconds."
        )
    return _message(
        request,
        _("Too many answers at once"),
        text % {"seconds": exc.extra.get("retry_after", 60)},
        status=429,
        survey=survey,
        tone="warn",
        language=language,
    )


@csrf_exempt
@never_cache
@require_POST
def respond_submit(request: HttpRequest, slug: str) -> HttpResponse:
    """The no-JS form's former address (pages rendered before it posted to ``thanks/``):
    stores like :func:`respond_thanks`, then redirects to the bare thank-you page."""
    return _submit(request, slug, thank_here=False)


def _submit(request: HttpRequest, slug: str, *, thank_here: bool) -> HttpResponse:
    """The no-JavaScript path: answers randomized with the respondent's own coins.

    CSRF-exempt, like the JSON endpoint (DRF exempts it): CSRF protects ambient authority — a
    session cookie a forged cross-site post would borrow — and a respondent has none. A forged
    post can do exactly what anyone can do directly (answer an open survey; an invite-only one
    needs the token in the body). So the respondent page sets no CSRF cookie at all: a token the
    server ties to nothing would protect nothing, and a year-long ``csrftoken`` cookie rode on
    every submission, a stable identifier across a respondent's visits (issue 11 §10).
    """
    survey = _public_or_404(slug)
    language = respond_i18n.activate(request, survey, _questions(survey))
    if not survey.is_accepting():
        return _closed(request, survey, language)
    form = RespondForm(
        request.POST, survey=survey, questions=language.questions, labels=language.labels
    )
    spec, invalid = _form_spec(form)
    try:
        # After validation: only what could be stored spends the survey's allowance; junk
        # spends its sender's (surveys.collection.admission).
        charge_respondent_post(survey=survey, spec=spec, client=client_of(request))
    except RateLimited as exc:
        return _rate_limited(request, survey, language, exc)
    if invalid is not None:
        form.add_domain_errors(invalid.errors)
    if spec is None:
        return respond_page(request, survey, form, language, status=400)
    try:
        submission_create(survey=survey, **spec.kwargs())
    except InvalidInput as exc:
        form.add_domain_errors(exc.errors)
        return respond_page(request, survey, form, language, status=400)
    except Conflict as exc:
        return _conflict_page(request, survey, language, form, exc)
    except NotFound as exc:
        raise Http404("No such survey.") from exc
    if not thank_here:
        thanks = reverse("respond-thanks", args=[survey.slug]) + language.query
        return HttpResponseRedirect(thanks)
    # Thanked in this response, not after a redirect: only here is it known which questions were
    # answered, so the page lists exactly what was sent (issue 22 item 6). A reload re-posts the
    # same one-time submission_id: a duplicate, thanked again, stored once.
    return _thanks(request, survey, language, answered=set(spec.answers))


def _conflict_page(
    request: HttpRequest,
    survey: Survey,
    language: respond_i18n.RespondentLanguage,
    form: RespondForm,
    exc: Conflict,
) -> HttpResponse:
    """A 409 of the no-JS path, in words: a used invitation, a closed survey, a form sent
    before with other answers, or the service's own detail."""
    if exc.code == "token_used":
        return _message(
            request,
            _("This invitation was already used"),
            _(
                "Each invitation can be used once, and this one already has been, so your "
                "answers were not recorded."
            ),
            status=409,
            survey=survey,
            tone="warn",
            advice=_(
                "If you have not answered this survey before, ask the researcher who "
                "invited you for a new invitation. If you already answered, there is "
                "nothing more to do."
            ),
            language=language,
        )
    if exc.code in ("survey_closed", "response_cap_reached"):
        return _closed(request, survey, language)
    if exc.code == "duplicate_conflict":
        return _already_sent(request, survey, language)
    form.add_error(None, exc.detail)
    return respond_page(request, survey, form, language, status=409)


def _thanks(
    request: HttpRequest,
    survey: Survey,
    language: respond_i18n.RespondentLanguage,
    *,
    answered: set[str] | None,
) -> HttpResponse:
    handling = protection.survey_handling(language.questions, answered)
    # Only the no-JS form lands here (the JS page thanks in place): the randomized answers were
    # the ones the respondent's coins chose.
    return _message(
        request,
        _("Thank you — your answers were recorded"),
        handling["sent"],
        status=200,
        survey=survey,
        tone="ok",
        details=handling,
        language=language,
    )


@csrf_exempt  # as respond_submit (its docstring says why)
@never_cache
@require_http_methods(["GET", "POST"])
def respond_thanks(request: HttpRequest, slug: str) -> HttpResponse:
    """POST: the no-JS form's answers, thanked in the response with exactly what was sent.
    GET (the bare address; older pages redirected here): the answers are not known, so no list
    of them and no guess about which were left out."""
    if request.method == "POST":
        return _submit(request, slug, thank_here=True)
    survey = _public_or_404(slug)
    language = respond_i18n.activate(request, survey, _questions(survey))
    return _thanks(request, survey, language, answered=None)
