"""A boundary fit in which one category level runs off to −∞ (issue 26, item 6a).

A rare trait, and one region ("west") whose respondents (almost) never have it: its report rate
is at or below d, the design's floor, so ℓ keeps rising as β_west → −∞ — but the intercept, the
other regions and the number predictor stay identified by the other regions' respondents, and R
(``rr::rrreg``, ``RRreg::RRlog``) reports finite SEs for them. So must we, flagging only west.

The reference is independent: the per-respondent likelihood of the *reduced* model — the west
respondents and the west column left out — maximised by scipy's BFGS (tests/dpcore/local/
test_regression.py's ``reference_fit``), SEs from the Hessian of that same function. Why that is
the right reference: with β_west at its limit the west patterns' likelihood is the constant
y·ln d + (n − y)·ln(1 − d), so ℓ's supremum over the other terms is the reduced model's maximum.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from dpcore.local.regression import fit_logistic
from tests.dpcore.local.test_regression import pool, reference_fit

TERMS = ["(Intercept)", "region=east", "region=west", "age"]
C, D = 0.5, 0.25  # the forced-response coin: p_truth ½, forced yes ¼, forced no ¼


def _rare_trait_one_region_without(seed: int, n: int = 6000):
    rng = np.random.default_rng(seed)
    region = rng.integers(0, 3, n)  # 0 north (reference), 1 east, 2 west
    age = rng.integers(18, 80, n).astype(float)
    x = np.column_stack([np.ones(n), region == 1, region == 2, age]).astype(float)
    eta = -2.5 + 0.7 * (region == 1) + 0.02 * age
    truth = (rng.random(n) < expit(eta)) & (region != 2)  # nobody in the west has the trait
    report = (rng.random(n) < np.where(truth, C + D, D)).astype(float)
    return x, report


@pytest.mark.parametrize("seed", [2611, 2613, 2614])
def test_only_the_diverging_level_loses_its_standard_error(seed: int) -> None:
    x, report = _rare_trait_one_region_without(seed)
    west = x[:, 2] == 1
    if report[west].mean() > D:  # the precondition of a boundary fit (holds for these seeds)
        pytest.fail("this seed's west report rate is above d: pick another")
    fit = fit_logistic(*pool(x, report), c=C, d=D, terms=TERMS)
    by_term = {co.term: co for co in fit.coefficients}
    assert not fit.converged
    (warning,) = fit.warnings
    assert "region=west runs off" in warning and "(Intercept)" not in warning
    assert by_term["region=west"].std_error is None and by_term["region=west"].estimate < -10

    keep = ~west
    reduced_x = x[keep][:, [0, 1, 3]]
    beta_ref, se_ref, _ = reference_fit(reduced_x, report[keep], C, D)
    for term, beta, se in zip(["(Intercept)", "region=east", "age"], beta_ref, se_ref, strict=True):
        co = by_term[term]
        assert co.estimate == pytest.approx(beta, abs=1e-6), term
        # The reference SE is a central difference of the analytic gradient (step 1e-4·|β|).
        assert co.std_error == pytest.approx(se, rel=1e-6), term
        assert co.p_value is not None and co.ci_low < co.estimate < co.ci_high


def test_pooled_counts_give_the_closed_form() -> None:
    # Categories only: each identified level's fitted share is its own (rate − d)/c.
    x = np.array([[1, 0, 0], [1, 1, 0], [1, 0, 1.0]])
    fit = fit_logistic(x, [330, 400, 240], [1000, 1000, 1000], c=C, d=D, terms=TERMS[:3])
    intercept, east, west = fit.coefficients
    p_north, p_east = (0.33 - D) / C, (0.40 - D) / C
    assert intercept.estimate == pytest.approx(np.log(p_north / (1 - p_north)), abs=1e-9)
    assert east.estimate == pytest.approx(
        np.log(p_east / (1 - p_east)) - intercept.estimate, abs=1e-9
    )
    # Delta method on π̂ = (λ̂ − d)/c: Var logit π̂ = λ(1 − λ)/(n·c²·π²(1 − π)²).
    se_north = np.sqrt(0.33 * 0.67 / 1000) / (C * p_north * (1 - p_north))
    assert intercept.std_error == pytest.approx(se_north, rel=1e-9)
    assert west.std_error is None and "region=west runs off" in fit.warnings[0]


def test_two_levels_diverging_both_ways_and_a_diverging_reference() -> None:
    x = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1.0]])
    terms = ["(Intercept)", "b", "c", "d"]
    # c at or below d (→ −∞), d at or above c + d (→ +∞); the reference and b identified.
    fit = fit_logistic(x, [330, 400, 240, 800], [1000] * 4, c=C, d=D, terms=terms)
    assert [co.std_error is None for co in fit.coefficients] == [False, False, True, True]
    assert "c, d run off" in fit.warnings[0]
    # The reference level at the boundary: every term is a contrast with it, none identified.
    fit = fit_logistic(x[:3, :3], [200, 400, 350], [1000] * 3, c=C, d=D, terms=terms[:3])
    assert all(co.std_error is None for co in fit.coefficients)
    assert "(Intercept), b, c run off" in fit.warnings[0]


def test_a_number_predictor_separating_still_withholds_all() -> None:
    # Complete separation along a number: no term is identified by the interior patterns.
    x = np.array([[1, 1.0], [1, 2.0], [1, 3.0], [1, 4.0]])
    fit = fit_logistic(x, [10, 20, 80, 90], [100] * 4, c=C, d=D, terms=["(Intercept)", "x"])
    assert all(co.std_error is None for co in fit.coefficients)
    assert any("boundary" in w for w in fit.warnings)


R_FIT = r"""
d <- read.csv(commandArgs(TRUE)[1])
x <- as.matrix(d[, c("intercept", "east", "west", "age")]); y <- d$report
cc <- as.numeric(commandArgs(TRUE)[2]); dd <- as.numeric(commandArgs(TRUE)[3])
nll <- function(b) {
  lam <- cc * plogis(drop(x %*% b)) + dd
  -sum(y * log(lam) + (1 - y) * log(1 - lam))
}
grad <- function(b) {
  p <- plogis(drop(x %*% b)); lam <- cc * p + dd
  -drop(t(x) %*% ((y / lam - (1 - y) / (1 - lam)) * cc * p * (1 - p)))
}
fit <- optim(c(-1, 0, 0, 0), nll, grad, method = "BFGS",
             control = list(maxit = 10000, reltol = 1e-15, parscale = c(1, 1, 1, 0.02)))
h <- optimHess(fit$par, nll, grad)
se <- sqrt(diag(solve(h)))
cat(sprintf("%.17g", fit$par), "\n", sprintf("%.17g", se), "\n")
"""


def test_r_optim_on_the_full_model_gives_the_same_identified_terms(tmp_path):
    """What R's packages do (RRlog: optim + the Hessian at the final iterate): base R's BFGS on
    the full model stops at a large β_west; the inverse Hessian's identified block there is the
    reduced model's (the west patterns add h·u uᵀ to the identified block and h·u to the cross
    term, with h → 0, and the Schur complement cancels them). Needs R (CI installs it)."""
    import shutil
    import subprocess

    from testsupport.services import require_service

    require_service(shutil.which("Rscript") is not None, "R (Debian's r-base-core)")
    x, report = _rare_trait_one_region_without(2611)
    data = tmp_path / "reports.csv"
    rows = ["intercept,east,west,age,report"] + [
        ",".join(f"{v:g}" for v in (*row, r)) for row, r in zip(x, report, strict=True)
    ]
    data.write_text("\n".join(rows) + "\n", encoding="utf-8")
    script = tmp_path / "fit.R"
    script.write_text(R_FIT, encoding="utf-8")
    done = subprocess.run(
        ["Rscript", "--vanilla", str(script), str(data), str(C), str(D)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    beta_r, se_r = (np.array(line.split(), dtype=float) for line in done.stdout.splitlines())
    assert beta_r[2] < -8  # R's west coefficient ran off too
    fit = fit_logistic(*pool(x, report), c=C, d=D, terms=TERMS)
    for i in (0, 1, 3):  # the identified terms
        co = fit.coefficients[i]
        # R stops at β_west ≈ −15, where the west patterns (of different ages, so the Schur
        # complement leaves an age-spread term) still add O(n_west·e^−15) to the information:
        # 6e-4 relative on the SEs here (0.30114 vs 0.30096 for the intercept); optimHess
        # differences the gradient (step 1e-3). Hence 1e-3, and 1e-4 on the estimates.
        assert co.estimate == pytest.approx(beta_r[i], abs=1e-4), co.term
        assert co.std_error == pytest.approx(se_r[i], rel=1e-3), co.term
