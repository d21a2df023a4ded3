"""Forms for the server-rendered pages.

The respondent form is the no-JavaScript path: the respondent flips real coins (or rolls a die)
following :func:`physical_protocol`, and ticks only the answer the coins told them to *record*.
The true answer is never asked for by this form.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote_plus

from django import forms
from rest_framework import serializers

from dpcore.local import DEFAULT_YES_NO_SPEC, DesignError
from surveys import designs, physical
from surveys.inputs import answers_clean
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

_ACTIONS = {
    physical.TRUTH: "answer truthfully (tick your true answer)",
    physical.YES: "tick YES, whatever your true answer",
    physical.NO: "tick NO, whatever your true answer",
    physical.OPPOSITE: "tick the opposite of your true answer",
    physical.KEEP: "tick your true answer",
    physical.OTHER: "tick a random other option",
}
_COIN_STEPS = [
    "Flip a coin, where nobody can see it.",
    "Tails: answer truthfully — tick your true answer below.",
    "Heads: flip again. Heads: tick YES. Tails: tick NO. (Do this whatever your true answer is.)",
]


@dataclass
class PhysicalProtocol:
    possible: bool
    steps: list[str] = field(default_factory=list)
    reason: str = ""


def _rows(realisation: physical.Realisation) -> list[str]:
    steps, start = [], 0
    for outcome, count in realisation.counts:
        chosen = realisation.face_names[start : start + count]
        start += count
        if realisation.faces in (6, 36) and len(chosen) > 1:
            label = f"{chosen[0]}–{chosen[-1]}"
        else:
            label = " or ".join(chosen)
        steps.append(f"{label.capitalize()}: {_ACTIONS[outcome]}.")
    return steps


CROSSWISE_STEPS = [
    "Think of your true answer to each of the two statements. Nobody needs a coin.",
    "Both true, or both false: tick SAME. One true and the other false: tick DIFFERENT.",
]


def physical_protocol(question: Question) -> PhysicalProtocol:
    """Step-by-step instructions that randomize exactly like the browser would."""
    if not question.is_randomized:
        return PhysicalProtocol(True)
    if (question.design or {}).get("name") == "crosswise":
        # No randomizer: the page asks SAME/DIFFERENT identically with and without JavaScript.
        return PhysicalProtocol(True, list(CROSSWISE_STEPS))
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
                reason=f"It keeps your answer with probability {design.keep_probability:.3f}, "
                "which coins or dice cannot reproduce exactly, so this question needs JavaScript.",
            )
        return PhysicalProtocol(
            False,
            reason="Its probabilities cannot be reproduced exactly with coins or dice, "
            "so this question needs JavaScript.",
        )
    spec = design.to_spec()
    if question.kind == Question.Kind.MULTI:
        return _multi_protocol(question, realisation, spec)
    if (
        question.kind == Question.Kind.YES_NO
        and {k: spec.get(k) for k in COIN_DESIGN} == COIN_DESIGN
        and spec["name"] == "forced_response"
    ):
        return PhysicalProtocol(True, list(_COIN_STEPS))
    steps = [realisation.instruction + " Do it where nobody can see.", *_rows(realisation)]
    if question.kind == Question.Kind.CHOICE:
        steps.append(_other_option_step(design.k))
    return PhysicalProtocol(True, steps)


def _other_option_step(k: int) -> str:
    """How a k-RR respondent picks "a random other option" with a die."""
    if k - 1 > 1:
        return (
            f"To pick a random other option: leave out your true answer, number the other "
            f"{k - 1} options 1 to {k - 1} in the order shown, and roll a die until it shows "
            f"a number from 1 to {k - 1}. Tick that option."
        )
    return "The random other option is simply the option that is not your answer."


_MULTI_ACTIONS = {
    physical.TRUTH: "tick your true answer for that option",
    physical.YES: "tick YES for that option, whatever your true answer",
    physical.NO: "tick NO for that option, whatever your true answer",
    physical.OPPOSITE: "tick the opposite of your true answer for that option",
}


def _multi_protocol(
    question: Question, realisation: physical.Realisation, spec: dict[str, Any]
) -> PhysicalProtocol:
    """Multi-select without JavaScript: the yes/no design's device once per option, afresh for
    each (independent draws, as the browser makes them), and YES/NO ticked per option."""
    k = len(question.options)
    steps = [
        f"Do this for each of the {k} options in turn, with a new flip (or roll) each time, "
        "where nobody can see it."
    ]
    if {key: spec.get(key) for key in COIN_DESIGN} == COIN_DESIGN and spec["name"] == (
        "forced_response"
    ):
        steps += [
            "Flip a coin. Tails: tick your true answer for that option.",
            "Heads: flip again. Heads: tick YES for that option. Tails: tick NO. (Whatever your "
            "true answer is.)",
        ]
        return PhysicalProtocol(True, steps)
    steps.append(realisation.instruction)
    rows, start = [], 0
    for outcome, count in realisation.counts:
        chosen = realisation.face_names[start : start + count]
        start += count
        label = (
            f"{chosen[0]}–{chosen[-1]}"
            if realisation.faces in (6, 36) and len(chosen) > 1
            else " or ".join(chosen)
        )
        rows.append(f"{label.capitalize()}: {_MULTI_ACTIONS[outcome]}.")
    return PhysicalProtocol(True, [*steps, *rows])


def _cheater_protocol(design: Any) -> PhysicalProtocol:
    """Cheating detection without JavaScript: a coin for the group (heads 1, tails 2: ½ each),
    then that group's coins or dice (``physical.cheater_realisation``); the group is ticked with
    the report."""
    realisations = physical.cheater_realisation(design)
    if realisations is None:
        return PhysicalProtocol(
            False,
            reason="Its probabilities cannot be reproduced exactly with coins or dice, "
            "so this question needs JavaScript.",
        )
    steps = ["Flip a coin where nobody can see it. Heads: you are in group 1. Tails: group 2."]
    for i, realisation in enumerate(realisations, start=1):
        rows = " ".join(_rows(realisation))
        steps.append(f"Group {i} only: {realisation.instruction} {rows}")
    steps.append("Tick the box with your group and the answer you ended up with.")
    return PhysicalProtocol(True, steps)


CHEATER_CHOICES = [
    ("g1_yes", "Group 1: YES"),
    ("g1_no", "Group 1: NO"),
    ("g2_yes", "Group 2: YES"),
    ("g2_no", "Group 2: NO"),
]


def _cheater_field() -> _PaddedChoiceField:
    """Cheating detection's radios: group × report, posted as ``{"group", "report"}``."""
    return _PaddedChoiceField(
        choices=_padded(CHEATER_CHOICES),
        coerce=lambda v: {"group": int(v[1]), "report": v.endswith("yes")},
        widget=forms.RadioSelect,
        error_messages={"required": "Tick your group and the answer the coins told you."},
    )


# --- the no-JavaScript respondent form -----------------------------------------------------------


def _padded(values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Fixed-length no-JS posts (issue 11 item 5): each radio value of a randomized question is
    padded with trailing spaces so that, form-encoded, every report of the question has the same
    byte length (a space encodes as the one byte "+"). Options never end in a space (they are
    stripped when saved), so stripping the padding is exact."""
    width = max(len(quote_plus(v)) for v, _ in values)
    return [(v + " " * (width - len(quote_plus(v))), label) for v, label in values]


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
        choices=_padded([("same", "Same"), ("different", "Different")]),
        coerce=lambda v: v == "same",
        widget=forms.RadioSelect,
        error_messages={"required": "Tick SAME or DIFFERENT."},
    )


class RespondForm(forms.Form):
    """One field per question, ``q-<key>``; for randomized kinds it holds the *reported* value."""

    token = forms.CharField(required=False, max_length=200, strip=True)

    def __init__(self, *args: Any, survey: Survey, questions: list[Question], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.survey = survey
        self.questions = questions
        if survey.access != Survey.Access.INVITE:
            del self.fields["token"]
        else:
            self.fields["token"].required = True
        for q in questions:
            name = field_name(q)
            if q.kind == Question.Kind.YES_NO and (q.design or {}).get("name") == "crosswise":
                self.fields[name] = _crosswise_field()
            elif is_cheater_question(q):
                self.fields[name] = _cheater_field()
            elif q.kind == Question.Kind.YES_NO:
                self.fields[name] = _PaddedChoiceField(
                    choices=_padded([("yes", "Yes"), ("no", "No")]),
                    coerce=lambda v: v == "yes",
                    widget=forms.RadioSelect,
                    error_messages={"required": "Tick the answer the coins told you to record."},
                )
            elif q.kind == Question.Kind.CHOICE:
                self.fields[name] = _PaddedChoiceField(
                    choices=_padded([(o, o) for o in q.options]), widget=forms.RadioSelect
                )
            elif q.kind == Question.Kind.MULTI:
                # One YES/NO radio pair per option (padded like yes/no, so every post of the
                # question has the same length; a ticked-or-absent checkbox would not).
                for i, option in enumerate(q.options):
                    self.fields[option_field_name(q, i)] = _PaddedChoiceField(
                        choices=_padded([("yes", "Yes"), ("no", "No")]),
                        coerce=lambda v: v == "yes",
                        widget=forms.RadioSelect,
                        label=option,
                        error_messages={
                            "required": f"“{option}”: tick the answer the coins told you to record."
                        },
                    )
                continue
            elif q.kind == Question.Kind.CATEGORY:
                self.fields[name] = forms.ChoiceField(
                    choices=[(o, o) for o in q.options], widget=forms.RadioSelect
                )
            else:
                # Parsing only: the bounds are checked by the submission serializer's rule
                # (``clean`` below); the attributes let the browser say so before posting.
                bounds = {"min": q.min_value, "max": q.max_value, "step": "any"}
                self.fields[name] = forms.FloatField(widget=forms.NumberInput(attrs=bounds))
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
        data = self.cleaned_data
        out: dict[str, Any] = {}
        for q in self.questions:
            if q.kind == Question.Kind.MULTI:
                reports = {
                    option: data.get(option_field_name(q, i)) for i, option in enumerate(q.options)
                }
                if all(isinstance(v, bool) for v in reports.values()):
                    out[q.key] = reports
                continue
            value = data.get(field_name(q))
            if value is None:
                continue
            if q.kind == Question.Kind.NUMBER and float(value).is_integer():
                value = int(value)
            out[q.key] = value
        return out

    def _target(self, path: str) -> str | None:
        if path.startswith("answers."):
            key = path.split(".", 1)[1]
            return next((error_field_name(q) for q in self.questions if q.key == key), None)
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
