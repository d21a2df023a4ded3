"""The no-JavaScript form's fields that every kind builds from: a randomized question's radios,
padded so that every report of a question posts the same number of bytes (issue 11 item 5), and
the words for a question left unticked. The kinds put them together (``form_fields``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from django import forms
from django.utils.translation import gettext as _


class ColumnLabels(NamedTuple):
    """What a labelled export (Stata, SPSS) says of one column: its variable label, and its
    value labels (code → word). A text column with value labels is written as those codes."""

    label: str
    values: dict[int, str]


#: A reported yes/no cell (1/0) in a labelled export (DESIGN §8.6: 1 = Yes, 0 = No).
YES_NO_VALUES: dict[int, str] = {1: "Yes", 0: "No"}

#: A kind's no-JS form fields by name.
FormFields = dict[str, forms.Field]


class PageQuestion(Protocol):
    """What the page hooks of a kind read of a question (a ``Question`` row)."""

    key: str
    kind: str
    text: str
    options: Any
    design: Any
    min_value: float | None
    max_value: float | None
    integer: bool

    @property
    def bounds(self) -> tuple[float, float] | None: ...


def field_name(question: PageQuestion) -> str:
    """The no-JS form's field of a question: ``q-<key>``."""
    return f"q-{question.key}"


#: The bytes the WHATWG application/x-www-form-urlencoded serializer (what browsers post) leaves
#: as they are; a space becomes the one byte "+", every other UTF-8 byte "%XX" (three bytes).
#: Not Python's quote_plus, which keeps "~" and encodes "*" (issue 21 item 6).
_FORM_SAFE = frozenset(b"*-._0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz ")


def form_encoded_length(text: str) -> int:
    """Bytes of ``text`` in a browser's form post (tests/e2e/test_respondent_no_js_padding.py
    checks it against Chromium over every printable ASCII character and some non-ASCII)."""
    return sum(1 if byte in _FORM_SAFE else 3 for byte in text.encode("utf-8"))


def padded(values: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Fixed-length no-JS posts (issue 11 item 5): each radio value of a randomized question is
    padded with trailing spaces so that, form-encoded by the browser, every report of the
    question has the same byte length (a space encodes as the one byte "+"). Options never end
    in a space (they are stripped when saved), so stripping the padding is exact."""
    width = max(form_encoded_length(v) for v, _ in values)
    return [(v + " " * (width - form_encoded_length(v)), label) for v, label in values]


def tick_message() -> str:
    """One wording for one mistake (issue 22 item 4): a randomized question left unticked."""
    return _("Tick the answer your coin or die told you to record.")


class PaddedChoiceField(forms.TypedChoiceField):
    """A randomized question's radio group: values padded as :func:`padded`, padding ignored on
    input (so an unpadded value, e.g. from an older page, is accepted too)."""

    def to_python(self, value: Any) -> str:
        return super().to_python(value).rstrip(" ")

    def valid_value(self, value: Any) -> bool:
        # django-stubs types the getter like the setter (every accepted form); Django stores the
        # choices normalized, a list of (value, label) pairs here.
        pairs: list[tuple[Any, Any]] = self.choices  # type: ignore[assignment]
        return any(str(key).rstrip(" ") == value for key, _ in pairs)


def radios(
    choices: list[tuple[str, str]],
    *,
    required: str,
    coerce: Callable[[str], Any] | None = None,
    label: str | None = None,
) -> PaddedChoiceField:
    """Padded radios; ``required``: the words when none is ticked."""
    extra: dict[str, Any] = {} if coerce is None else {"coerce": coerce}
    return PaddedChoiceField(
        choices=padded(choices),
        widget=forms.RadioSelect,
        label=label,
        error_messages={"required": required},
        **extra,
    )


def yes_no_radios(*, required: str, label: str | None = None) -> PaddedChoiceField:
    """A YES/NO pair posting a boolean (a yes/no question, or one option of a multi one)."""
    return radios(
        [("yes", _("Yes")), ("no", _("No"))],
        required=required,
        coerce=lambda v: v == "yes",
        label=label,
    )


def shown_options(options: list[str], labels: Mapping[str, str]) -> list[tuple[str, str]]:
    """(stored option, its words in the page's language): the value sent is the stored one."""
    return [(o, labels.get(o, o)) for o in options]


@dataclass
class PhysicalProtocol:
    """A question's no-JS protocol: whether coins or dice can run it, the steps, else why not."""

    possible: bool
    steps: list[str] = field(default_factory=list)
    reason: str = ""
