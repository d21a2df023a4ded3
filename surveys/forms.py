"""Forms for the server-rendered pages.

The respondent form is the no-JavaScript path: the respondent flips real coins (or rolls a die)
following :func:`physical_protocol`, and ticks only the answer the coins told them to *record*.
The true answer is never asked for by this form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any
from urllib.parse import quote_plus

from django import forms

from surveys.models import Question, Survey

COIN_DESIGN = {"p_truth": 0.5, "p_yes": 0.25, "p_no": 0.25}
DEFAULT_YES_NO_DESIGN = {"name": "forced_response", **COIN_DESIGN}


def field_name(question: Question) -> str:
    return f"q-{question.key}"


def design_spec(question: Question) -> dict[str, Any]:
    """The question's design spec with the API defaults filled in (DESIGN.md §8)."""
    spec = dict(question.design or {})
    if question.kind == Question.Kind.YES_NO and not spec.get("name"):
        spec = {**DEFAULT_YES_NO_DESIGN, **spec}
    if question.kind == Question.Kind.CHOICE and not spec.get("name"):
        spec = {"name": "k_rr", **spec}
    return spec


# --- physical protocols --------------------------------------------------------------------------
# A physical protocol must reproduce the design's probabilities *exactly*, or the estimator is
# biased and the stated ε is wrong. So we look for the smallest everyday device whose outcomes
# split into the design's probabilities; if none does (an irrational k-RR keep probability, say),
# we say the question needs JavaScript rather than approximate it.

_DEVICES: list[tuple[int, str, list[str]]] = [
    (2, "Flip a coin.", ["heads", "tails"]),
    (
        4,
        "Flip a coin twice.",
        ["heads then heads", "heads then tails", "tails then heads", "tails then tails"],
    ),
    (6, "Roll a die.", [str(i) for i in range(1, 7)]),
    (
        36,
        "Roll two dice, one after the other, and work out (first − 1) × 6 + second, "
        "a number from 1 to 36.",
        [str(i) for i in range(1, 37)],
    ),
]


def _as_fraction(p: float, n: int) -> int | None:
    """``p·n`` if it is (within rounding) a whole number of the device's outcomes."""
    k = round(p * n)
    return k if math.isclose(p * n, k, abs_tol=1e-9) else None


def _split(outcomes: list[tuple[str, float]]) -> tuple[str, list[tuple[str, str]]] | None:
    """Pick a device and give each outcome its range of faces: (instruction, [(faces, action)])."""
    outcomes = [(action, p) for action, p in outcomes if p > 1e-12]
    for n, instruction, faces in _DEVICES:
        counts = [_as_fraction(p, n) for _, p in outcomes]
        if any(c is None for c in counts) or sum(counts) != n:  # type: ignore[arg-type]
            continue
        rows: list[tuple[str, str]] = []
        start = 0
        for (action, _), count in zip(outcomes, counts, strict=True):
            chosen = faces[start : start + count]  # type: ignore[operator]
            start += count  # type: ignore[operator]
            if n in (6, 36) and len(chosen) > 1:
                label = f"{chosen[0]}–{chosen[-1]}"
            else:
                label = " or ".join(chosen)
            rows.append((label, action))
        return instruction, rows
    return None


def _frac_text(p: float) -> str:
    f = Fraction(p).limit_denominator(1000)
    return f"{f.numerator} in {f.denominator}" if f.numerator else "never"


@dataclass
class PhysicalProtocol:
    possible: bool
    steps: list[str] = field(default_factory=list)
    reason: str = ""


def physical_protocol(question: Question) -> PhysicalProtocol:
    """Step-by-step instructions that randomize exactly like the browser would."""
    spec = design_spec(question)
    name = spec.get("name")
    if question.kind == Question.Kind.YES_NO:
        truth = "answer truthfully (tick your true answer)"
        if name == "forced_response":
            q, f1, f0 = (float(spec[k]) for k in ("p_truth", "p_yes", "p_no"))
            if all(math.isclose(a, b) for a, b in zip((q, f1, f0), (0.5, 0.25, 0.25), strict=True)):
                return PhysicalProtocol(
                    True,
                    [
                        "Flip a coin, where nobody can see it.",
                        "Tails: answer truthfully — tick your true answer below.",
                        "Heads: flip again. Heads: tick YES. Tails: tick NO. "
                        "(Do this whatever your true answer is.)",
                    ],
                )
            outcomes = [
                (truth, q),
                ("tick YES, whatever your true answer", f1),
                ("tick NO, whatever your true answer", f0),
            ]
        elif name == "warner":
            p = float(spec["p"])
            outcomes = [(truth, p), ("tick the opposite of your true answer", 1 - p)]
        elif name == "unrelated_question":
            p, u = float(spec["p"]), float(spec["innocuous_prevalence"])
            # The innocuous answer is "yes" with known prevalence u; drawing it from the same
            # device is exactly the browser's simulation of it.
            outcomes = [
                (truth, p),
                ("tick YES, whatever your true answer", (1 - p) * u),
                ("tick NO, whatever your true answer", (1 - p) * (1 - u)),
            ]
        else:
            return PhysicalProtocol(False, reason="This question's design needs JavaScript.")
        split = _split(outcomes)
        if split is None:
            return PhysicalProtocol(
                False,
                reason="Its probabilities cannot be reproduced exactly with coins or dice, "
                "so this question needs JavaScript.",
            )
        instruction, rows = split
        return PhysicalProtocol(
            True,
            [
                instruction + " Do it where nobody can see.",
                *[f"{faces.capitalize()}: {action}." for faces, action in rows],
            ],
        )
    if question.kind == Question.Kind.CHOICE:
        k = len(question.options)
        eps = float(spec.get("epsilon", 1.0))
        keep = math.exp(eps) / (math.exp(eps) + k - 1)
        split = _split([("tick your true answer", keep), ("tick a random other option", 1 - keep)])
        if split is None or k - 1 > 6:
            return PhysicalProtocol(
                False,
                reason=f"It keeps your answer with probability {keep:.3f}, which coins or dice "
                "cannot reproduce exactly, so this question needs JavaScript.",
            )
        instruction, rows = split
        steps = [
            instruction + " Do it where nobody can see.",
            *[f"{faces.capitalize()}: {action}." for faces, action in rows],
        ]
        if k - 1 > 1:
            steps.append(
                f"To pick a random other option: leave out your true answer, number the other "
                f"{k - 1} options 1 to {k - 1} in the order shown, and roll a die until it shows "
                f"a number from 1 to {k - 1}. Tick that option."
            )
        else:
            steps.append("The random other option is simply the option that is not your answer.")
        return PhysicalProtocol(True, steps)
    return PhysicalProtocol(True)


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
        return any(str(key).rstrip(" ") == value for key, _ in self.choices)


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
            if q.kind == Question.Kind.YES_NO:
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
            elif q.kind == Question.Kind.CATEGORY:
                self.fields[name] = forms.ChoiceField(
                    choices=[(o, o) for o in q.options], widget=forms.RadioSelect
                )
            else:
                self.fields[name] = forms.FloatField(min_value=q.min_value, max_value=q.max_value)
            self.fields[name].label = q.text

    def answers(self) -> dict[str, Any]:
        data = self.cleaned_data
        out: dict[str, Any] = {}
        for q in self.questions:
            value = data.get(field_name(q))
            if value is None:
                continue
            if q.kind == Question.Kind.NUMBER and float(value).is_integer():
                value = int(value)
            out[q.key] = value
        return out

    def add_domain_errors(self, errors: dict[str, list[str]]) -> None:
        """Attach a service's ``{"answers.<key>": [...]}`` errors to the matching fields."""
        by_key = {q.key: field_name(q) for q in self.questions}
        for path, messages in errors.items():
            target: str | None = None
            if path.startswith("answers."):
                target = by_key.get(path.split(".", 1)[1])
            elif path == "token" and "token" in self.fields:
                target = "token"
            for message in messages:
                self.add_error(target, message)
