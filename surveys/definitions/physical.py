"""The no-JavaScript path's randomizer: a coin or dice whose faces realise a design exactly.

A physical protocol must reproduce the design's probabilities *exactly*, or the estimator is
biased and the stated ε is wrong. So each outcome's probability must be a whole number of the
device's equally likely faces, m/n: matched to within 2⁻⁵⁰ of the design's float (so 1/6 typed
as 0.16666666666666666 matches a die, 0.1667 does not), with nothing dropped — every outcome the
design can produce gets at least one face. The ε of the faces (exact fractions) is computed and
rounded up, and ``surveys.definitions.question_designs.question_epsilon`` reports the larger of it
and the browser's,
so the ε shown is never below what either path runs. When no device fits (an irrational k-RR keep
probability, say) the question needs JavaScript and the page says so.

Pure: works on ``dpcore.local`` designs, no Django.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from dpcore.local import BinaryDesign, KRRDesign
from dpcore.local.browser import epsilon_of_ratios, krr_epsilon
from dpcore.local.cheater import CheaterDetectionDesign, group_designs


def gettext_noop(text: str) -> str:
    """Marks a word for the translation catalogues (``makemessages`` extracts every
    ``gettext_noop("…")``) without importing Django: the kinds translate it when shown."""
    return text


#: (faces n, instruction, face names), smallest first: the first device that fits is used.
DEVICES: Final[list[tuple[int, str, list[str]]]] = [
    (2, gettext_noop("Flip a coin."), [gettext_noop("heads"), gettext_noop("tails")]),
    (
        4,
        gettext_noop("Flip a coin twice."),
        [
            gettext_noop("heads then heads"),
            gettext_noop("heads then tails"),
            gettext_noop("tails then heads"),
            gettext_noop("tails then tails"),
        ],
    ),
    (6, gettext_noop("Roll a die."), [str(i) for i in range(1, 7)]),
    (
        36,
        gettext_noop(
            "Roll two dice, one after the other, and work out (first − 1) × 6 + second, "
            "a number from 1 to 36."
        ),
        [str(i) for i in range(1, 37)],
    ),
]
# A design float and a face fraction this close are the same number written in binary.
_MATCH: Final = Fraction(1, 2**50)

TRUTH = "truth"
YES = "yes"
NO = "no"
OPPOSITE = "opposite"
KEEP = "keep"
OTHER = "other"


@dataclass(frozen=True)
class Realisation:
    """A device and, per outcome, how many of its faces lead there (all ≥ 1, summing to n)."""

    faces: int
    instruction: str
    face_names: list[str]
    counts: list[tuple[str, int]]
    epsilon: float


def _forced_response(params: Mapping[str, Any]) -> list[tuple[str, float | Fraction]]:
    return [(TRUTH, params["p_truth"]), (YES, params["p_yes"]), (NO, params["p_no"])]


def _warner(params: Mapping[str, Any]) -> list[tuple[str, float | Fraction]]:
    return [(TRUTH, params["p"]), (OPPOSITE, 1.0 - params["p"])]


def _two_probability(params: Mapping[str, Any]) -> list[tuple[str, float | Fraction]]:
    # Forced response with truth a − b, YES b, NO 1 − a: the same P(yes | trait) = a and
    # P(yes | no trait) = b (exact fractions: a − b in floats could be off by an ulp).
    a, b = Fraction(params["p_yes_if_trait"]), Fraction(params["p_yes_if_not"])
    return [(TRUTH, a - b), (YES, b), (NO, 1 - a)]


def _unrelated_question(params: Mapping[str, Any]) -> list[tuple[str, float | Fraction]]:
    p, u = params["p"], params["innocuous_prevalence"]
    # The innocuous answer drawn from the same device is exactly the browser's simulation of it.
    return [(TRUTH, p), (YES, (1.0 - p) * u), (NO, (1.0 - p) * (1.0 - u))]


#: The outcomes of each yes/no design a device can run, by design name. A design not listed has
#: no device: the crosswise model needs none (the respondent's own innocuous fact is the
#: randomness; its kind gives its page its own words), and a new design needs JavaScript until
#: it is added here.
_BINARY_OUTCOMES: Final[
    dict[str, Callable[[Mapping[str, Any]], list[tuple[str, float | Fraction]]]]
] = {
    "forced_response": _forced_response,
    "warner": _warner,
    "two_probability": _two_probability,
    "unrelated_question": _unrelated_question,
}


def _outcomes(design: BinaryDesign | KRRDesign) -> list[tuple[str, float | Fraction]] | None:
    """Each outcome of the design and its probability; None when no device can run it."""
    if isinstance(design, KRRDesign):
        keep = design.keep_probability
        return [(KEEP, keep), (OTHER, 1.0 - keep)]
    outcomes = _BINARY_OUTCOMES.get(design.name)
    return None if outcomes is None else outcomes(design.params)


def _epsilon(design: BinaryDesign | KRRDesign, counts: dict[str, int], n: int) -> float:
    share = {name: Fraction(m, n) for name, m in counts.items()}
    if isinstance(design, KRRDesign):
        return krr_epsilon(share[KEEP], design.k)
    truth, yes = share.get(TRUTH, Fraction(0)), share.get(YES, Fraction(0))
    if design.name == "warner":
        return epsilon_of_ratios(truth, share[OPPOSITE])
    return epsilon_of_ratios(truth + yes, yes)


def physical_realisation(design: BinaryDesign | KRRDesign) -> Realisation | None:
    """The smallest device realising the design exactly, or None (the question needs JS).

    A design with no device (:data:`_BINARY_OUTCOMES`: the crosswise model needs none) gives
    None too; its kind gives its page its own words (``QuestionKind.physical_protocol``).
    """
    if isinstance(design, KRRDesign) and design.k - 1 > 6:
        return None  # the "other option" is picked by a die roll: at most 6 others
    chances = _outcomes(design)
    if chances is None:
        return None
    outcomes = [(name, Fraction(p)) for name, p in chances]
    if any(p <= 0 for _, p in outcomes):
        return None  # nothing is dropped: an outcome the faces never produce changes ε
    for n, instruction, names in DEVICES:
        counts = [(name, round(p * n)) for name, p in outcomes]
        exact = all(
            m >= 1 and abs(p - Fraction(m, n)) <= _MATCH
            for (_, p), (_, m) in zip(outcomes, counts, strict=True)
        )
        if exact and sum(m for _, m in counts) == n:
            eps = _epsilon(design, dict(counts), n)
            return Realisation(n, instruction, names, counts, eps)
    return None


def cheater_realisation(design: CheaterDetectionDesign) -> tuple[Realisation, Realisation] | None:
    """The no-JS protocol of the cheating-detection model: a coin flip picks the group (heads: 1,
    tails: 2; exactly ½ each), then that group's forced-response device. None when either
    group's probabilities are not a whole number of faces (the question then needs JavaScript).
    """
    first, second = (physical_realisation(group) for group in group_designs(design))
    if first is None or second is None:
        return None
    return first, second
