"""Forms for the server-rendered pages.

The respondent form is the no-JavaScript path: the respondent flips real coins (or rolls a die)
following :func:`physical_protocol`, and ticks only the answer the coins told them to *record*.
The true answer is never asked for by this form. Each question's fields, protocol and answer are
its kind's (``surveys.kinds``: ``form_fields``, ``physical_protocol``, ``form_answer``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from surveys.definitions import question_designs as designs
from surveys.inputs import answers_clean
from surveys.inputs.responses import question_shown
from surveys.kinds import kind_of
from surveys.kinds._fields import PhysicalProtocol, field_name
from surveys.models import Question, Survey

__all__ = ["PhysicalProtocol", "RespondForm", "field_name", "physical_protocol"]


def error_field_name(question: Question) -> str:
    """The field a question's errors attach to (a multi question's: its first option's)."""
    return kind_of(question).error_field_names(question)[0]


def design_spec(question: Question) -> dict[str, Any]:
    """The question's design spec with the API defaults filled in (docs/api.md#surveys)."""
    spec = dict(question.design or {})
    default = designs.default_design_spec(question.kind)
    if default is None or spec.get("name"):
        return spec
    return {**default, **spec}


def physical_protocol(question: Question) -> PhysicalProtocol:
    """Step-by-step instructions that randomize exactly like the browser would."""
    return kind_of(question).physical_protocol(question)


#: The extra radio of an optional (or skip-logic) question on the no-JS page: a ticked radio
#: cannot be unticked without JavaScript, so leaving the question out needs a radio of its own.
NO_ANSWER = ("", gettext_lazy("No answer (nothing is sent for this question)"))


def show_if_note(
    question: Question,
    questions: list[Question],
    labels: Mapping[str, Mapping[str, str]] | None = None,
) -> str:
    """The no-JS page's words for skip logic: which earlier answer the question applies to, in
    the page's language (``labels``: question key → option value → label)."""
    rule = question.show_if
    if not rule:
        return ""
    source = next((q for q in questions if q.key == rule["key"]), None)
    shown = (labels or {}).get(rule["key"], {})
    options = _(" or ").join(f"“{shown.get(o, o)}”" for o in rule["in"])
    about = f"“{source.text}”" if source is not None else rule["key"]
    return _(
        "Answer only if you answered %(options)s to %(question)s; otherwise leave it unanswered."
    ) % {"options": options, "question": about}


def _optional(field: forms.Field, question: Question) -> forms.Field:
    """An optional or skip-logic question's field: not required by the form (the submission
    rules decide, :func:`surveys.inputs.answers_clean`), with a "No answer" radio."""
    if question.required and not question.show_if:
        return field
    field.required = False
    if isinstance(field, forms.ChoiceField):
        # django-stubs types the getter like the setter; Django stores (value, label) pairs.
        pairs: list[tuple[Any, Any]] = list(field.choices)  # type: ignore[arg-type]
        field.choices = [*pairs, NO_ANSWER]
        if isinstance(field, forms.TypedChoiceField):
            field.empty_value = None
    return field


class RespondForm(forms.Form):
    """One field per question, ``q-<key>``; for randomized kinds it holds the *reported* value."""

    token = forms.CharField(required=False, max_length=200, strip=True)
    # DESIGN §8.4 (issue 22 item 3): a one-time id made when the page is rendered, so the same
    # form posted twice (Back, then send again) is stored once — the API's idempotent
    # submission_id. It is a fresh uuid4 per page, stored nowhere until the answers are.
    # No max_length: a hidden field's own error is not shown; the API's rule ("Must be a
    # UUID") is, at the top of the page (_target).
    submission_id = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(
        self,
        *args: Any,
        survey: Survey,
        questions: list[Question],
        labels: Mapping[str, Mapping[str, str]] | None = None,
        **kwargs: Any,
    ):
        super().__init__(*args, **kwargs)
        # A bound form shows the posted id instead (a refused post keeps its id).
        self.initial.setdefault("submission_id", str(uuid.uuid4()))
        labels = labels or {}
        self.survey = survey
        self.questions = questions
        if survey.access != Survey.Access.INVITE:
            del self.fields["token"]
        else:
            self.fields["token"].required = True
            self.fields["token"].error_messages["required"] = _("Enter your invitation code.")
        for q in questions:
            kind = kind_of(q)
            for name, field in kind.form_fields(q, labels.get(q.key, {})).items():
                self.fields[name] = _optional(field, q)

    def clean(self) -> dict[str, Any]:
        """The answers that parsed are checked by the API's rules (one copy:
        :func:`surveys.inputs.answers_clean`), so a refusal reads the same on both paths."""
        cleaned = super().clean() or {}
        self._refuse_repeated_fields()
        try:
            answers_clean(self.questions, self.answers())
        except serializers.ValidationError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {}
            errors = {path: [str(m) for m in messages] for path, messages in detail.items()}
            self.add_domain_errors(errors, skip_fields_with_errors=True)
        return cleaned

    def _refuse_repeated_fields(self) -> None:
        """A field posted twice (``q-x=yes&q-x=no``) is refused, not read as its last value."""
        getlist = getattr(self.data, "getlist", None)
        if getlist is None:
            return
        for name in list(self.fields):
            if len(getlist(name)) > 1:
                target = None if name == "submission_id" else name
                self.add_error(target, _("This was sent more than once: send one value."))

    def answers(self) -> dict[str, Any]:
        """The answers to send. An answer to a question hidden by its skip logic is dropped here
        (a radio ticked before the earlier answer changed cannot be unticked without
        JavaScript); the JSON API refuses one instead (docs/respondent-pages.md#skip-logic)."""
        data = self.cleaned_data
        out: dict[str, Any] = {}
        for q in self.questions:
            value = kind_of(q).form_answer(q, data)
            if value is None or not question_shown(q, out):
                continue
            out[q.key] = value
        return out

    def _target(self, path: str) -> str | None:
        if path.startswith("answers."):
            key = path.split(".", 1)[1]
            return next((error_field_name(q) for q in self.questions if q.key == key), None)
        if path == "submission_id":
            return None  # a hidden field: its refusal is shown at the top of the page
        return "token" if path == "token" and "token" in self.fields else None

    def add_domain_errors(
        self, errors: dict[str, list[str]], *, skip_fields_with_errors: bool = False
    ) -> None:
        """Attach ``{"answers.<key>": [...]}`` errors (the serializer's, a service's) to the
        matching fields; ``skip_fields_with_errors``: not to a field already refused."""
        for path, messages in errors.items():
            target = self._target(path)
            if skip_fields_with_errors and target is not None and self.has_error(target):
                continue
            for message in messages:
                self.add_error(target, message)
