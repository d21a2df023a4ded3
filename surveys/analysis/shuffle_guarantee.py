"""What a shuffled, randomized-only reports file protects (issue 13; docs/formulas.md#shuffling).

:func:`shuffled_export_guarantee` — for the reports export *restricted to the randomized
columns* (rows shuffled, unlinked, direct answers left out), the central (ε, δ) it satisfies for
whoever receives only that file: amplification by shuffling (:mod:`dpcore.central.shuffle`), from
n = the rows in the file and each row's local ε (the sum of the randomized questions' ε: a row is
one ε₀-DP report), at the survey's δ. ``method`` names the bound: ``clones-2023`` when the file is
one column whose reports are one k-ary randomized response each (a yes/no design, k = 2, or
k-RR: :func:`surveys.definitions.question_designs.report_arity`), else ``clones-2021`` (any
randomizer); both are the exact divergence of their clone pair, the smaller sound one is stated.
``None`` when there is nothing to say (no randomized question, a design that is not DP, fewer
than two rows).

It lives in the surveys app (not privacy): the export metadata
(:func:`surveys.analysis.export.export_metadata`, ``…/responses/export/metadata/``) and the
researcher
dashboard (:mod:`surveys.pages.researcher`) show it; surveys never imports the releases app.
"""

from __future__ import annotations

from typing import Any

from dpcore.central import shuffle
from surveys.definitions import question_designs as designs
from surveys.models import Submission, Survey

_DESCRIPTIONS = {
    "clones-2021": (
        "amplification by shuffling: exact divergence of the clone pair of Feldman, McMillan & "
        "Talwar 2021 (any local randomizer)"
    ),
    "clones-2023": (
        "amplification by shuffling: exact divergence of the stronger clone pair of Feldman, "
        "McMillan & Talwar 2023 for one randomized-response column"
    ),
}


def shuffled_export_guarantee(survey: Survey) -> dict[str, Any] | None:
    """The shuffled-export guarantee as a JSON-ready dict (see the module notes)."""
    keys: list[str] = []
    local = 0.0
    arities: list[int | None] = []
    for question in survey.questions.all():
        description = designs.design_description(question)
        if description is None:
            continue  # asked directly: left out of the randomized-only file
        eps = description.get("epsilon")
        if eps is None:
            return None  # a one-sided design is not DP: no guarantee to state
        if designs.is_multi(question):  # one 1/0 column per option; ε is already their sum
            keys.extend(f"{question.key}.{option}" for option in question.options)
        else:
            keys.append(question.key)
        local += float(eps)
        arities.append(designs.report_arity(question))
    n = Submission.objects.filter(survey=survey, sealed=True).count()
    if not keys or n < 2:
        return None
    delta = float(survey.budget_delta)
    # Only a file of one such column is a shuffle of k-RR reports; several columns are a product.
    k = arities[0] if len(arities) == 1 else None
    guarantee = shuffle.shuffled_guarantee(n, local, delta, k)
    epsilon = guarantee.epsilon
    return {
        "applies_to": "the shuffled export restricted to the randomized columns",
        "columns": keys,
        "rows": n,
        "local_epsilon_per_row": local,
        "epsilon": epsilon,
        # Issue 22.12: with few rows the bound is no better than each row's own local ε; only a
        # smaller ε is a guarantee worth announcing (the dashboard shows it only then).
        "gain": epsilon < local,
        "delta": delta,
        "method": guarantee.method,
        "method_description": _DESCRIPTIONS[guarantee.method],
        "closed_form_epsilon": shuffle.closed_form_epsilon(n, local, delta),
        "assumptions": list(shuffle.ASSUMPTIONS),
    }
