"""The ``multi`` question kind."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from django.utils.translation import gettext as _
from rest_framework import serializers

from dpcore import local as rr
from surveys.kinds._data import (
    QuestionCounts,
    SlotOf,
    binary_rr_hint,
    estimate_fields,
    options_entry,
)
from surveys.kinds.base import QuestionKind, QuestionLike
from surveys.kinds.cheater_detection import CheaterDetectionKind
from surveys.specs import Answer

#: The cell counting a multi question's answers; its other cells are its options (YES reports).
ANSWERED = ""
DESIGN_NAMES: tuple[str, ...] = (
    "forced_response",
    "warner",
    "unrelated_question",
    "two_probability",
)


def option_column(key: str, option: str) -> str:
    """A multi question's column for one option: ``<key>.<option>`` (docs/exports.md#multi).
    Question keys hold no ".", so the prefix up to the first "." names the question and the
    column never collides with another question's. pandas keeps the name as written; R's
    ``read.csv`` makes it syntactic (``check.names``), the metadata maps both ways."""
    return f"{key}.{option}"


def _answer_problems(options: Sequence[str], value: Mapping[str, Any]) -> list[str]:
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


class MultiKind(QuestionKind):
    name: ClassVar[str] = "multi"
    stored_kind: ClassVar[str] = "multi"
    randomized: ClassVar[bool] = True

    # ── definition, answers, tallies, estimates, exports (branch kinds-data) ──
    comparison: ClassVar[str | None] = "per_option"

    def outcome_error(self, key: str) -> str | None:
        return (
            f"{key!r} is a multi question (one report per option): regression of one "
            "option is not supported. Export the reports (one column per option, "
            "docs/exports.md#multi) and fit that option's column with its design."
        )

    has_options: ClassVar[bool] = True
    #: The yes/no designs it accepts: one report model P(yes) = c·π + d and a coin/spinner
    #: randomizer. Crosswise (no randomizer: a second statement per option) and cheating
    #: detection (a group drawn per report) are refused (surveys.inputs.design_specs).
    design_names: ClassVar[tuple[str, ...] | None] = DESIGN_NAMES
    design_per_option: ClassVar[bool] = True

    def default_design_spec(self) -> dict[str, Any] | None:
        return dict(rr.DEFAULT_YES_NO_SPEC)

    def build_design(self, spec: Mapping[str, Any], k: int | None) -> Any:
        if spec.get("name") == CheaterDetectionKind.name:
            raise rr.DesignError(
                "name", f"{CheaterDetectionKind.name} is not available for multi questions"
            )
        return rr.design_from_spec(spec)

    def clean_answer(self, question: Any, value: object) -> Answer:
        """``{option: reported bool}`` with every option present and nothing else (each
        option's report was randomized on its own; a missing one is not "no")."""
        options = list(question.options or [])
        if not isinstance(value, Mapping):
            raise serializers.ValidationError(
                _(
                    "Must be an object with every option as a key and the reported boolean as "
                    "its value."
                )
            )
        problems = _answer_problems(options, value)
        if problems:
            raise serializers.ValidationError(problems)
        return {o: bool(value[o]) for o in options}

    def tally_cells(self, question: QuestionLike) -> Sequence[str]:
        return (ANSWERED, *question.options)

    def count_answer(self, vector: list[float], slot: SlotOf, key: str, value: Any) -> None:
        vector[slot(key, ANSWERED)] = 1.0  # every option is present in a cleaned answer
        for option, reported in value.items():
            if reported is True:
                vector[slot(key, option)] = 1.0

    def estimate(self, question: Any, counts: QuestionCounts) -> Any:
        """Each option separately: its YES reports among the n answers, debiased by the shared
        design exactly as a yes/no question's (``dpcore.local.estimate_binary``)."""
        from surveys.kinds import _estimates as e

        design = counts.design
        n = counts.cells[ANSWERED]
        options = []
        for option in question.options:
            est = rr.estimate_binary(
                design, n=n, reported_yes=counts.cells[option], confidence=counts.confidence
            )
            options.append(
                e.MultiOptionEstimate(
                    option=option,
                    n=int(est.n),
                    reported=int(est.reported_yes),
                    reported_rate=None
                    if est.reported_yes_rate is None
                    else float(est.reported_yes_rate),
                    **estimate_fields(est),
                )
            )
        return e.MultiEstimate(
            **counts.header,
            n=n,
            epsilon_per_option=counts.epsilon_per_option,
            options=tuple(options),
        )

    def export_columns(self, question: QuestionLike) -> list[tuple[str, str]]:
        return [(option_column(question.key, o), "integer") for o in question.options]

    def export_cells(self, key: str, value: Any) -> dict[str, Any]:
        return {option_column(key, option): int(reported) for option, reported in value.items()}

    def export_entry(self, question: Any, survey: Any) -> dict[str, Any]:
        columns = {option: option_column(question.key, option) for option in question.options}
        return {**options_entry(question), "columns": columns}

    def metadata_columns(self, key: str, entry: Mapping[str, Any]) -> list[dict[str, Any]]:
        """One 1/0 column per option, with the shared design (each option is its own yes/no
        report through it) and its ``rrreg`` call."""
        out = []
        for option, column in entry["columns"].items():
            design = {
                k: v for k, v in entry["design"].items() if k not in ("options", "applies_to")
            }
            design["epsilon"] = entry["design"].get("epsilon_per_option")
            item: dict[str, Any] = {
                "key": column,
                "type": "integer",
                "kind": f"{self.name}_option",
                "question": key,
                "option": option,
                "text": f"{entry['text']} — {option}: the REPORTED answer for this option (1/0).",
                "design": design,
            }
            hint = binary_rr_hint(column, design)
            if hint:
                item["rrreg"] = hint
            out.append(item)
        return out

    # ── pages, forms, no-JS protocol, words (branch kinds-pages) ──

    # ── releases: contributions and entries (branch releases) ──

    # ── examples for the kind × surface matrix test and the demo (branch matrix) ──
