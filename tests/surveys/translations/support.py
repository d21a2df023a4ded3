"""A survey body with a complete Spanish translation (the translation tests share it)."""

from __future__ import annotations

import copy
from typing import Any

from testsupport.factories import survey_body

ES: dict[str, Any] = {
    "title": "Todas las clases",
    "description": "prueba",
    "questions": {
        "coin": {"text": "¿Pregunta de moneda?"},
        "mirror": {"text": "¿Pregunta de Warner?"},
        "party": {"text": "¿Qué partido?", "options": {"a": "A", "b": "B", "c": "C", "d": "D"}},
        "age": {"text": "Grupo de edad", "options": {"young": "joven", "old": "mayor"}},
        "hours": {"text": "Horas"},
    },
}


def translated_body(**overrides: Any) -> dict[str, Any]:
    """``FULL_SURVEY`` in en (default) and es, complete; ``overrides`` replace top-level fields."""
    body = survey_body(languages=["en", "es"], translations={"es": copy.deepcopy(ES)})
    body.update(overrides)
    return body


def without(body: dict[str, Any], *path: str) -> dict[str, Any]:
    """``body`` with the key at ``path`` (inside ``translations``) removed."""
    out = copy.deepcopy(body)
    node = out["translations"]
    for key in path[:-1]:
        node = node[key]
    del node[path[-1]]
    return out
