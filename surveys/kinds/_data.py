"""Helpers the kinds share for the data layer (definition, answers, tallies, estimates, exports;
branch kinds-data). No kind is named here: the kind modules call these.

Nothing here imports ``surveys.models`` at import time: the registry is read by the models'
module and by migrations with historical models.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from rest_framework import serializers

from surveys.definitions.specs import Answer
from surveys.kinds._fields import YES_NO_VALUES, ColumnLabels

#: ``slot(question key, cell value)``: the tally slot counting that cell.
SlotOf = Callable[[str, str], int]

#: The cells of a yes/no report, in slot order.
YES_NO_CELLS: tuple[str, str] = ("yes", "no")


@dataclass(frozen=True)
class QuestionCounts:
    """What an estimate of one question reads: its cells' counts (a number question's single cell
    ``""`` is its count), its moments for a number question, the intervals' confidence, and what
    the caller knows of the question (its header and design; the kinds never import those
    modules)."""

    cells: Mapping[str, int]
    confidence: float
    n: int = 0
    total: float = 0.0
    total_sq: float = 0.0
    #: What every estimate starts with (key, text, kind, ε, design description).
    header: Mapping[str, Any] = field(default_factory=dict)
    #: The question's ``dpcore.local`` design (None for a direct kind) and one option's ε.
    design: Any = None
    epsilon_per_option: float | None = None


def report_cell(value: bool) -> str:
    """A reported boolean's cell: "yes" or "no"."""
    return YES_NO_CELLS[0] if value else YES_NO_CELLS[1]


def clean_report(value: object) -> bool:
    """A yes/no report: a JSON boolean, nothing else."""
    if not isinstance(value, bool):
        raise serializers.ValidationError(_("Must be a boolean (the reported answer)."))
    return value


def clean_option(question: Any, value: object) -> Answer:
    """One of the question's options (choice, category)."""
    if not isinstance(value, str) or value not in question.options:
        raise serializers.ValidationError(_("Must be one of the question's options."))
    return value


def r_name(key: str) -> str:
    """The key as an R formula term: backquoted unless it is a syntactic name (``007``, ``a-b``)."""
    return key if re.fullmatch(r"[A-Za-z][A-Za-z0-9_.]*", key) else f"`{key}`"


def binary_rr_hint(key: str, design: Mapping[str, Any]) -> str | None:
    """A ready-made ``rr::rrreg`` call (or RRreg's) for a yes/no report column through a
    binary design (data frame ``reports``, as in the docs): the design's ``r_call``; None for a
    design no R package runs."""
    from dpcore.local.designs import design_named

    name = design.get("name")
    try:
        r_call = design_named(name).r_call if isinstance(name, str) else None
    except KeyError:
        return None
    return r_call(key, r_name(key), design) if r_call else None


def metadata_column(
    key: str,
    column_type: str,
    entry: Mapping[str, Any],
    hint: Callable[[str, Mapping[str, Any]], str | None] = binary_rr_hint,
) -> dict[str, Any]:
    """One export metadata column: key, type, the question's entry and its ``rrreg`` call."""
    column = {"key": key, "type": column_type, **entry}
    rrreg = hint(key, entry["design"]) if "design" in entry else None
    if rrreg:
        column["rrreg"] = rrreg
    return column


def options_entry(question: Any) -> dict[str, Any]:
    """The export metadata of a question with options."""
    return {"options": list(question.options)}


# ── one reported yes/no per option (multi; OUE's bits): answers, tallies, export columns ──


def option_column(key: str, option: str) -> str:
    """A multi question's column for one option: ``<key>.<option>`` (docs/exports.md#multi).
    Question keys hold no ".", so the prefix up to the first "." names the question and the
    column never collides with another question's. pandas keeps the name as written; R's
    ``read.csv`` makes it syntactic (``check.names``), the metadata maps both ways."""
    return f"{key}.{option}"


def _option_problems(options: Sequence[str], value: Mapping[str, Any]) -> list[str]:
    problems: list[str] = []
    missing = [o for o in options if o not in value]
    extra = [str(o) for o in value if o not in options]
    if missing:
        problems.append(_("Missing option(s): %(o)s.") % {"o": ", ".join(repr(o) for o in missing)})
    if extra:
        problems.append(
            _("Unknown option(s): %(o)s.") % {"o": ", ".join(repr(o) for o in extra[:5])}
        )
    not_bool = [o for o in options if o in value and not isinstance(value[o], bool)]
    if not_bool:
        problems.append(
            _("Must be a boolean (the reported answer): %(o)s.")
            % {"o": ", ".join(repr(o) for o in not_bool)}
        )
    return problems


def clean_option_reports(question: Any, value: object) -> Answer:
    """``{option: reported bool}`` with every option present and nothing else."""
    options = list(question.options or [])
    if not isinstance(value, Mapping):
        raise serializers.ValidationError(
            _("Must be an object with every option as a key and the reported boolean as its value.")
        )
    problems = _option_problems(options, value)
    if problems:
        raise serializers.ValidationError(problems)
    return {o: bool(value[o]) for o in options}


def count_option_reports(
    vector: list[float], slot: SlotOf, key: str, value: Any, *, answered: str
) -> None:
    """One in the ``answered`` cell (every option is present in a cleaned answer) and one in
    each option reported yes."""
    vector[slot(key, answered)] = 1.0
    for option, reported in value.items():
        if reported is True:
            vector[slot(key, option)] = 1.0


def option_export_cells(key: str, value: Any) -> dict[str, Any]:
    """An answer's export cells: 1/0 per option, in its column."""
    return {option_column(key, option): int(reported) for option, reported in value.items()}


def option_labelled_columns(question: Any) -> dict[str, ColumnLabels]:
    """One yes/no report per option, labelled with the question's text and the option."""
    return {
        option_column(question.key, o): ColumnLabels(f"{question.text}: {o}", dict(YES_NO_VALUES))
        for o in question.options
    }


def float_or_none(value: Any) -> float | None:
    return None if value is None else float(value)


def estimate_fields(est: Any) -> dict[str, Any]:
    """Point estimate, SE and interval of a ``dpcore.local`` estimate (floats or None)."""
    return {
        name: float_or_none(getattr(est, name))
        for name in ("estimate", "estimate_unclipped", "std_error", "ci_low", "ci_high")
    }


def binary_estimate(question: Any, counts: QuestionCounts) -> Any:
    """A yes/no question's debiased share (``dpcore.local.estimate_binary``)."""
    from dpcore import local as rr
    from surveys.kinds._estimates import BinaryEstimate

    yes, no = counts.cells["yes"], counts.cells["no"]
    est = rr.estimate_binary(
        counts.design, n=yes + no, reported_yes=yes, confidence=counts.confidence
    )
    return BinaryEstimate(
        **counts.header,
        **estimate_fields(est),
        n=int(est.n),
        reported_yes=int(est.reported_yes),
        reported_yes_rate=float_or_none(est.reported_yes_rate),
    )
