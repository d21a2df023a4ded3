"""Forms for the server-rendered pages.

The respondent form is the no-JavaScript path: the respondent flips real coins (or rolls a die)
following :func:`physical_protocol`, and ticks only the answer the coins told them to *record*.
The true answer is never asked for by this form.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.utils import formats
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from rest_framework import serializers

from dpcore.local import DEFAULT_YES_NO_SPEC, DesignError
from surveys import designs, physical
from surveys.inputs import answers_clean
from surveys.inputs.responses import question_shown
from surveys.models import Question, Survey
from surveys.tally_layout import is_cheater_question

COIN_DESIGN = {k: v for k, v in DEFAULT_YES_NO_SPEC.items() if k != "name"}
DEFAULT_YES_NO_DESIGN = dict(DEFAULT_YES_NO_SPEC)


def field_name(question: Question) -> str:
    return f"q-{question.key}"


def option_field_name(question: Question, index: int) -> str:
    """A multi question's radio pair for its option ``index`` (keys hold no ".")."""
    return f"q-{question.key}.{index}"


def error_field_name(question: Question) -> str:
    """The field a question's errors attach to: a multi question's first option."""
    if question.kind == Question.Kind.MULTI:
        return option_field_name(question, 0)
    return field_name(question)


def design_spec(question: Question) -> dict[str, Any]:
    """The question's design spec with the API defaults filled in (docs/api.md#surveys)."""
    spec = dict(question.design or {})
    if question.kind in (Question.Kind.YES_NO, Question.Kind.MULTI) and not spec.get("name"):
        spec = {**DEFAULT_YES_NO_DESIGN, **spec}
    if question.kind == Question.Kind.CHOICE and not spec.get("name"):
        spec = {"name": "k_rr", **spec}
    return spec


# --- physical protocols --------------------------------------------------------------------------
# The device and its faces come from ``surveys.physical`` (exact fractions, no dropped outcome);
# here they become instructions. No device → the question needs JavaScript, and the page says so.

# Lazy: module-level words are translated when shown, in the respondent's language.
_ACTIONS = {
    physical.TRUTH: gettext_lazy("answer truthfully (tick your true answer)"),
    physical.YES: gettext_lazy("tick YES, whatever your true answer"),
    physical.NO: gettext_lazy("tick NO, whatever your true answer"),
    physical.OPPOSITE: gettext_lazy("tick the opposite of your true answer"),
    physical.KEEP: gettext_lazy("tick your true answer"),
    physical.OTHER: gettext_lazy("tick a random other option"),
}
_COIN_STEPS = [
    gettext_lazy("Flip a coin, where nobody can see it."),
    gettext_lazy("Tails: answer truthfully — tick your true answer below."),
    gettext_lazy(
        "Heads: flip again. Heads: tick YES. Tails: tick NO. (Do this whatever your true "
        "answer is.)"
    ),
]


@dataclass
class PhysicalProtocol:
    possible: bool
    steps: list[str] = field(default_factory=list)
    reason: str = ""


def _rows(realisation: physical.Realisation, actions: Mapping[str, Any] | None = None) -> list[str]:
    actions = _ACTIONS if actions is None else actions
    steps, start = [], 0
    for outcome, count in realisation.counts:
        # Face names are marked for translation in surveys.physical (digits stay digits).
        chosen = [_(name) for name in realisation.face_names[start : start + count]]
        start += count
        if realisation.faces in (6, 36) and len(chosen) > 1:
            label = f"{chosen[0]}–{chosen[-1]}"
        else:
            label = _(" or ").join(chosen)
        step = _("%(faces)s: %(action)s.") % {
            "faces": label[:1].upper() + label[1:],
            "action": actions[outcome],
        }
        steps.append(step)
    return steps


CROSSWISE_STEPS = [
    gettext_lazy("Think of your true answer to each of the two statements. Nobody needs a coin."),
    gettext_lazy(
        "Both true, or both false: tick SAME. One true and the other false: tick DIFFERENT."
    ),
]


def physical_protocol(question: Question) -> PhysicalProtocol:
    """Step-by-step instructions that randomize exactly like the browser would."""
    if not question.is_randomized:
        return PhysicalProtocol(True)
    if (question.design or {}).get("name") == "crosswise":
        # No randomizer: the page asks SAME/DIFFERENT identically with and without JavaScript.
        return PhysicalProtocol(True, [str(step) for step in CROSSWISE_STEPS])
    try:
        design = designs.question_design(question)
    except DesignError:
        design = None
    if design is not None and designs.is_cheater(design):
        return _cheater_protocol(design)
    realisation = physical.physical_realisation(design) if design is not None else None
    if realisation is None:
        if question.kind == Question.Kind.CHOICE and design is not None:
            return PhysicalProtocol(
                False,
                reason=_(
                    "It keeps your answer with probability %(p)s, which coins or dice cannot "
                    "reproduce exactly, so this question needs JavaScript."
                )
                % {"p": formats.number_format(design.keep_probability, 3)},
            )
        return PhysicalProtocol(False, reason=_NEEDS_JS())
    spec = design.to_spec()
    if question.kind == Question.Kind.MULTI:
        return _multi_protocol(question, realisation, spec)
    if (
        question.kind == Question.Kind.YES_NO
        and {k: spec.get(k) for k in COIN_DESIGN} == COIN_DESIGN
        and spec["name"] == "forced_response"
    ):
        return PhysicalProtocol(True, [str(step) for step in _COIN_STEPS])
    steps = [
        _("%(instruction)s Do it where nobody can see.")
        % {"instruction": _(realisation.instruction)},
        *_rows(realisation),
    ]
    if question.kind == Question.Kind.CHOICE:
        steps.append(_other_option_step(design.k))
    return PhysicalProtocol(True, steps)


def _other_option_step(k: int) -> str:
    """How a k-RR respondent picks "a random other option" with a die."""
    if k - 1 > 1:
        return _(
            "To pick a random other option: leave out your true answer, number the other "
            "%(n)s options 1 to %(n)s in the order shown, and roll a die until it shows a "
            "number from 1 to %(n)s. Tick that option."
        ) % {"n": k - 1}
    return _("The random other option is simply the option that is not your answer.")


def _NEEDS_JS() -> str:
    return _(
        "Its probabilities cannot be reproduced exactly with coins or dice, so this question "
        "needs JavaScript."
    )


_MULTI_ACTIONS = {
    physical.TRUTH: gettext_lazy("tick your true answer for that option"),
    physical.YES: gettext_lazy("tick YES for that option, whatever your true answer"),
    physical.NO: gettext_lazy("tick NO for that option, whatever your true answer"),
    physical.OPPOSITE: gettext_lazy("tick the opposite of your true answer for that option"),
}


def _multi_protocol(
    question: Question, realisation: physical.Realisation, spec: dict[str, Any]
) -> PhysicalProtocol:
    """Multi-select without JavaScript: the yes/no design's device once per option, afresh for
    each (independent draws, as the browser makes them), and YES/NO ticked per option."""
    k = len(question.options)
    steps = [
        _(
            "Do this for each of the %(k)s options in turn, with a new flip (or roll) each "
            "time, where nobody can see it."
        )
        % {"k": k}
    ]
    if {key: spec.get(key) for key in COIN_DESIGN} == COIN_DESIGN and spec["name"] == (
        "forced_response"
    ):
        steps += [
            _("Flip a coin. Tails: tick your true answer for that option."),
            _(
                "Heads: flip again. Heads: tick YES for that option. Tails: tick NO. (Whatever "
                "your true answer is.)"
            ),
        ]
        return PhysicalProtocol(True, steps)
    steps.append(_(realisation.instruction))
    return PhysicalProtocol(True, [*steps, *_rows(realisation, _MULTI_ACTIONS)])


def _cheater_protocol(design: Any) -> PhysicalProtocol:
    """Cheating detection without JavaScript: a coin for the group (heads 1, tails 2: ½ each),
    then that group's coins or dice (``physical.cheater_realisation``); the group is ticked with
    the report."""
    realisations = physical.cheater_realisation(design)
    if realisations is None:
        return PhysicalProtocol(False, reason=_NEEDS_JS())
    steps = [_("Flip a coin where nobody can see it. Heads: you are in group 1. Tails: group 2.")]
    for i, realisation in enumerate(realisations, start=1):
        rows = " ".join(_rows(realisation))
        steps.append(
            _("Group %(n)s only: %(instruction)s %(rows)s")
            % {"n": i, "instruction": _(realisation.instruction), "rows": rows}
        )
    steps.append(_("Tick the box with your group and the answer you ended up with."))
    return PhysicalProtocol(True, steps)


CHEATER_CHOICES = [
    ("g1_yes", gettext_lazy("Group 1: YES")),
    ("g1_no", gettext_lazy("Group 1: NO")),
    ("g2_yes", gettext_lazy("Group 2: YES")),
    ("g2_no", gettext_lazy("Group 2: NO")),
]


def _cheater_field() -> _PaddedChoiceField:
    """Cheating detection's radios: group × report, posted as ``{"group", "report"}``."""
    return _PaddedChoiceField(
        choices=_padded([(value, str(label)) for value, label in CHEATER_CHOICES]),
        coerce=lambda v: {"group": int(v[1]), "report": v.endswith("yes")},
        widget=forms.RadioSelect,
        error_messages={"required": _("Tick your group and the answer your coin or die told you.")},
    )


# --- the no-JavaScript respondent form -----------------------------------------------------------


#: The bytes the WHATWG application/x-www-form-urlencoded serializer (what browsers post) leaves
#: as they are; a space becomes the one byte "+", every other UTF-8 byte "%XX" (three bytes).
#: Not Python's quote_plus, which keeps "~" and encodes "*" (issue 21 item 6).
_FORM_SAFE = frozenset(b"*-._0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ")


def form_encoded_length(text: str) -> int:
    """Bytes of ``text`` in a browser's form post (tests/e2e/test_respondent_no_js_padding.py
    checks it against Chromium over every printable ASCII character and some non-ASCII)."""
    return sum(1 if byte in _FORM_SAFE else 3 for byte in text.encode("utf-8"))


def _padded(values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Fixed-length no-JS posts (issue 11 item 5): each radio value of a randomized question is
    padded with trailing spaces so that, form-encoded by the browser, every report of the
    question has the same byte length (a space encodes as the one byte "+"). Options never end
    in a space (they are stripped when saved), so stripping the padding is exact."""
    width = max(form_encoded_length(v) for v, _ in values)
    return [(v + " " * (width - form_encoded_length(v)), label) for v, label in values]


def _tick_message() -> str:
    """One wording for one mistake (issue 22 item 4): a randomized question left unticked."""
    return _("Tick the answer your coin or die told you to record.")


def _missing_messages(question: Question) -> dict[str, str]:
    """The no-JS form's words for an unanswered required question, the JS page's words."""
    if question.kind == Question.Kind.NUMBER and question.bounds is not None:
        lo, hi = question.bounds
        text = _("Enter a number from %(min)s to %(max)s.") % {"min": f"{lo:g}", "max": f"{hi:g}"}
        return {"required": text}
    if question.kind == Question.Kind.NUMBER:
        return {"required": _("Enter a number.")}
    if question.kind == Question.Kind.CATEGORY:
        return {"required": _("Choose an answer.")}
    return {"required": _tick_message()}


class _PaddedChoiceField(forms.TypedChoiceField):
    """A randomized question's radio group: values padded as :func:`_padded`, padding ignored on
    input (so an unpadded value, e.g. from an older page, is accepted too)."""

    def to_python(self, value: Any) -> str:
        return super().to_python(value).rstrip(" ")

    def valid_value(self, value: Any) -> bool:
        # django-stubs types the getter like the setter (every accepted form); Django stores the
        # choices normalized, a list of (value, label) pairs here.
        pairs: list[tuple[Any, Any]] = self.choices  # type: ignore[assignment]
        return any(str(key).rstrip(" ") == value for key, _ in pairs)


def _crosswise_field() -> _PaddedChoiceField:
    """The crosswise question's radios: the reported boolean is ``same``.

    The model: docs/formulas.md#crosswise.
    """
    return _PaddedChoiceField(
        choices=_padded([("same", _("Same")), ("different", _("Different"))]),
        coerce=lambda v: v == "same",
        widget=forms.RadioSelect,
        error_messages={"required": _("Tick SAME or DIFFERENT.")},
    )


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
    submission_id = forms.CharField(required=False, max_length=64, widget=forms.HiddenInput)

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
            name = field_name(q)
            if q.kind == Question.Kind.YES_NO and (q.design or {}).get("name") == "crosswise":
                self.fields[name] = _crosswise_field()
            elif is_cheater_question(q):
                self.fields[name] = _cheater_field()
            elif q.kind == Question.Kind.YES_NO:
                self.fields[name] = _PaddedChoiceField(
                    choices=_padded([("yes", _("Yes")), ("no", _("No"))]),
                    coerce=lambda v: v == "yes",
                    widget=forms.RadioSelect,
                    error_messages={"required": _tick_message()},
                )
            elif q.kind == Question.Kind.CHOICE:
                # The value sent is the stored option; the label is the respondent's language.
                shown = labels.get(q.key, {})
                self.fields[name] = _PaddedChoiceField(
                    choices=_padded([(o, shown.get(o, o)) for o in q.options]),
                    widget=forms.RadioSelect,
                    error_messages=_missing_messages(q),
                )
            elif q.kind == Question.Kind.MULTI:
                # One YES/NO radio pair per option (padded like yes/no, so every post of the
                # question has the same length; a ticked-or-absent checkbox would not).
                for i, option in enumerate(q.options):
                    self.fields[option_field_name(q, i)] = _PaddedChoiceField(
                        choices=_padded([("yes", _("Yes")), ("no", _("No"))]),
                        coerce=lambda v: v == "yes",
                        widget=forms.RadioSelect,
                        label=labels.get(q.key, {}).get(option, option),
                        error_messages={
                            "required": _("“%(option)s”: %(message)s")
                            % {
                                "option": labels.get(q.key, {}).get(option, option),
                                "message": _tick_message(),
                            }
                        },
                    )
                    # Optional: every option may be left at "No answer" (then nothing is sent).
                    name_i = option_field_name(q, i)
                    self.fields[name_i] = _optional(self.fields[name_i], q)
                continue
            elif q.kind == Question.Kind.CATEGORY:
                shown = labels.get(q.key, {})
                self.fields[name] = forms.ChoiceField(
                    choices=[(o, shown.get(o, o)) for o in q.options],
                    widget=forms.RadioSelect,
                    error_messages=_missing_messages(q),
                )
            else:
                # Parsing only: the bounds are checked by the submission serializer's rule
                # (``clean`` below); the attributes let the browser say so before posting.
                bounds = {"min": q.min_value, "max": q.max_value, "step": 1 if q.integer else "any"}
                self.fields[name] = forms.FloatField(
                    widget=forms.NumberInput(attrs=bounds), error_messages=_missing_messages(q)
                )
            self.fields[name] = _optional(self.fields[name], q)
            self.fields[name].label = q.text

    def clean(self) -> dict[str, Any]:
        """The answers that parsed are checked by the API's rules (one copy:
        :func:`surveys.inputs.answers_clean`), so a refusal reads the same on both paths."""
        cleaned = super().clean() or {}
        try:
            answers_clean(self.questions, self.answers())
        except serializers.ValidationError as exc:
            detail = exc.detail if isinstance(exc.detail, dict) else {}
            errors = {path: [str(m) for m in messages] for path, messages in detail.items()}
            self.add_domain_errors(errors, skip_fields_with_errors=True)
        return cleaned

    def answers(self) -> dict[str, Any]:
        """The answers to send. An answer to a question hidden by its skip logic is dropped here
        (a radio ticked before the earlier answer changed cannot be unticked without
        JavaScript); the JSON API refuses one instead (docs/respondent-pages.md#skip-logic)."""
        data = self.cleaned_data
        out: dict[str, Any] = {}
        for q in self.questions:
            if q.kind == Question.Kind.MULTI:
                reports = {
                    option: data.get(option_field_name(q, i)) for i, option in enumerate(q.options)
                }
                given = {o: v for o, v in reports.items() if isinstance(v, bool)}
                if given:  # some options left at "No answer": refused as missing options
                    out[q.key] = given
                continue
            value = data.get(field_name(q))
            if value is None or value == "" or not question_shown(q, out):
                continue
            if q.kind == Question.Kind.NUMBER and float(value).is_integer():
                value = int(value)
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
