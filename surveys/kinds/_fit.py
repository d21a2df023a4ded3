"""Goodness of fit as the kinds report it (docs/analysis.md#goodness-of-fit): the API's ``fit``
object from a ``dpcore.local.fit.BoundaryFit``, and the dashboard's sentence when the answers
contradict the design. No kind is named here: each kind passes its own words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _

#: Below this p the dashboard says the answers contradict the design's assumptions.
FIT_ALPHA = 0.05


def fit_body(result: Any, region: str) -> dict[str, Any] | None:
    """``{"statistic": "G2", "value", "df", "p_value", "note"}`` (None without a result);
    ``region`` names the constraints tested, in the note's words."""
    if result is None:
        return None
    weights = ", ".join(f"{w:.3g}" for w in result.weights)
    note = (
        f"Likelihood-ratio test of {region} against the unconstrained fit; p from the χ̄² "
        f"mixture with weights ({weights}) on χ²₀, χ²₁, … at the constrained estimate (a "
        "boundary null: Self & Liang 1987). G² = 0 (p = 1) when the estimate lies inside."
    )
    return {
        "statistic": "G2",
        "value": result.g2,
        "df": result.df,
        "p_value": result.p_value,
        "note": note,
    }


def _p_text(p: float) -> str:
    return f"{p:.2g}" if p >= 1e-4 else f"{p:.1e}"


def fit_sentence(fit: dict[str, Any], reason: str) -> str:
    """The dashboard's plain-language sentence (translated)."""
    return _(
        "The answers contradict this design's assumptions (G² = %(g2)s, p = %(p)s): %(reason)s"
    ) % {"g2": f"{fit['value']:.2f}", "p": _p_text(fit["p_value"]), "reason": reason}


def fit_warnings(entries: Sequence[Any], kind_of_key: Any) -> list[dict[str, Any]]:
    """One warning per estimate whose fit rejects at :data:`FIT_ALPHA`: its key, text and
    sentence; ``kind_of_key(key)`` gives the question's kind (its ``fit_reason``)."""
    out = []
    for entry in entries:
        fit = getattr(entry, "fit", None)
        if fit is None or fit["p_value"] >= FIT_ALPHA:
            continue
        kind = kind_of_key(entry.key)
        sentence = fit_sentence(fit, kind.fit_reason())
        out.append({"key": entry.key, "text": entry.text, "sentence": sentence})
    return out
