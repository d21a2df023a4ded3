"""The deniability words and numbers the kinds share: a report's likelihood ratio and the belief
it leads to, and the randomizer the page draws with (coins or a spinner). The rule is documented
in ``docs/respondent-pages.md`` (see :mod:`surveys.pages.protection`); each kind puts them together
(``QuestionKind.protection``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from django.utils import formats
from django.utils.translation import gettext as _

from dpcore import local as rr
from dpcore.local.designs import design_named


def fraction(p: float) -> str:
    """ "1 in 4" for simple shares, else a percentage."""
    for n in range(2, 11):
        if math.isclose(p, 1 / n, abs_tol=1e-9):
            return _("1 in %(n)s") % {"n": n}
    return percent(p)


def _rounded(x: float, places: int) -> str:
    """Half-up rounding of the value as a person computes it: 0.875 → 87.5% → "88%", even when
    floating point gives 87.49999999999999 (a design of (0.6, 0.3, 0.1) does)."""
    clean = Decimal(repr(round(x, 9)))
    return str(clean.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def _localized(number: str) -> str:
    """A rounded number's text with the active language's decimal separator ("87,5" in es)."""
    return number.replace(".", str(formats.get_format("DECIMAL_SEPARATOR")))


def percent(p: float) -> str:
    x = 100.0 * p
    value = _rounded(x, 1) if 0 < x < 1 or 99 < x < 100 else _rounded(x, 0)
    return _("%(value)s%%") % {"value": _localized(value)}


def times(x: float) -> str:
    """A ratio in words: "3 times", "1.4 times"."""
    text = _rounded(x, 1).removesuffix(".0") if x < 10 else _rounded(x, 0)
    return _("%(ratio)s times") % {"ratio": _localized(text)}


def yes_word(report: str) -> str:
    """The reported answer as the pages print it: "YES" or "NO"."""
    return _("YES") if report == "yes" else _("NO")


def answer_word(answer: str) -> str:
    """A true answer in running text: "yes" or "no"."""
    return _("yes") if answer == "yes" else _("no")


def posterior(ratio: float, prior: float) -> float:
    """Bayes with a likelihood ratio: ``LR·π₀/(LR·π₀ + 1 − π₀)``; 1.0 when the ratio is ∞."""
    if math.isinf(ratio):
        return 1.0
    return ratio * prior / (ratio * prior + 1.0 - prior)


def ratio_of(num: float, den: float) -> float:
    return math.inf if den <= 0.0 else num / den


def _report_words(report: str, ratio: float, post: float) -> dict[str, str]:
    """The words a yes/no report's sentence fills in (``report`` is "yes" or "no")."""
    other = "no" if report == "yes" else "yes"
    return {
        "report": yes_word(report),
        "times": times(ratio),
        "answer": answer_word(report),
        "other": answer_word(other),
        "percent": percent(post),
    }


def yes_no_reports(design: rr.BinaryDesign) -> dict[str, dict[str, Any]]:
    ratios = {
        "yes": ratio_of(design.p_yes_given_trait, design.p_yes_given_no_trait),
        "no": ratio_of(1.0 - design.p_yes_given_no_trait, design.p_no_given_trait),
    }
    out = {}
    for report, ratio in ratios.items():
        post = posterior(ratio, 0.5)
        out[report] = {
            "likelihood_ratio": None if math.isinf(ratio) else ratio,
            "reference_prior": 0.5,
            "posterior": post,
            "text": _(
                "A %(report)s report is %(times)s as likely from someone whose true answer is "
                "%(answer)s as from someone whose true answer is %(other)s. Someone who thought "
                "it 50–50 beforehand would now think it is %(percent)s likely that your true "
                "answer is %(answer)s."
            )
            % _report_words(report, ratio, post),
        }
    return out


def krr_reports(
    design: rr.KRRDesign, options: list[str], labels: Mapping[str, str]
) -> dict[str, dict[str, Any]]:
    """Keyed by the stored option (what is reported); the words use its label."""
    k = len(options)
    ratio = ratio_of(design.keep_probability, design.other_probability)
    out = {}
    for option in options:
        post = posterior(ratio, 1.0 / k)
        out[option] = {
            "likelihood_ratio": ratio,
            "reference_prior": 1.0 / k,
            "posterior": post,
            "text": _(
                "A “%(option)s” report is %(times)s as likely from someone whose true answer is "
                "“%(option)s” as from someone whose true answer is any one other option. "
                "Someone who thought all %(k)s options equally likely for you would now think it "
                "is %(percent)s likely that your true answer is “%(option)s”."
            )
            % {
                "option": labels.get(option, option),
                "times": times(ratio),
                "k": k,
                "percent": percent(post),
            },
        }
    return out


def two_group_reports(worst: Mapping[str, float]) -> dict[str, dict[str, Any]]:
    """Each report's worst likelihood ratio over a two-group design's groups (``{"yes": r,
    "no": r}``: cheating detection, unrelated question), as the page and the API say it."""
    reports = {}
    for report, ratio in worst.items():
        post = posterior(ratio, 0.5)
        reports[report] = {
            "likelihood_ratio": ratio,
            "reference_prior": 0.5,
            "posterior": post,
            "text": _(
                "In either group, a %(report)s report is at most %(times)s as likely from "
                "someone whose true answer is %(answer)s as from someone whose true answer is "
                "%(other)s. Someone who thought it 50–50 beforehand would now think it at most "
                "%(percent)s likely that your true answer is %(answer)s."
            )
            % _report_words(report, ratio, post),
        }
    return reports


def is_coin_design(spec: Mapping[str, Any]) -> bool:
    return spec.get("name") == rr.DEFAULT_YES_NO_SPEC["name"] and all(
        math.isclose(float(spec[key]), value, abs_tol=1e-12)
        for key, value in rr.DEFAULT_YES_NO_SPEC.items()
        if key != "name"
    )


def randomizer(options: Sequence[str], design: rr.BinaryDesign | rr.KRRDesign) -> dict[str, Any]:
    """One visual per design: two coins for the coin design, a spinner for every other one.

    ``sectors`` are the spinner's slices (branch names as the design's page module returns them,
    ``static/js/rr/designs/``) with their shares and the percentages the legend prints; the page
    only draws and labels them, the draw itself compares the server's integer thresholds
    (``dpcore.local.browser``).
    """
    spec = design.to_spec()
    if is_coin_design(spec):
        return {
            "kind": "coins",
            "button": _("Flip the coins"),
            "how": _(
                "Two coins decide. First coin tails: your true answer is recorded. Heads: a "
                "second coin decides — heads records YES, tails records NO, whatever your true "
                "answer."
            ),
            "sectors": [],
        }
    truth_label = _("Your true answer")
    if isinstance(design, rr.KRRDesign):
        keep = design.keep_probability
        sectors = [("keep", truth_label, keep), ("other", _("Another option"), 1 - keep)]
        how = _(
            "A spinner decides. %(share)s of the time your true answer is recorded; otherwise "
            "one of the other %(n)s options, picked at random."
        ) % {"share": fraction(keep).capitalize(), "n": len(options) - 1}
    else:
        sectors, how = _binary_spinner(design)
    return {
        "kind": "spinner",
        "button": _("Spin the spinner"),
        "how": how,
        # ``percent`` is the legend's text for the share, rounded here so the page prints it
        # unchanged (it never formats a probability itself).
        "sectors": [
            {"branch": b, "label": label, "share": s, "percent": percent(s)}
            for b, label, s in sectors
        ],
    }


def _binary_spinner(design: rr.BinaryDesign) -> tuple[list[tuple[str, str, float]], str]:
    """A yes/no design's spinner: its slices (the design's ``BrowserHooks.sectors``) labelled,
    and the sentence for the device they make up. The words follow the branches, not the
    design: a device whose draw may flip the statement ("negation") answers the statement as
    asked, and one that may answer a harmless question says so."""
    browser = design_named(design.name).browser
    if browser is None or browser.sectors is None:
        raise LookupError(f"design {design.name!r}: no spinner on the page")
    shares = dict(browser.sectors(design.params))
    if "negation" in shares:
        p = shares["truth"]
        labels = {"truth": _("Statement as asked"), "negation": _("Opposite statement")}
        how = _(
            "A spinner decides whether your answer is to the statement as asked (%(asked)s) or "
            "to its opposite (%(opposite)s); only you see which."
        ) % {"asked": fraction(p), "opposite": fraction(shares["negation"])}
    elif "innocuous-yes" in shares:
        labels = {
            "truth": _("Your true answer"),
            "innocuous-yes": _("Harmless question: YES"),
            "innocuous-no": _("Harmless question: NO"),
        }
        how = _(
            "A spinner decides. %(share)s of the time your true answer is recorded; otherwise "
            "the answer to a harmless question, which your browser picks by chance."
        ) % {"share": fraction(shares["truth"]).capitalize()}
    else:
        labels = {"truth": _("Your true answer"), "yes": _("YES"), "no": _("NO")}
        how = forced_how(shares["truth"], shares["yes"], shares["no"])
    return [(branch, labels[branch], share) for branch, share in shares.items()], how


def forced_how(p_truth: float, p_yes: float, p_no: float) -> str:
    return _(
        "A spinner decides. %(truth)s of the time your true answer is recorded; %(yes)s YES and "
        "%(no)s NO, whatever your true answer."
    ) % {
        "truth": fraction(p_truth).capitalize(),
        "yes": fraction(p_yes),
        "no": fraction(p_no),
    }
