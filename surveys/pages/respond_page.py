"""The respondent page (``respond/survey.html``): one item per question for the template, the
data island its script reads, and the no-JS form's error summary. Shared by the respondent views
(:mod:`surveys.pages.views`) and the researcher's preview (:mod:`surveys.pages.management`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext as _

from dpcore.local import browser as rr_browser
from dpcore.local.designs import registered as registered_designs
from surveys.collection import respond_memo
from surveys.definitions import question_designs as designs
from surveys.kinds import kind_of, kinds
from surveys.models import Question, Survey
from surveys.pages import offline, protection, respond_i18n
from surveys.pages.forms import RespondForm, design_spec, error_field_name, show_if_note
from surveys.pages.respond_strings import respond_strings


def question_data(q: Question, labels: Mapping[str, str]) -> dict[str, Any]:
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
    # Keys only the kind's JS reads (a multi question's ε per option).
    out.update(kind_of(q).page_data(q))
    # The page draws U uniform on [0, 2⁵³) and compares it with these integers, unchanged: the
    # probabilities it runs are exactly thresholds/2⁵³, whose ε is at most out["epsilon"].
    out["random_bits"] = rr_browser.RANDOM_BITS
    out["thresholds"] = designs.question_thresholds(q)
    return out


def kind_modules() -> dict[str, str]:
    """Each registered kind's ES module (its ``js_module``) by the kind's name, as an address."""
    return {kind.name: static(f"js/{kind.js_module}") for kind in kinds()}


def design_modules() -> dict[str, str]:
    """Each one-report design's ES module (its registry entry's ``js_module``: the designs the
    page's randomizer draws) by the design's name, as an address."""
    return {
        entry.name: static(f"js/{entry.js_module}")
        for entry in registered_designs()
        if entry.js_module is not None
    }


def respond_page(
    request: HttpRequest,
    survey: Survey,
    form: RespondForm,
    language: respond_i18n.RespondentLanguage,
    *,
    status: int = 200,
    preview: bool = False,
) -> HttpResponse:
    """The respondent page. ``preview``: the researcher's preview (surveys.pages.management),
    the same page with a banner, no API URL to send to and draws kept in page memory only."""
    questions = form.questions
    items: list[dict[str, Any]] = []
    for q in questions:
        kind = kind_of(q)
        protocol = kind.physical_protocol(q)
        labels = language.labels.get(q.key, {})
        items.append(
            {
                "key": q.key,
                "text": q.text,
                "kind": q.kind,
                # The kind's partial of the answer (templates/respond/kinds/<name>.html).
                "template": kind.template_name,
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
                    (labels.get(option, option), form[name])
                    for option, name in kind.option_fields(q)
                ],
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
        # Offline answering (surveys/pages/offline.py): the worker that keeps the page; none in
        # the researcher's preview, which must never stand in for a respondent's page.
        "worker_url": None if preview else reverse("respond-worker"),
        "worker_scope": offline.WORKER_SCOPE,
        "epsilon_total": designs.epsilon_local_total(questions),
        # Every kind's page module, from the registry (static/js/respond/kinds/index.js imports
        # them; the offline worker keeps them all): the page names no kind itself.
        "kind_modules": kind_modules(),
        # Every one-report design's draw, from the design registry (each registers itself with
        # static/js/rr/randomizer.js, which names no design; the offline worker keeps them all).
        "design_modules": design_modules(),
        "questions": [question_data(q, language.labels.get(q.key, {})) for q in questions],
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
        "error_summary": error_summary(form, questions) if form.is_bound else [],
        "preview": preview,
        "manifest_url": None
        if preview
        else reverse("respond-manifest", args=[survey.slug]) + language.query,
        "theme_color": offline.THEME_COLOR,
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


def error_summary(form: RespondForm, questions: list[Question]) -> list[dict[str, str]]:
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
        kind = kind_of(q)
        errors = [str(m) for n in kind.error_field_names(q) for m in form[n].errors]
        if not errors:
            continue
        # Radio groups: link to the first radio; a number field: to its input.
        href = f"#{kind.error_anchor(q)}"
        joined = " ".join(errors)
        out.append(
            {
                "href": href,
                "text": _("Question %(n)s: %(errors)s") % {"n": number, "errors": joined},
            }
        )
    return out
