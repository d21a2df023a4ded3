"""Server-rendered pages: the respondent form and the researcher dashboard.

Views stay thin: they fetch through ``surveys.selectors``, change state through
``surveys.services`` and shape the results for the templates. The randomization itself happens in
the respondent's browser (``static/js/respond.js`` with ``static/js/rr/randomizer.js``) or with
their own coins (the no-JS form).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from deniable.errors import Conflict, InvalidInput, NotFound
from dpcore.local import browser as rr_browser
from surveys import designs, protection, respond_i18n, respond_memo
from surveys.admission import charge_respondent_post, client_of
from surveys.forms import (
    RespondForm,
    design_spec,
    error_field_name,
    option_field_name,
    physical_protocol,
    show_if_note,
)
from surveys.inputs import invitation_request, submission_spec
from surveys.kinds import kind_of
from surveys.models import Question, Survey
from surveys.ratelimit import RateLimited
from surveys.researcher_pages import survey_or_404
from surveys.respond_strings import respond_strings
from surveys.selectors import estimate_batch, survey_get_public
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
from surveys.specs import SubmissionSpec

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


def _question_data(q: Question, labels: Mapping[str, str]) -> dict[str, Any]:
    """What the browser needs to randomize and explain one question (never anything secret)."""
    out: dict[str, Any] = {
        "key": q.key,
        "text": q.text,
        "kind": q.kind,
        # The page's module for this kind (static/js/respond/kinds/<kind_name>.js): the registry's
        # name, which differs from ``kind`` for the kinds selected by their design.
        "kind_name": kind_of(q).name,
        "randomized": q.is_randomized,
        "options": list(q.options or []),
        # The option values are what is sent; the labels are what the respondent reads.
        "labels": dict(labels),
        "min": q.min_value,
        "max": q.max_value,
        "integer": q.integer,
        "required": q.required,
        "show_if": q.show_if,
        # Handling, randomizer and deniability words and numbers: computed once, server-side.
        "protection": protection.question_protection(q, labels),
    }
    if not q.is_randomized:
        return out
    design = designs.question_design(q)
    out["design"] = dict(design.to_spec()) if design is not None else design_spec(q)
    out["epsilon"] = designs.question_epsilon(q)
    if q.kind == Question.Kind.MULTI:
        # Each option is one report through the design (the page draws once per option).
        out["epsilon_per_option"] = designs.option_epsilon(q)
    # The page draws U uniform on [0, 2⁵³) and compares it with these integers, unchanged: the
    # probabilities it runs are exactly thresholds/2⁵³, whose ε is at most out["epsilon"].
    out["random_bits"] = rr_browser.RANDOM_BITS
    out["thresholds"] = designs.question_thresholds(q)
    return out


def _respond_page(
    request: HttpRequest,
    survey: Survey,
    form: RespondForm,
    language: respond_i18n.RespondentLanguage,
    *,
    status: int = 200,
    preview: bool = False,
) -> HttpResponse:
    """The respondent page. ``preview``: the researcher's preview (surveys.management_pages),
    the same page with a banner, no API URL to send to and draws kept in page memory only."""
    questions = form.questions
    items: list[dict[str, Any]] = []
    for q in questions:
        protocol = physical_protocol(q)
        labels = language.labels.get(q.key, {})
        items.append(
            {
                "key": q.key,
                "text": q.text,
                "kind": q.kind,
                "randomized": q.is_randomized,
                "options": [(o, labels.get(o, o)) for o in q.options or []],
                "min": q.min_value,
                "max": q.max_value,
                "integer": q.integer,
                "field": form[error_field_name(q)],
                "required": q.required,
                "show_if_note": show_if_note(q, questions, language.labels),
                # A multi question: (option label, its YES/NO radio pair) per option.
                "option_fields": [
                    (labels.get(option, option), form[option_field_name(q, i)])
                    for i, option in enumerate(q.options)
                ]
                if q.kind == Question.Kind.MULTI
                else [],
                "protocol": protocol,
                "protection": protection.question_protection(q, labels),
            }
        )
    data = {
        "slug": survey.slug,
        # The memo's scope: the survey's identity and designs, never the slug (issue 21 item 8).
        "memo_scope": respond_memo.memo_scope(survey, questions),
        "access": survey.access,
        "language": language.code,
        # ?lang=… so the endpoints answer (refusals included) in the page's language.
        "api_url": None
        if preview
        else reverse("api-survey-responses", args=[survey.slug]) + language.query,
        "invitation_check_url": reverse("api-survey-invitations-check", args=[survey.slug])
        + language.query
        if survey.access == Survey.Access.INVITE and not preview
        else None,
        "preview": preview,
        "epsilon_total": designs.epsilon_local_total(questions),
        "questions": [_question_data(q, language.labels.get(q.key, {})) for q in questions],
    }
    context = {
        "survey": survey,
        "words": language.words,
        "languages": respond_i18n.switcher(request, language),
        "lang_query": language.query,
        "strings": respond_strings(),
        "form": form,
        "items": items,
        "data": data,
        "epsilon_total": data["epsilon_total"],
        "physical_possible": all(item["protocol"].possible for item in items),
        "handling": protection.survey_handling(questions),
        # The JS page's thank-you: the sentence without the unanswered note (the script adds
        # it, and hides the list items of questions it did not send).
        "thanks_handling": protection.survey_handling(questions, {q.key for q in questions}),
        "error_summary": _error_summary(form, questions) if form.is_bound else [],
        "preview": preview,
    }
    response = render(request, "respond/survey.html", context, status=status)
    carries_token = "token" in form.fields and bool(form["token"].value())
    if form.is_bound or carries_token:
        # The page carries what was typed or an invitation token (?token=…, old links): never
        # kept anywhere, not even by this browser's Back button.
        response["Cache-Control"] = "no-store"
    else:
        # A fresh form holds nothing of the respondent's. This browser may keep it (private:
        # never a shared cache; no-cache: a new visit always gets a new page) so that Back,
        # after sending, shows the same form with the same one-time submission_id, and sending
        # it again is recognised as the same submission (DESIGN §8.4; with no-store, Back would
        # fetch a new form with a new id and count the same person twice).
        response["Cache-Control"] = "private, no-cache"
    return response


def _error_summary(form: RespondForm, questions: list[Question]) -> list[dict[str, str]]:
    """The no-JS form's refusals, each linked to its field (shown at the top of the page)."""
    # An ErrorList yields each message as text (lazy or not): str() makes that explicit.
    out: list[dict[str, str]] = []
    for message in form.non_field_errors():
        out.append({"href": "#respond-form", "text": str(message)})
    if "token" in form.fields and form["token"].errors:
        text = " ".join(str(m) for m in form["token"].errors)
        out.append(
            {"href": "#id_token", "text": _("Invitation code: %(errors)s") % {"errors": text}}
        )
    for number, q in enumerate(questions, start=1):
        name = error_field_name(q)
        names = (
            [option_field_name(q, i) for i in range(len(q.options))]  # every option's pair
            if q.kind == Question.Kind.MULTI
            else [name]
        )
        errors = [str(m) for n in names for m in form[n].errors]
        if not errors:
            continue
        # Radio groups: link to the first radio; a number field: to its input.
        radio = q.kind != Question.Kind.NUMBER
        href = f"#id_{name}_0" if radio else f"#id_{name}"
        joined = " ".join(errors)
        out.append(
            {
                "href": href,
                "text": _("Question %(n)s: %(errors)s") % {"n": number, "errors": joined},
            }
        )
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
    return _respond_page(request, survey, form, language)


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
        # Junk from this connection (surveys.admission), not a busy survey.
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
        # spends its sender's (surveys.admission).
        charge_respondent_post(survey=survey, spec=spec, client=client_of(request))
    except RateLimited as exc:
        return _rate_limited(request, survey, language, exc)
    if invalid is not None:
        form.add_domain_errors(invalid.errors)
    if spec is None:
        return _respond_page(request, survey, form, language, status=400)
    try:
        submission_create(survey=survey, **spec.kwargs())
    except InvalidInput as exc:
        form.add_domain_errors(exc.errors)
        return _respond_page(request, survey, form, language, status=400)
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
    return _respond_page(request, survey, form, language, status=409)


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


# --- researchers ---------------------------------------------------------------------------------


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
