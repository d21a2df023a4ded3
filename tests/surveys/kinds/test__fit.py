"""The kinds' goodness-of-fit words (surveys.kinds._fit, docs/analysis.md#goodness-of-fit): the
API's ``fit`` object, and the dashboard's sentence in English and Spanish, shown only below
p = 0.05."""

from __future__ import annotations

from types import SimpleNamespace

from django.utils import translation

from dpcore.local.fit import BoundaryFit
from surveys.kinds import kind_named
from surveys.kinds._fit import fit_body, fit_sentence, fit_warnings


def test_fit_body_is_the_api_object():
    body = fit_body(BoundaryFit(4.2, 2, 0.03, (0.1, 0.5, 0.4)), "π ≥ 0")
    assert body is not None
    assert {k: body[k] for k in ("statistic", "value", "df", "p_value")} == {
        "statistic": "G2",
        "value": 4.2,
        "df": 2,
        "p_value": 0.03,
    }
    assert "π ≥ 0" in body["note"] and "(0.1, 0.5, 0.4)" in body["note"]
    assert fit_body(None, "π ≥ 0") is None


def test_warnings_only_below_five_percent():
    kind = SimpleNamespace(fit_reason=lambda: "why")
    entries = [
        SimpleNamespace(key="a", text="A", fit={"value": 5.0, "p_value": 0.01}),
        SimpleNamespace(key="b", text="B", fit={"value": 1.0, "p_value": 0.2}),
        SimpleNamespace(key="c", text="C", fit=None),
    ]
    with translation.override("en"):
        warnings = fit_warnings(entries, lambda key: kind)
    assert [w["key"] for w in warnings] == ["a"]
    assert warnings[0]["sentence"].endswith("(G² = 5.00, p = 0.01): why")


def test_the_sentence_is_in_english_and_spanish():
    fit = {"value": 11.507, "p_value": 0.00035}
    with translation.override("en"):
        en = fit_sentence(fit, "reason")
    with translation.override("es"):
        es = fit_sentence(fit, "motivo")
    assert (
        en == "The answers contradict this design's assumptions (G² = 11.51, p = 0.00035): reason"
    )
    assert es == (
        "Las respuestas contradicen los supuestos de este diseño (G² = 11.51, p = 0.00035): motivo"
    )
    with translation.override("es"):
        assert "tramposos" in kind_named("cheater_detection").fit_reason()
        assert "afirmación inocua" in kind_named("crosswise").fit_reason()
