"""The post-stratification input (docs/analysis.md#post-stratification): ``poststratify`` (a
direct category question's key) and ``shares`` (each option's population share), from the
estimates query (``shares=<option>:<share>,…``) or the dashboard's stored setting (a JSON
object ``{option: share}``). One serializer for both; a refusal names the field."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from rest_framework import serializers

from deniable.inputs import validate_input
from surveys.analysis.poststratify import SHARE_SUM_TOLERANCE
from surveys.definitions.specs import MAX_OPTIONS, Poststratification
from surveys.kinds import kind_of
from surveys.models import Question

SHARES_SYNTAX = (
    "Write shares as <option>:<share> pairs separated by commas, e.g. "
    "'18-34:0.3,35-54:0.4,55+:0.3' (a share is a decimal or a fraction such as 1/3), or as a "
    'JSON object {"18-34": 0.3, …}.'
)


MAX_SHARE_TEXT = 40
_EXPONENT = re.compile(r"[eE]\s*([+-]?\d+)")


def _share(text: Any) -> Fraction:
    """A share, exactly (decimal or fraction text, or a JSON number); not NaN or infinite."""
    if isinstance(text, bool):
        raise serializers.ValidationError(SHARES_SYNTAX)
    spelled = str(text).strip()
    # Before Fraction: it builds 10**exponent exactly, so "1e10000000" took seconds of CPU, and
    # "1e400" reached a float conversion that overflowed (a 500).
    exponent = _EXPONENT.search(spelled)
    if len(spelled) > MAX_SHARE_TEXT or (exponent and abs(int(exponent.group(1))) > 30):
        raise serializers.ValidationError(f"A share is a number from 0 to 1 ({spelled[:40]!r}).")
    try:
        value = Fraction(spelled)
    except (ValueError, ZeroDivisionError) as exc:
        raise serializers.ValidationError(f"{text!r} is not a number. {SHARES_SYNTAX}") from exc
    if value < 0:
        raise serializers.ValidationError(f"A share cannot be negative ({text}).")
    if value > 1:
        raise serializers.ValidationError(f"A share is at most 1 ({spelled}).")
    return value


def _items(value: Any) -> list[tuple[str, Any]]:
    """The (option, share text) pairs of any accepted spelling, unchecked."""
    if isinstance(value, str) and value.strip().startswith("{"):  # the form's JSON spelling
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise serializers.ValidationError(f"Not a JSON object. {SHARES_SYNTAX}") from exc
    if isinstance(value, Mapping):
        return [(str(option), share) for option, share in value.items()]
    if not isinstance(value, str) or not value.strip():
        raise serializers.ValidationError(SHARES_SYNTAX)
    items = []
    for item in value.split(","):
        option, colon, share = item.rpartition(":")  # an option may contain ":"
        if not colon or not option.strip() or not share.strip():
            raise serializers.ValidationError(f"{item.strip()!r}: {SHARES_SYNTAX}")
        items.append((option.strip(), share))
    return items


def parse_shares(value: Any) -> dict[str, Fraction]:
    """``"a:0.2,b:0.8"``, ``{"a": 0.2, "b": 0.8}`` or that object as JSON text (for options
    that contain a comma) → ``{option: exact share}``."""
    items = _items(value)
    if len(items) > MAX_OPTIONS:
        raise serializers.ValidationError(f"At most {MAX_OPTIONS} shares.")
    shares: dict[str, Fraction] = {}
    for option, share in items:
        if option in shares:
            raise serializers.ValidationError(f"Option {option!r} is given twice.")
        shares[option] = _share(share)
    return shares


class PoststratifySerializer(serializers.Serializer):
    """``questions`` in the context: the survey's questions."""

    poststratify = serializers.CharField(max_length=64, help_text="A category question's key.")
    shares = serializers.JSONField(help_text="<option>:<share>,… or {option: share}.")

    def validate_poststratify(self, value: str) -> Question:
        questions: Sequence[Question] = self.context["questions"]
        question = next((q for q in questions if q.key == value), None)
        if question is None:
            raise serializers.ValidationError(f"Unknown question {value!r}.")
        if not kind_of(question).slices_tallies:
            raise serializers.ValidationError(
                f"{value!r} is not a direct category question; only those post-stratify."
            )
        return question

    def validate_shares(self, value: Any) -> dict[str, Fraction]:
        return parse_shares(value)

    def validate(self, attrs: dict[str, Any]) -> Poststratification:
        question: Question = attrs["poststratify"]
        shares: dict[str, Fraction] = attrs["shares"]
        unknown = [o for o in shares if o not in question.options]
        if unknown:
            raise serializers.ValidationError(
                {"shares": f"Not an option of {question.key!r}: {', '.join(unknown)}."}
            )
        missing = [o for o in question.options if o not in shares]
        if missing:
            raise serializers.ValidationError(
                {"shares": f"Give a share for every option; missing: {', '.join(missing)}."}
            )
        total = sum(shares.values(), Fraction(0))
        if abs(total - 1) > Fraction(SHARE_SUM_TOLERANCE):
            message = (
                f"The shares must sum to 1 (within {SHARE_SUM_TOLERANCE:g}); "
                f"they sum to {float(total):.9g}."
            )
            raise serializers.ValidationError({"shares": message})
        return Poststratification(
            key=question.key,
            shares=tuple((o, float(shares[o] / total)) for o in question.options),
        )


def shares_text(shares: Mapping[str, Any]) -> str:
    """Stored shares written back in the query syntax (JSON when an option has a comma)."""
    if any("," in option for option in shares):
        return json.dumps(dict(shares), ensure_ascii=False)
    return ",".join(f"{option}:{share}" for option, share in shares.items())


def poststratification(
    data: Mapping[str, Any], questions: Sequence[Question]
) -> Poststratification | None:
    """The post-stratification asked for (query parameters or a stored setting), validated;
    None when neither ``poststratify`` nor ``shares`` is given (raises ``InvalidInput`` naming
    the field otherwise)."""
    plain = {name: data[name] for name in ("poststratify", "shares") if data.get(name)}
    if not plain:
        return None
    return validate_input(PoststratifySerializer, plain, Poststratification, questions=questions)
