"""Spanish speaks to the respondent as tú, throughout (issue 22 item 5): no usted form in any
Spanish msgstr nor in the demo survey's Spanish words. The list holds the usted forms a
translator reaches for in this interface (imperatives, "puede…", possessives, past tenses
addressed to the reader); a new sentence that slips into usted usually uses one of them."""

from __future__ import annotations

import re

from surveys.definitions.demo_translations import DEMO_ES
from tests.i18n.test_catalogues import LOCALE, _parse_po

USTED = [
    r"\busted(es)?\b", r"\bPuede (dejar|usar|responder|enviar|volver|elegir|cambiar)",
    r"\bpuede usted\b", r"\b(Responda|Marque|Elija|Escriba|Introduzca|Pulse|Toque|Lance|Tire|Siga"
    r"|Vuelva|Inténtelo|Intente|Compruebe|Pida|Espere|Haga|Deje|Cierre|Abra|Permita|Recargue"
    r"|Active|Contacte|Consulte|Revise|Seleccione|Indique|Envíe|Use|Utilice|Tenga|Sepa)\b",
    r"\b(déjela|déjelo|respóndala|márquela|escríbalo)\b",
    r"\b(respondió|dejó|eligió|marcó|tocó|envió|usó|lanzó) (usted|su|sus)\b",
    r"\bque (respondió|dejó|marcó|tocó|eligió)\b(?! (la|el|tu) )",
    r"\bsu (respuesta|respuestas|invitación|código|navegador|dispositivo|moneda|dado|grupo)\b",
    r"\bsus (respuestas|monedas|dados)\b", r"\ble (correspond|pedimos|invit)",
    r"\bGracias por su\b",
]  # fmt: skip
PATTERN = re.compile("|".join(f"(?:{p})" for p in USTED))


def _demo_strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _demo_strings(v)]
    if isinstance(value, list | tuple):
        return [s for v in value for s in _demo_strings(v)]
    return []


def test_the_pattern_catches_the_forms_found_before():
    for old in (
        "Puede dejar esta pregunta sin responder: entonces no se envía nada para ella.",
        "No se envió nada para las preguntas que dejó sin responder o que no le correspondían.",
        "Responda solo si respondió %(options)s a %(question)s; si no, déjela sin responder.",
    ):
        assert PATTERN.search(old), old
    for fine in (
        "Puedes dejar esta pregunta sin responder.",
        "Puede que el enlace esté mal escrito.",  # impersonal "it may be that"
        "La ruleta eligió tu respuesta verdadera.",
        "Cada opción se decidió por separado, con su propio sorteo.",
    ):
        assert not PATTERN.search(fine), fine


def test_spanish_catalogue_uses_tu_throughout():
    entries = _parse_po(LOCALE / "es" / "LC_MESSAGES" / "django.po")
    found = [
        (str(msgid)[:60], str(e["msgstr"]))
        for msgid, e in entries.items()
        if msgid and PATTERN.search(str(e["msgstr"]))
    ]
    assert not found, found


def test_demo_spanish_uses_tu_throughout():
    found = [s for s in _demo_strings(DEMO_ES) if PATTERN.search(s)]
    assert not found, found
