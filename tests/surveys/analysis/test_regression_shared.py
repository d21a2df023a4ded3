"""surveys.analysis.regression_shared: the predictors' split and the too-few-respondents refusal
the logistic and linear fits share (unsaved rows, no database)."""

from __future__ import annotations

import pytest

from deniable.errors import InvalidInput
from surveys.analysis.regression_shared import is_latent, require_respondents, split_predictors
from tests.surveys.kinds.support import question

REFUSED = "predictors must be category, number, or randomized yes/no questions."


def _questions():
    return {
        "y": question("yes_no", key="y"),
        "age": question("number", key="age", min_value=18, max_value=90),
        "g": question("category", key="g", options=["a", "b"]),
        "t": question("yes_no", key="t"),
        "c": question("choice", key="c", options=["a", "b", "c"]),
    }


def _refusal(predictors, max_latent=4) -> tuple[str, str]:
    with pytest.raises(InvalidInput) as refused:
        split_predictors(_questions(), "y", predictors, max_latent=max_latent, refused=REFUSED)
    ((field, messages),) = refused.value.errors.items()
    return field, " ".join(messages)


def test_direct_and_randomized_predictors_are_split_in_order() -> None:
    qs = _questions()
    direct, latent = split_predictors(qs, "y", ["t", "age", "g"], max_latent=4, refused=REFUSED)
    assert [q.key for q in direct] == ["age", "g"]
    assert [q.key for q in latent] == ["t"]
    assert is_latent(qs["t"]) and not is_latent(qs["age"])


def test_each_refusal_names_predictors() -> None:
    assert _refusal(["y"]) == ("predictors", "The outcome cannot be a predictor.")
    assert _refusal(["nope"]) == ("predictors", "No question with key 'nope'.")
    field, message = _refusal(["c"])
    assert field == "predictors" and message.endswith(REFUSED)
    field, message = _refusal(["t", "t"], max_latent=1)
    assert field == "predictors" and message.startswith("At most 1 randomized predictors (2 given)")


def test_too_few_respondents_is_a_400_naming_outcome() -> None:
    require_respondents(15, 3)  # max(10, 5·3) = 15: enough
    with pytest.raises(InvalidInput) as refused:
        require_respondents(14, 3)
    assert refused.value.errors == {
        "outcome": [
            "Too few respondents with the outcome and every predictor answered (14; need at "
            "least 15 for 3 parameters)."
        ]
    }
    with pytest.raises(InvalidInput) as refused:
        require_respondents(9, 1, "terms")
    assert refused.value.errors["outcome"][0].endswith("need at least 10 for 1 terms).")


def test_the_body_keeps_its_keys_order_with_the_familys_own_before_the_coefficients() -> None:
    from types import SimpleNamespace

    from dpcore.local.regression import Coefficient
    from surveys.analysis.regression_shared import fit_body

    co = Coefficient("(Intercept)", 0.5, 0.1, 0.3, 0.7, 5.0, 1e-6, None)
    fit = SimpleNamespace(
        n=40, log_likelihood=-3.0, converged=True, iterations=4, confidence=0.95,
        warnings=("w",), coefficients=(co,),
    )  # fmt: skip
    data = SimpleNamespace(n_excluded=2, reference={}, dropped_levels={})
    body = fit_body(
        SimpleNamespace(slug="s"), question("number", key="y"), fit, data,
        design=None, family="linear", extra={"sigma": 1.5},
    )  # fmt: skip
    assert list(body)[-3:] == ["warnings", "sigma", "coefficients"]
    assert list(body)[:4] == ["survey", "outcome", "design", "family"]
    assert body["warnings"] == ["w"]
    assert body["coefficients"] == [
        {"term": "(Intercept)", "estimate": 0.5, "std_error": 0.1, "ci_low": 0.3, "ci_high": 0.7,
         "z": 5.0, "p_value": 1e-6, "odds_ratio": None}
    ]  # fmt: skip
