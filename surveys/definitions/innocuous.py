"""Innocuous statements for the crosswise model, each with its known prevalence and its source.

The crosswise estimator ``π̂ = (λ̂ + p − 1)/(2p − 1)`` is only as good as the innocuous prevalence
p, and its protection (local ε = |ln(p/(1 − p))|) holds only if **the researcher cannot learn the
innocuous fact** for a respondent (a parent's birthday, a house number). The builder offers these
statements; a researcher may also write their own with its prevalence. Prevalences are the ones
the crosswise literature uses; where they are approximate, ``note`` says by how much they vary.

Sources:
- Jann, B., Jerke, J. & Krumpal, I. (2012) "Asking sensitive questions using the crosswise
  model: an experimental survey measuring plagiarism", Public Opinion Quarterly 76(1):32–49 —
  the parent's-birthday statements (p ≈ ¼ for a three-month window).
- Diekmann, A. (2012) "Making use of 'Benford's law' for the randomized response technique",
  Sociological Methods & Research 41(2):325–334 — leading digits of house numbers follow
  Benford's law: P(first digit 1) = log₁₀2 ≈ 0.301.
- Birth months: monthly shares of live births vary by country and year by about ±1 percentage
  point around 1/12 per month (UN Demographic Yearbook, live births by month), so a three-month
  window is 0.25 ± 0.02.
"""

from __future__ import annotations

import math
from typing import Any, Final

from django.utils.translation import gettext_noop

#: The assumption the crosswise model's protection rests on: shown on the respondent page, in the
#: builder's preview and on the dashboard, wherever its ε is.
# Marked for the catalogues; translated where shown (surveys.pages.protection).
CROSSWISE_ASSUMPTION: Final = gettext_noop(
    "This protection holds only if the researcher cannot find out whether the second statement "
    "is true for you."
)

#: The same assumption, in the researcher's words (dashboard and builder).
CROSSWISE_RESEARCHER_ASSUMPTION: Final = (
    "The crosswise model's ε and its estimate assume that you cannot learn whether the innocuous "
    "statement is true for any respondent, and that its prevalence is the one given: a wrong "
    "prevalence biases the estimate."
)

_BIRTH_NOTE: Final = (
    "Birth months are not exactly uniform: a three-month window holds 25% ± about 2 percentage "
    "points of births, depending on the country and decade."
)

INNOCUOUS_STATEMENTS: Final[list[dict[str, Any]]] = [
    {
        "id": "mother_birth_jan_mar",
        "text": "My mother was born in January, February or March.",
        "texts": {"es": "Mi madre nació en enero, febrero o marzo."},
        "prevalence": 0.25,
        "source": "Jann, Jerke & Krumpal (2012), Public Opinion Quarterly 76(1):32–49",
        "note": _BIRTH_NOTE,
    },
    {
        "id": "father_birth_oct_dec",
        "text": "My father was born in October, November or December.",
        "texts": {"es": "Mi padre nació en octubre, noviembre o diciembre."},
        "prevalence": 0.25,
        "source": "Jann, Jerke & Krumpal (2012), Public Opinion Quarterly 76(1):32–49",
        "note": _BIRTH_NOTE,
    },
    {
        "id": "mother_birthday_day_1_10",
        "text": "My mother's birthday falls on one of the days 1 to 10 of its month.",
        "texts": {"es": "El cumpleaños de mi madre cae en uno de los días 1 a 10 de su mes."},
        "prevalence": 120 / 365.25,  # days 1–10 of every month: 120 of 365.25 days a year
        "source": "calendar arithmetic: 120 of 365.25 days a year (birthdays nearly uniform "
        "over the days of a month)",
        "note": "Assumes birthdays spread evenly over the days of the month.",
    },
    {
        "id": "house_number_first_digit_1",
        "text": "The first digit of my house number is 1.",
        "texts": {"es": "La primera cifra del número de mi casa es 1."},
        "prevalence": math.log10(2),
        "source": "Diekmann (2012), Sociological Methods & Research 41(2):325–334 (Benford's law)",
        "note": "Benford's law fits house numbers of ordinary streets; p = log₁₀ 2 ≈ 0.301.",
    },
]


#: The language of every library statement's ``text``; ``texts`` holds its vetted translations.
LIBRARY_LANGUAGE: Final = "en"

# Every statement in every language it is vetted in: ``texts`` gains the English ``text``.
for _statement in INNOCUOUS_STATEMENTS:
    _statement["texts"] = {LIBRARY_LANGUAGE: _statement["text"], **_statement["texts"]}
