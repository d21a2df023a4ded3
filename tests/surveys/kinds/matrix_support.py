"""The cells of the kind × surface matrix (issue 23 item 7), generated from the registry: every
registered kind, and for the yes/no kind every binary design no design-selected kind owns. One
survey holds one question per cell, so each surface is visited once for the whole matrix."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dpcore.local.designs import BINARY_DESIGN_NAMES
from surveys.export import group_column, option_column
from surveys.kinds.base import QuestionKind
from surveys.kinds.registry import kinds

# TODO(designs): ask the design registry for an example spec of each design once it exists;
# until then one valid spec per design name of ``dpcore.local.designs`` (a new design without
# one fails `test_every_design_has_an_example_spec`).
DESIGN_EXAMPLES: dict[str, dict[str, Any]] = {
    "forced_response": {"p_truth": 0.6, "p_yes": 0.2, "p_no": 0.2},
    "warner": {"p": 0.75},
    "unrelated_question": {"p": 0.5, "innocuous_prevalence": 0.5},
    "two_probability": {"p_yes_if_trait": 0.75, "p_yes_if_not": 0.25},
}


def yes_no_designs() -> list[str]:
    """The binary designs the plain yes/no kind takes: those no design-selected kind claims."""
    own_kinds = {kind.name for kind in kinds()}
    return [name for name in BINARY_DESIGN_NAMES if name not in own_kinds]


def cells() -> list[tuple[QuestionKind, dict[str, Any] | None]]:
    """(kind, design spec or None) for every cell: design-taking kinds once per design."""
    out: list[tuple[QuestionKind, dict[str, Any] | None]] = []
    for kind in kinds():
        # TODO(kinds-data): ask the kind which designs it accepts once it owns its definition.
        if kind.name == "yes_no":
            out.append((kind, None))  # the default design
            out.extend((kind, {"name": d, **DESIGN_EXAMPLES[d]}) for d in yes_no_designs())
        else:
            out.append((kind, None))
    return out


def matrix_questions() -> list[tuple[QuestionKind, dict[str, Any], Any]]:
    """(kind, question JSON, reported answer) for every cell, keys unique."""
    out = []
    for kind, design in cells():
        question = kind.example_question(design)
        out.append((kind, question, kind.example_answer()))
    keys = [q["key"] for _, q, _ in out]
    assert len(set(keys)) == len(keys), keys
    return out


def survey_body() -> dict[str, Any]:
    """The matrix survey in English and Spanish (every text and option label translated)."""
    questions = [q for _, q, _ in matrix_questions()]
    return {
        "title": "Kind matrix",
        "description": "Every kind and design",
        "languages": ["en", "es"],
        "translations": {
            "es": {
                "title": "Matriz de tipos",
                "description": "Cada tipo y diseño",
                "questions": {q["key"]: spanish(q) for q in questions},
            }
        },
        "questions": questions,
    }


def spanish(question: Mapping[str, Any]) -> dict[str, Any]:
    """A Spanish translation of ``question``: every text prefixed with "ES·"."""
    out: dict[str, Any] = {"text": f"ES·{question['text']}"}
    if question.get("options"):
        out["options"] = {o: f"ES·{o}" for o in question["options"]}
    innocuous = (question.get("design") or {}).get("innocuous_text")
    if innocuous:
        out["innocuous_text"] = f"ES·{innocuous}"
    return out


# TODO(kinds-data): ask the kind for its export columns once the kinds own their exports.
def export_columns(kind: QuestionKind, question: Mapping[str, Any]) -> list[str]:
    """The CSV columns a question of ``kind`` exports (docs/exports.md)."""
    key = question["key"]
    if kind.name == "multi":
        return [option_column(key, o) for o in question["options"]]
    if kind.name == "cheater_detection":
        return [key, group_column(key)]
    return [key]
