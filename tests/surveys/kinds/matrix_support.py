"""The cells of the kind × surface matrix (issue 23 item 7), generated from the registry: every
registered kind, and for the yes/no kind every binary design no design-selected kind owns. One
survey holds one question per cell, so each surface is visited once for the whole matrix."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from surveys.definitions import question_designs as designs
from surveys.kinds.base import QuestionKind
from surveys.kinds.registry import kinds


def yes_no_designs() -> list[dict[str, Any]]:
    """The starting spec of every design the plain yes/no kind takes (the design registry's for
    its shape), except those a design-selected kind owns (they are cells of their own)."""
    own_kinds = {kind.name for kind in kinds()}
    starting = designs.starting_designs()
    return [starting[n] for n in designs.design_names("yes_no") if n not in own_kinds]


def cells() -> list[tuple[QuestionKind, dict[str, Any] | None]]:
    """(kind, design spec or None) for every cell: every kind with its default design, and each
    kind that takes any design of its shape (yes/no) once more per design."""
    out: list[tuple[QuestionKind, dict[str, Any] | None]] = []
    for kind in kinds():
        out.append((kind, None))
        if kind.design_shape == "binary" and kind.design_names is None:
            out.extend((kind, spec) for spec in yes_no_designs())
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


def export_columns(kind: QuestionKind, question: Mapping[str, Any]) -> list[str]:
    """The CSV columns a question of ``kind`` exports (the kind's own, docs/exports.md)."""
    row = SimpleNamespace(
        key=question["key"],
        kind=question["kind"],
        options=question.get("options") or [],
        design=question.get("design"),
    )
    return [column for column, _ in kind.export_columns(row)]
