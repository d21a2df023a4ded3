"""One row of the researcher's estimate table and chart (``surveys.pages.charts``), from an estimate
entry or one of its options; each kind says which rows its estimate makes
(``QuestionKind.chart_rows``)."""

from __future__ import annotations

from typing import Any


def pct(x: float | None) -> float | None:
    """A proportion as a percentage for display (0.268 → 26.8); None stays None."""
    return None if x is None else 100.0 * x


def row(
    base: dict[str, Any],
    label: str,
    n: int,
    source: Any,
    rate: str | None,
    estimate: str = "estimate",
    *,
    proportion: bool = True,
    direct: bool = False,
) -> dict[str, Any]:
    """One table row from an estimate entry (or one of its options); absent fields are None.

    Proportions are also given as percentages (``*_pct``): the pages show 26.8%, not 0.268.
    ``clipped`` marks an estimate pinned to 0 or 1 because the debiased value fell outside.
    """
    row = {
        **base,
        "label": label,
        "n": n,
        "reported_rate": getattr(source, rate, None) if rate else None,
        "estimate": getattr(source, estimate, None),
        "std_error": getattr(source, "std_error", None),
        "ci_low": getattr(source, "ci_low", None),
        "ci_high": getattr(source, "ci_high", None),
        "proportion": proportion,
        "direct": direct,
    }
    unclipped = getattr(source, "estimate_unclipped", None)
    # Pinned at an edge: k-RR estimates are also projected onto the simplex, which moves
    # interior values a little; only a value held at 0 or 1 needs the clip note.
    row["clipped"] = (
        proportion
        and unclipped is not None
        and row["estimate"] in (0.0, 1.0)
        and unclipped != row["estimate"]
    )
    if proportion:
        for name in ("reported_rate", "estimate", "std_error", "ci_low", "ci_high"):
            row[f"{name}_pct"] = pct(row[name])
    return row
