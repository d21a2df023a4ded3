"""The demo survey's Spanish content (``manage.py seed_demo``; docs/translations.md#demo).

Keyed like the survey's ``translations`` field: the options' stored values (``VOTE_OPTIONS``,
``AGE_GROUPS``) are the keys, only their labels are Spanish.
"""

from __future__ import annotations

from typing import Any

DEMO_ES: dict[str, Any] = {
    "title": "Vida en el campus (demo)",
    "description": (
        "Una encuesta de demostración con participantes simulados. La mayoría de las preguntas "
        "delicadas usan respuesta aleatorizada: tu dispositivo realiza el paso de azar (monedas "
        "o una ruleta) y se queda con lo que muestra; solo se envía la respuesta registrada, así "
        "que nadie puede saber si es la verdadera. Una pregunta solo pide indicar si dos "
        "afirmaciones son las dos verdaderas o las dos falsas (no se sortea nada). Tu grupo de "
        "edad, tus horas en internet (opcional) y, a partir de los 30, tu número de hijos se "
        "preguntan directamente."
    ),
    "questions": {
        "cheated_exam": {"text": "¿Alguna vez has copiado en un examen?"},
        "drove_after_drinking": {
            "text": "En el último año, ¿has conducido después de beber más del límite legal?"
        },
        "vote": {
            "text": "¿A qué partido votaste en las últimas elecciones?",
            "options": {
                "Party A": "Partido A",
                "Party B": "Partido B",
                "Party C": "Partido C",
                "Did not vote": "No voté",
            },
        },
        "age_group": {
            "text": "Tu grupo de edad",
            "options": {"18-29": "18-29", "30-44": "30-44", "45-64": "45-64", "65+": "65+"},
        },
        "hours_online": {"text": "Horas por semana que pasas en internet por ocio"},
        "fake_receipt": {
            "text": "He presentado un recibo falso o inflado para que me lo reembolsen.",
            "innocuous_text": "Mi madre nació en enero, febrero o marzo.",
        },
        "bribe": {
            "text": "¿Alguna vez has ofrecido un regalo o dinero para conseguir una nota mejor?"
        },
        "children": {"text": "¿Cuántos hijos tienes?"},
        "overwhelmed": {
            "text": (
                "Este trimestre, ¿con qué frecuencia te has sentido desbordado por los estudios?"
            ),
            "options": {
                "Never": "Nunca",
                "Rarely": "Rara vez",
                "Sometimes": "A veces",
                "Often": "A menudo",
                "Always": "Siempre",
            },
        },
    },
}


def with_spanish(survey: dict[str, Any]) -> dict[str, Any]:
    """The demo survey body with Spanish added, when every question has its translation.

    A question added to the demo without one leaves the demo in English only (rather than
    breaking ``seed_demo``); ``tests/surveys/translations/test_demo.py`` fails until it is added.
    """
    keys = {q["key"] for q in survey["questions"]}
    if not keys <= set(DEMO_ES["questions"]):
        return survey
    questions = {k: v for k, v in DEMO_ES["questions"].items() if k in keys}
    return {
        **survey,
        "languages": ["en", "es"],
        "translations": {"es": {**DEMO_ES, "questions": questions}},
    }
